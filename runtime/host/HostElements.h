//===- HostElements.h - element conversions of the host library -*- C++ -*-===//
//
// What the host backend's library calls share to read operands of any
// element type and stride into float (double for f64) panels and to store
// results back, rounding once.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_HOST_HOSTELEMENTS_H
#define FUSER_RUNTIME_HOST_HOSTELEMENTS_H

#include "../Activation.h"
#include "../BFloat16.h"
#include "../Internal.h"

#include <cstdint>
#include <cstring>

namespace fuser::runtime::host {

template <typename T> inline T loadAs(const char *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

/// Converts `count` elements of `dtype` at `source` (every `sourceStride`
/// elements) to T at `target` (every `targetStride`).
template <typename T>
void convert(T *target, int64_t targetStride, const char *source,
             int64_t sourceStride, int64_t count, FuserDType dtype) {
  int64_t step = sourceStride * static_cast<int64_t>(getElementSize(dtype));
  switch (dtype) {
  case FUSER_F32:
    for (int64_t i = 0; i < count; ++i)
      target[i * targetStride] = static_cast<T>(loadAs<float>(source + i * step));
    return;
  case FUSER_BF16:
    for (int64_t i = 0; i < count; ++i)
      target[i * targetStride] =
          static_cast<T>(bfloatToFloat(loadAs<uint16_t>(source + i * step)));
    return;
  case FUSER_F64:
    for (int64_t i = 0; i < count; ++i)
      target[i * targetStride] =
          static_cast<T>(loadAs<double>(source + i * step));
    return;
  default:
    for (int64_t i = 0; i < count; ++i)
      target[i * targetStride] =
          static_cast<T>(loadElement(source + i * step, dtype));
    return;
  }
}

/// Stores `count` values (plus `bias` where not null, then `activation`)
/// as `dtype` at `target`, every `targetStride` elements.
template <typename T>
void storeValues(char *target, int64_t targetStride, const T *values,
                 const T *bias, FuserActivation activation, int64_t count,
                 FuserDType dtype) {
  int64_t step = targetStride * static_cast<int64_t>(getElementSize(dtype));
  for (int64_t i = 0; i < count; ++i) {
    T value =
        applyActivation(bias ? values[i] + bias[i] : values[i], activation);
    char *address = target + i * step;
    switch (dtype) {
    case FUSER_F32: {
      float stored = static_cast<float>(value);
      std::memcpy(address, &stored, sizeof(stored));
      break;
    }
    case FUSER_BF16: {
      uint16_t stored = floatToBfloat(static_cast<float>(value));
      std::memcpy(address, &stored, sizeof(stored));
      break;
    }
    case FUSER_F64: {
      double stored = static_cast<double>(value);
      std::memcpy(address, &stored, sizeof(stored));
      break;
    }
    default:
      storeElement(address, dtype, static_cast<double>(value));
      break;
    }
  }
}

} // namespace fuser::runtime::host

#endif // FUSER_RUNTIME_HOST_HOSTELEMENTS_H
