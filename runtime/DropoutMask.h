//===- DropoutMask.h - the host's attention dropout mask --------*- C++ -*-===//
//
// Which attention probabilities the host backend's sdpa drops: the ones
// whose draw of the compiler's `fuser.uniform low = 0.0, high = 1.0,
// seed = S` over the global [batch, heads, query, key] probabilities is
// below p. A draw mixes the seed with each global coordinate in order
// (lib/Conversion/FuserToLinalg/ScalarBuilder.cpp, `mix` and
// `unitInterval`), so a rank holding a piece of the batch or the heads,
// given where its piece starts, drops what the unsharded run drops. The
// tests check the host backend against this same function.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_DROPOUTMASK_H
#define FUSER_RUNTIME_DROPOUTMASK_H

#include <cstdint>

namespace fuser::runtime {

/// One step of the compiler's random state: the state mixed with one
/// coordinate (splitmix64's finalizer of their xor, plus its increment).
inline uint64_t mixRandomState(uint64_t state, uint64_t value) {
  uint64_t x = (state ^ value) + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// The dropout draws of one row of attention probabilities: the state
/// after the seed met the row's global batch, head and query coordinates.
class DropoutRow {
public:
  DropoutRow(int64_t seed, int64_t batch, int64_t head, int64_t query)
      : state(mixRandomState(
            mixRandomState(mixRandomState(static_cast<uint64_t>(seed),
                                          static_cast<uint64_t>(batch)),
                           static_cast<uint64_t>(head)),
            static_cast<uint64_t>(query))) {}

  /// The uniform draw in [0, 1) for key `key`: the top 53 bits of the
  /// state after it.
  double draw(int64_t key) const {
    uint64_t bits = mixRandomState(state, static_cast<uint64_t>(key));
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  }
  /// Whether probability `key` survives a dropout of `probability`.
  bool keeps(int64_t key, double probability) const {
    return draw(key) >= probability;
  }

private:
  uint64_t state;
};

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_DROPOUTMASK_H
