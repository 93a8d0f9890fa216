//===- Internal.h - shared pieces of the runtime's implementation -*- C++ -*-===//
//
// Not installed: the C ABI is include/fuser/Runtime/Runtime.h. These are the
// helpers its implementation files share (errors, element types, buffers).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_INTERNAL_H
#define FUSER_RUNTIME_INTERNAL_H

#include "fuser/Runtime/Runtime.h"

#include <cstddef>
#include <memory>
#include <string>

namespace fuser::runtime {

class Backend;

/// Free the communicators (fuser_finalize).
void releaseTeams();
/// The CUDA backend, or null (with an error) when the runtime was built
/// without it or it cannot start (cuda/CudaBackend.cpp, or NoCuda.cpp).
std::unique_ptr<Backend> createCudaBackend();

/// Records `message` as the last error; returns FUSER_FAILED.
FuserStatus fail(std::string message);
/// The bound on every wait, in seconds.
double getTimeoutSeconds();
/// The bound for messages: "2 s (FUSER_TIMEOUT_S)".
std::string describeTimeout();

size_t getElementSize(FuserDType dtype);
/// Whether elements of `dtype` are floating-point (f32, f16, bf16, f64).
inline bool isFloatingPoint(FuserDType dtype) {
  return dtype == FUSER_F32 || dtype == FUSER_F16 || dtype == FUSER_BF16 ||
         dtype == FUSER_F64;
}

/// Number of elements of a buffer.
int64_t getNumElements(const FuserBuffer &buffer);
/// Address of the element at row-major linear index `index`.
char *getElementAddress(const FuserBuffer &buffer, int64_t index);
/// Whether the buffer's elements fill one contiguous range without gaps,
/// in any dim order (unit dims may have any stride). Communications move
/// such a range as it lies in memory.
bool isDense(const FuserBuffer &buffer);
/// Whether the buffer's elements lie row-major without gaps (unit dims
/// aside).
bool isRowMajor(const FuserBuffer &buffer);

/// Two partial values combined as `kind` says (an average sums; the caller
/// divides).
template <typename T> T combine(FuserReduction kind, T a, T b) {
  switch (kind) {
  case FUSER_SUM:
  case FUSER_AVG:
    return a + b;
  case FUSER_PROD:
    return a * b;
  case FUSER_MAX:
    return a > b ? a : b;
  case FUSER_MIN:
    return a < b ? a : b;
  }
  return a;
}
/// Start of a dense buffer's elements.
inline char *getData(const FuserBuffer &buffer) {
  return static_cast<char *>(buffer.aligned) +
         buffer.offset * static_cast<int64_t>(getElementSize(buffer.dtype));
}
/// "f32[4, 8]" for messages.
std::string describe(const FuserBuffer &buffer);

/// Element values as doubles, whatever their type (f16 and bf16 included).
double loadElement(const char *address, FuserDType dtype);
void storeElement(char *address, FuserDType dtype, double value);

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_INTERNAL_H
