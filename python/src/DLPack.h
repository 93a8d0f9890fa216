//===- DLPack.h - the DLPack tensor exchange ABI ------------------*- C++
//-*-===//
//
// The C structures of the DLPack exchange format (dmlc/dlpack, the
// unversioned `dltensor` capsule every array library speaks: PyTorch,
// NumPy, CuPy, JAX), declared as its specification lays them out, since
// Debian packages no header for it. Only what the runtime module reads
// and writes is named.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_PYTHON_DLPACK_H
#define FUSER_PYTHON_DLPACK_H

#include <cstdint>

extern "C" {

enum DLDeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
};

struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  /// Sizes; strides in elements, or null for a compact row-major tensor.
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  /// Called once by whoever consumed the tensor, when done with it.
  void (*deleter)(DLManagedTensor *self);
};

} // extern "C"

/// The capsule names of the protocol: a producer's, and the one a consumer
/// renames it to when it takes the tensor over.
inline constexpr const char *kDLPackCapsuleName = "dltensor";
inline constexpr const char *kDLPackUsedCapsuleName = "used_dltensor";

#endif // FUSER_PYTHON_DLPACK_H
