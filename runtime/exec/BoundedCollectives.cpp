//===- BoundedCollectives.cpp - waits on the other ranks -----------------===//

#include "BoundedCollectives.h"

#include "fuser/Runtime/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace fuser;

namespace {
/// FUSER_TIMEOUT_S as the runtime reads it (fuser_init has checked that it
/// is a positive number), 60 s when unset.
double timeoutSeconds() {
  const char *timeout = std::getenv("FUSER_TIMEOUT_S");
  return timeout ? std::strtod(timeout, nullptr) : 60.0;
}

/// Waits for `request`; past `seconds` (0: the timeout), ends every rank
/// naming `step`.
void waitBounded(MPI_Request &request, const char *step, double seconds = 0) {
  if (seconds <= 0)
    seconds = timeoutSeconds();
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int done = 0;
  while (true) {
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      std::string message =
          std::string(program_invocation_short_name) + ": " + step + " failed";
      fuser_fail(message.c_str());
    }
    if (done)
      return;
    if (std::chrono::steady_clock::now() > deadline) {
      char message[512];
      std::snprintf(message, sizeof(message),
                    "%s: %s: the other ranks did not all take part "
                    "within %g s (FUSER_TIMEOUT_S): a rank has failed, was "
                    "killed or is stuck",
                    program_invocation_short_name, step, seconds);
      fuser_fail(message);
    }
    std::this_thread::yield();
  }
}
} // namespace

namespace {
/// Ends every rank when a world collective failed: the ranks are out of
/// step (or, under MPI, a collective still owns its buffers).
void endOnFailure(FuserStatus status) {
  if (status == FUSER_OK)
    return;
  std::string message =
      std::string(program_invocation_short_name) + ": " + fuser_last_error();
  fuser_fail(message.c_str());
}
} // namespace

std::optional<RankError> fuser::firstRankError(const std::string &error,
                                               double seconds) {
  int64_t worldSize = fuser_world_size();
  int64_t mine = error.empty() ? worldSize : fuser_rank();
  std::vector<int64_t> everyone(worldSize);
  endOnFailure(fuser_world_allgather(&mine, sizeof(mine), everyone.data(),
                                     "agreeing that every rank may go on",
                                     seconds));
  int64_t first = *std::min_element(everyone.begin(), everyone.end());
  if (first == worldSize)
    return std::nullopt;
  // The message travels in a buffer of one size on every rank.
  constexpr size_t kMessageBytes = 2048;
  std::string message = error.substr(0, kMessageBytes - 1);
  message.resize(kMessageBytes, '\0');
  boundedBroadcast(message.data(), static_cast<int>(kMessageBytes),
                   static_cast<int>(first), "sharing a rank's error");
  message.resize(std::strlen(message.c_str()));
  return RankError{static_cast<int>(first), message};
}

void fuser::exitOnAnyRankError(const std::string &error) {
  std::optional<RankError> first = firstRankError(error);
  if (!first)
    return;
  if (first->rank == fuser_rank()) {
    std::string where =
        first->rank ? "rank " + std::to_string(first->rank) + ": " : "";
    std::fprintf(stderr, "%s: %s%s\n", program_invocation_short_name,
                 where.c_str(), error.c_str());
  }
  fuser_finalize();
  std::exit(1);
}

std::vector<uint64_t> fuser::boundedAllgather(uint64_t value,
                                              const char *step) {
  std::vector<uint64_t> values(fuser_world_size());
  endOnFailure(
      fuser_world_allgather(&value, sizeof(value), values.data(), step, 0));
  return values;
}

void fuser::boundedBarrier(const char *step) { boundedAllgather(0, step); }

void fuser::boundedBroadcast(void *data, int bytes, int root,
                             const char *step) {
  endOnFailure(fuser_world_broadcast(data, bytes, root, step));
}

void fuser::boundedReduce(const double *values, double *reduced, int count,
                          MPI_Op operation, const char *step) {
  MPI_Request request;
  MPI_Ireduce(values, reduced, count, MPI_DOUBLE, operation, 0, MPI_COMM_WORLD,
              &request);
  waitBounded(request, step);
}

void fuser::boundedGather(const void *data, int bytes, void *gathered,
                          const char *step) {
  MPI_Request request;
  MPI_Igather(data, bytes, MPI_BYTE, gathered, bytes, MPI_BYTE, 0,
              MPI_COMM_WORLD, &request);
  waitBounded(request, step);
}
