//===- TestBuffers.h - owned host buffers for runtime tests ---*- C++ -*-===//
#ifndef FUSER_RUNTIME_TEST_TESTBUFFERS_H
#define FUSER_RUNTIME_TEST_TESTBUFFERS_H

#include "fuser/Runtime/Runtime.h"

#include <cstring>
#include <vector>

/// A row-major f32/f64 host tensor and its FuserBuffer view; `strides`
/// may describe another layout of the same storage.
template <typename T> struct Tensor {
  std::vector<T> data;
  std::vector<int64_t> sizes, strides;
  FuserBuffer buffer;

  Tensor(std::vector<int64_t> shape, std::vector<T> values, FuserDType dtype,
         std::vector<int64_t> layout = {})
      : data(std::move(values)), sizes(std::move(shape)),
        strides(std::move(layout)) {
    if (strides.empty()) {
      strides.assign(sizes.size(), 1);
      for (int64_t dim = static_cast<int64_t>(sizes.size()) - 2; dim >= 0; --dim)
        strides[dim] = strides[dim + 1] * sizes[dim + 1];
    }
    buffer = {data.data(), data.data(), 0, static_cast<int64_t>(sizes.size()),
              sizes.data(), strides.data(), dtype};
  }
  // The view points into the vectors: the tensor stays where it is made.
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;

  const FuserBuffer *view() const { return &buffer; }
};

inline Tensor<float> f32(std::vector<int64_t> shape, std::vector<float> values,
                         std::vector<int64_t> strides = {}) {
  return Tensor<float>(std::move(shape), std::move(values), FUSER_F32,
                       std::move(strides));
}

/// bf16 bits of a float that bf16 represents exactly.
inline uint16_t bf16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

inline float bf16Value(uint16_t bits) {
  uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof(value));
  return value;
}

#endif // FUSER_RUNTIME_TEST_TESTBUFFERS_H
