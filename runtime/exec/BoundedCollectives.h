//===- BoundedCollectives.h - waits on the other ranks ----------*- C++ -*-===//
//
// The tools' own collectives over MPI_COMM_WORLD (fuser-exec and
// fuser-calibrate agreeing on errors, gathering verdicts and measurements),
// each
// bounded by FUSER_TIMEOUT_S like the runtime's waits: when a rank has
// died or is stuck elsewhere, the others end every rank (fuser_fail,
// naming the step) instead of waiting for it forever.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H
#define FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H

#include <mpi.h>

#include <cstdint>
#include <string>

namespace fuser {

/// Ends every rank, exiting with 1, unless `error` is empty on every rank:
/// the lowest rank with an error prints it ("<tool>: <error>", with
/// "rank R: " before it unless R is 0). Collective.
void exitOnAnyRankError(const std::string &error);

/// MPI_Barrier, bounded; `step` names it in the timeout's message.
void boundedBarrier(const char *step);
/// MPI_Bcast of `bytes` bytes from `root`, bounded.
void boundedBroadcast(void *data, int bytes, int root, const char *step);
/// MPI_Reduce to rank 0 of `count` doubles with `operation`, bounded.
void boundedReduce(const double *values, double *reduced, int count,
                   MPI_Op operation, const char *step);
/// MPI_Gather to rank 0 of `bytes` bytes from every rank, bounded.
void boundedGather(const void *data, int bytes, void *gathered,
                   const char *step);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_BOUNDEDCOLLECTIVES_H
