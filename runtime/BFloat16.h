//===- BFloat16.h - bf16 to f32 and back ---------------------*- C++ -*-===//
//
// The one conversion of bf16 elements the runtime's host code makes: the
// element accessors of the C ABI and the host backend's library calls.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_BFLOAT16_H
#define FUSER_RUNTIME_BFLOAT16_H

#include <cstdint>
#include <cstring>

namespace fuser::runtime {

/// Exact: bf16 is f32's upper half.
inline float bfloatToFloat(uint16_t bits) {
  uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

/// Rounded to nearest even; NaN stays NaN.
inline uint16_t floatToBfloat(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_BFLOAT16_H
