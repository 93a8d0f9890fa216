//===- Random.h - the fuzzer's seeded choices -------------------*- C++ -*-===//

#ifndef FUSER_TOOLS_FUZZ_RANDOM_H
#define FUSER_TOOLS_FUZZ_RANDOM_H

#include "llvm/ADT/ArrayRef.h"

#include <cassert>
#include <cstdint>
#include <optional>

namespace fuzz {

/// splitmix64: the same choices from the same seed on every platform.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  Random(uint64_t seed, uint64_t stream) : state(seed) {
    state = next() ^ stream;
  }

  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// A number in [0, bound).
  size_t below(size_t bound) {
    assert(bound && "no number below 0");
    return next() % bound;
  }
  bool chance(unsigned percent) { return below(100) < percent; }
  template <typename T> const T &pick(llvm::ArrayRef<T> choices) {
    return choices[below(choices.size())];
  }
  /// One of `choices`, none when there is none.
  template <typename T> std::optional<T> maybePick(llvm::ArrayRef<T> choices) {
    if (choices.empty())
      return std::nullopt;
    return pick(choices);
  }

private:
  uint64_t state;
};

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_RANDOM_H
