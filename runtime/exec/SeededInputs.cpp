//===- SeededInputs.cpp - the runner's seeded input values ---------------===//

#include "SeededInputs.h"

#include "../host/HostWorkers.h"

#include <random>

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
  runtime::host::forEachBlock(
      values.size(), kBlockElements, [&](int64_t begin, int64_t end) {
        uint64_t block = static_cast<uint64_t>(begin / kBlockElements);
        std::mt19937_64 generator(mix(seed ^ mix(block)));
        std::uniform_real_distribution<double> uniform(-1.0, 1.0);
        for (int64_t i = begin; i < end; ++i)
          values.set(i, uniform(generator));
      });
}
