//===- BoundedCollectives.h - waits on the other ranks ----------*- C++ -*-===//
//
// The runners' own collectives over the world (fuser-exec, the Python
// runner and fuser-calibrate agreeing on errors before a program runs,
// gathering verdicts and measurements): the runtime's world collectives
// (MPI's, or a store's where torchrun started the ranks), and for the MPI
// tools a reduce and a gather over MPI_COMM_WORLD. Each is bounded by
// FUSER_TIMEOUT_S like the runtime's waits: when a rank has died or is
// stuck elsewhere, the others end every rank (fuser_fail, naming the step)
// instead of waiting for it forever. Going on is unsafe then: the ranks
// are no longer in step, and a pending collective still owns its buffers.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H
#define FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuser {

/// A rank's error, as every rank learns it.
struct RankError {
  int rank;
  std::string message;
};

/// The lowest rank whose `error` is not empty, and its error, on every
/// rank; nothing when no rank has one. Collective, bounded by `seconds`
/// (0: FUSER_TIMEOUT_S) for ranks that arrive after long work of their own.
std::optional<RankError> firstRankError(const std::string &error,
                                        double seconds = 0);

/// Ends every rank, exiting with 1, unless `error` is empty on every rank:
/// the lowest rank with an error prints it ("<tool>: <error>", with
/// "rank R: " before it unless R is 0). Collective.
void exitOnAnyRankError(const std::string &error);

/// Every rank reaches it, bounded; `step` names it in the timeout's
/// message.
void boundedBarrier(const char *step);
/// `bytes` bytes from `root` to every rank, bounded.
void boundedBroadcast(void *data, int bytes, int root, const char *step);
/// MPI_Reduce to rank 0 of `count` doubles with `operation`, bounded.
void boundedReduce(const double *values, double *reduced, int count,
                   MPI_Op operation, const char *step);
/// `value` of every rank, in rank order, on every rank. Collective.
std::vector<uint64_t> boundedAllgather(uint64_t value, const char *step);
/// MPI_Gather to rank 0 of `bytes` bytes from every rank, bounded.
void boundedGather(const void *data, int bytes, void *gathered,
                   const char *step);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H
