//===- Activation.h - what a matrix product applies to its result -*- C++
//-*-===//
//
// The formulas of FuserActivation, shared by the host backend's products
// and the CUDA backend's kernels, so that both compute the same function
// (cuBLASLt's GELU epilogue is the same tanh approximation).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_ACTIVATION_H
#define FUSER_RUNTIME_ACTIVATION_H

#include "fuser/Runtime/Runtime.h"

#include <cmath>

#ifdef __CUDACC__
#define FUSER_HOST_DEVICE __host__ __device__
#else
#define FUSER_HOST_DEVICE
#endif

namespace fuser::runtime {

/// activation(x) in T (float or double).
template <typename T>
FUSER_HOST_DEVICE inline T applyActivation(T x, FuserActivation activation) {
  switch (activation) {
  case FUSER_ACTIVATION_GELU_TANH: {
    // sqrt(2 / pi)
    const T scale = T(0.7978845608028654);
    return T(0.5) * x *
           (T(1) + std::tanh(scale * (x + T(0.044715) * x * x * x)));
  }
  case FUSER_ACTIVATION_RELU:
    return x > T(0) ? x : T(0);
  case FUSER_ACTIVATION_NONE:
    break;
  }
  return x;
}

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_ACTIVATION_H
