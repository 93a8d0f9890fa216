//===- HostWorkers.h - the host library's worker threads -------*- C++ -*-===//
//
// The host backend's library calls spread their work over std::thread
// workers: the node's hardware threads divided among its ranks, or
// FUSER_HOST_THREADS.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_HOST_HOSTWORKERS_H
#define FUSER_RUNTIME_HOST_HOSTWORKERS_H

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

namespace fuser::runtime::host {

/// The most workers of one call: FUSER_HOST_THREADS where set, else the
/// hardware threads of the machine shared among the ranks on it (as
/// OpenMPI's and MPICH's launchers announce them).
int64_t getHardwareThreads();

/// mpirun binds each rank to one core by default, where the workers would
/// only take turns: a worker runs wherever the system lets this process
/// run (the rank's own thread keeps its binding).
void unbindWorker(int64_t threads);

/// Runs body(worker) on `threads` workers (the caller is worker 0); fewer
/// when the system will not start more, which the bodies, taking their work
/// from shared counters, do not mind. A worker that runs out of memory ends
/// its part; the caller then throws std::bad_alloc once all have ended.
template <typename Body> void runWorkers(int64_t threads, const Body &body) {
  std::atomic<bool> outOfMemory{false};
  auto run = [&](int64_t worker) {
    if (worker > 0)
      unbindWorker(threads);
    try {
      body(worker);
    } catch (const std::bad_alloc &) {
      outOfMemory = true;
    }
  };
  std::vector<std::thread> workers;
  for (int64_t worker = 1; worker < threads; ++worker) {
    try {
      workers.emplace_back(run, worker);
    } catch (const std::system_error &) {
      break;
    }
  }
  run(0);
  for (std::thread &worker : workers)
    worker.join();
  if (outOfMemory)
    throw std::bad_alloc();
}

/// Calls body(begin, end) for each block of `blockSize` elements of
/// [0, count) (the last one shorter), the blocks shared among up to
/// getHardwareThreads() workers; throws std::bad_alloc as runWorkers does.
template <typename Body>
void forEachBlock(int64_t count, int64_t blockSize, const Body &body) {
  int64_t blocks = (count + blockSize - 1) / blockSize;
  if (blocks == 0)
    return;
  std::atomic<int64_t> next{0};
  runWorkers(std::clamp<int64_t>(getHardwareThreads(), 1, blocks),
             [&](int64_t) {
               for (int64_t block; (block = next++) < blocks;)
                 body(block * blockSize,
                      std::min(count, (block + 1) * blockSize));
             });
}

} // namespace fuser::runtime::host

#endif // FUSER_RUNTIME_HOST_HOSTWORKERS_H
