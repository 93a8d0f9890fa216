//===- BoundedCollectives.cpp - waits on the other ranks -----------------===//

#include "BoundedCollectives.h"

#include "fuser/Runtime/Runtime.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

using namespace fuser;

namespace {
/// FUSER_TIMEOUT_S as the runtime reads it (fuser_init has checked that it
/// is a positive number), 60 s when unset.
double timeoutSeconds() {
  const char *timeout = std::getenv("FUSER_TIMEOUT_S");
  return timeout ? std::strtod(timeout, nullptr) : 60.0;
}

/// Waits for `request`; past the timeout, ends every rank naming `step`.
void waitBounded(MPI_Request &request, const char *step) {
  double seconds = timeoutSeconds();
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

void fuser::exitOnAnyRankError(const std::string &error) {
  int worldSize = static_cast<int>(fuser_world_size());
  int mine = error.empty() ? worldSize : static_cast<int>(fuser_rank());
  int first = 0;
  MPI_Request request;
  MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &request);
  waitBounded(request, "agreeing that every rank may go on");
  if (first == worldSize)
    return;
  if (first == mine) {
    std::string where = first ? "rank " + std::to_string(first) + ": " : "";
    std::fprintf(stderr, "%s: %s%s\n", program_invocation_short_name,
                 where.c_str(), error.c_str());
  }
  fuser_finalize();
  std::exit(1);
}

void fuser::boundedBarrier(const char *step) {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  waitBounded(request, step);
}

void fuser::boundedBroadcast(void *data, int bytes, int root,
                             const char *step) {
  MPI_Request request;
  MPI_Ibcast(data, bytes, MPI_BYTE, root, MPI_COMM_WORLD, &request);
  waitBounded(request, step);
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
