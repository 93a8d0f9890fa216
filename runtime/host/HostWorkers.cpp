//===- HostWorkers.cpp - the host library's worker threads ----------------===//

#include "HostWorkers.h"

#include <algorithm>
#include <cstdlib>

#ifdef __linux__
#include <sched.h>
#endif

using namespace fuser::runtime;

int64_t host::getHardwareThreads() {
  if (const char *value = std::getenv("FUSER_HOST_THREADS"))
    if (long threads = std::atol(value); threads > 0)
      return threads;
  int64_t threads = std::max<int64_t>(1, std::thread::hardware_concurrency());
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char *value = std::getenv(name)) {
      long ranks = std::atol(value);
      if (ranks > 0)
        return std::max<int64_t>(1, threads / ranks);
    }
  return threads;
}

void host::unbindWorker(int64_t threads) {
#ifdef __linux__
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
      CPU_COUNT(&allowed) >= threads)
    return;
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    CPU_SET(cpu, &all);
  // The kernel keeps the CPUs of the process's cpuset; a failure leaves
  // the worker where it was.
  sched_setaffinity(0, sizeof(all), &all);
#else
  (void)threads;
#endif
}
