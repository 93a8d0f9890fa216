//===- thread_start.cpp - what starting and joining a thread costs -------===//
//
// NCCL launches each call of a nonblocking communicator from a thread it
// starts for the call (ncclGroupEndInternal in NCCL 2.28's group.cc) and
// joins when the caller polls the call's end. This prints the host time of
// starting and joining a thread that does nothing, the floor of that cost,
// in three rounds of 1000:
//
//   g++ -O2 -pthread bench/host-overhead/thread_start.cpp -o thread_start
//   ./thread_start
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cstdio>
#include <thread>

int main() {
  constexpr int kThreads = 1000;
  for (int round = 0; round < 3; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kThreads; ++i)
      std::thread([] {}).join();
    std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    std::printf("thread start and join: %.1f us\n", elapsed.count() / kThreads);
  }
  return 0;
}
