//===- LibraryTestSupport.h - strided tensors and references --*- C++ -*-===//
//
// Host tensors of any element type viewed through any strides, filled with
// values whose products and sums f32 holds exactly (multiples of 1/4 in
// [-1, 1]), so that any correct f32-accumulating product gives the exact
// sum rounded once to the output type, and double-precision references of
// matmul and linear.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_TEST_LIBRARYTESTSUPPORT_H
#define FUSER_RUNTIME_TEST_LIBRARYTESTSUPPORT_H

#include "fuser/Runtime/Runtime.h"

#include <cstring>
#include <random>
#include <vector>

struct HostTensor {
  std::vector<int64_t> sizes, strides;
  int64_t storage;
  int64_t elementSize;
  std::vector<char> bytes;
  FuserBuffer buffer;

  /// Row-major unless `layout` gives strides; `storageElements` (default:
  /// the element count) is the size of the storage the view lies in.
  HostTensor(std::vector<int64_t> shape, FuserDType dtype,
             std::vector<int64_t> layout = {}, int64_t storageElements = 0)
      : sizes(std::move(shape)), strides(std::move(layout)),
        elementSize(fuser_element_size(dtype)) {
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    if (strides.empty()) {
      strides.assign(sizes.size(), 1);
      for (int64_t dim = static_cast<int64_t>(sizes.size()) - 2; dim >= 0;
           --dim)
        strides[dim] = strides[dim + 1] * sizes[dim + 1];
    }
    storage = storageElements ? storageElements : count;
    bytes.assign(storage * elementSize, 0);
    buffer = {bytes.data(), bytes.data(), 0, static_cast<int64_t>(sizes.size()),
              sizes.data(), strides.data(), dtype};
  }
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;

  const FuserBuffer *view() const { return &buffer; }
  FuserDType dtype() const { return buffer.dtype; }

  int64_t position(const std::vector<int64_t> &index) const {
    int64_t offset = 0;
    for (size_t dim = 0; dim < index.size(); ++dim)
      offset += index[dim] * strides[dim];
    return offset;
  }
  double get(const std::vector<int64_t> &index) const {
    return fuser_load_element(&bytes[position(index) * elementSize],
                              buffer.dtype);
  }
  void set(const std::vector<int64_t> &index, double value) {
    fuser_store_element(&bytes[position(index) * elementSize], buffer.dtype,
                        value);
  }
  /// Every storage element (the gaps of the view too) from {-1, -3/4, ...,
  /// 1}.
  void fillQuarters(unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_int_distribution<int> quarter(-4, 4);
    for (int64_t i = 0; i < storage; ++i)
      fuser_store_element(&bytes[i * elementSize], buffer.dtype,
                          quarter(generator) / 4.0);
  }
  /// The storage as elements of T (uint16_t for 16-bit floats).
  template <typename T> std::vector<T> elements() const {
    std::vector<T> values(storage);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
  template <typename T> void assign(const std::vector<T> &values) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
};

/// `value` rounded to `dtype` as a store rounds it.
inline double roundTo(FuserDType dtype, double value) {
  char element[8];
  fuser_store_element(element, dtype, value);
  return fuser_load_element(element, dtype);
}

/// Row-major indices of every element of a shape.
inline std::vector<std::vector<int64_t>>
allIndices(const std::vector<int64_t> &shape) {
  std::vector<std::vector<int64_t>> indices{{}};
  for (int64_t size : shape) {
    std::vector<std::vector<int64_t>> next;
    for (const auto &prefix : indices)
      for (int64_t i = 0; i < size; ++i) {
        next.push_back(prefix);
        next.back().push_back(i);
      }
    indices = std::move(next);
  }
  return indices;
}

/// out[b..., i, j] in double, for any rank >= 2.
inline double referenceMatmul(const HostTensor &lhs, const HostTensor &rhs,
                              const std::vector<int64_t> &outIndex) {
  size_t rank = outIndex.size();
  std::vector<int64_t> a = outIndex, b = outIndex;
  double sum = 0;
  for (int64_t p = 0; p < lhs.sizes[rank - 1]; ++p) {
    a[rank - 1] = p;
    b[rank - 2] = p;
    sum += lhs.get(a) * rhs.get(b);
  }
  return sum;
}

/// out[..., j] of a linear with a weight [n, k] (or out[...] with [k]).
inline double referenceLinear(const HostTensor &input, const HostTensor &weight,
                              const HostTensor *bias,
                              const std::vector<int64_t> &outIndex) {
  bool vector = weight.sizes.size() == 1;
  std::vector<int64_t> x = outIndex;
  int64_t j = 0;
  if (vector)
    x.push_back(0);
  else
    j = outIndex.back();
  double sum = 0;
  for (int64_t p = 0; p < input.sizes.back(); ++p) {
    x.back() = p;
    sum += input.get(x) * (vector ? weight.get({p}) : weight.get({j, p}));
  }
  if (bias)
    sum += vector ? bias->get({}) : bias->get({j});
  return sum;
}

#endif // FUSER_RUNTIME_TEST_LIBRARYTESTSUPPORT_H
