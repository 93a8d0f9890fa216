//===- SeededInputs.cpp - the runner's seeded input values ---------------===//

#include "SeededInputs.h"

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>
#include <vector>

namespace {
/// Elements per block: large enough that a block's generator start-up is
/// negligible, small enough to spread a few megabytes over every core.
constexpr int64_t kBlockElements = 1 << 16;

/// splitmix64's finalizer: distinct, well-mixed seeds for neighbouring
/// blocks.
uint64_t mix(uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}
} // namespace

void fuser::fillUniform(HostTensor &values, uint64_t seed) {
  int64_t count = values.size();
  int64_t blocks = (count + kBlockElements - 1) / kBlockElements;
  std::atomic<int64_t> next{0};
  auto draw = [&] {
    for (int64_t block; (block = next++) < blocks;) {
      std::mt19937_64 generator(mix(seed ^ mix(static_cast<uint64_t>(block))));
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      int64_t last = std::min(count, (block + 1) * kBlockElements);
      for (int64_t i = block * kBlockElements; i < last; ++i)
        values.set(i, uniform(generator));
    }
  };
  int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(),
                                        1, blocks);
  std::vector<std::thread> workers;
  for (int64_t worker = 1; worker < threads; ++worker)
    workers.emplace_back(draw);
  draw();
  for (std::thread &worker : workers)
    worker.join();
}
