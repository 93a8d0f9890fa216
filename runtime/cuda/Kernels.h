//===- Kernels.h - the CUDA backend's own kernels ------------*- C++ -*-===//
//
// Launchers of the kernels in ReduceBlocks.cu (compiled by nvcc), callable
// from the backend's C++ files. Each launches on `stream` and returns the
// launch's error.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CUDA_KERNELS_H
#define FUSER_RUNTIME_CUDA_KERNELS_H

#include "fuser/Runtime/Runtime.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace fuser::runtime::cuda {

/// A strided view as kernels take it: element i (row-major over `sizes`)
/// is `sum_d index_d * strides[d]` elements from the start.
constexpr int kMaxKernelRank = 12;
struct KernelView {
  int rank = 0;
  int64_t sizes[kMaxKernelRank] = {};
  int64_t strides[kMaxKernelRank] = {};
};

/// out[e] = input[0][e] op ... op input[blocks - 1][e] for e < elements,
/// both row-major and dense (16-bit floats and f32 reduced in f32, f64 in
/// f64, integers in 64 bits).
cudaError_t launchReduceBlocks(const void *input, void *out, int64_t blocks,
                               int64_t elements, FuserDType dtype,
                               FuserReduction kind, cudaStream_t stream);

/// The same over any layouts: element e of block b is element
/// b * elements + e of `inputView`, the result element e of `outView`.
cudaError_t launchReduceBlocksStrided(const void *input,
                                      const KernelView &inputView, void *out,
                                      const KernelView &outView,
                                      int64_t blocks, int64_t elements,
                                      FuserDType dtype, FuserReduction kind,
                                      cudaStream_t stream);

/// Every element of `view` (its last dim of size n) = bias[j * biasStride]
/// for its last index j, or 0 without a bias: a product over k = 0; with
/// `accumulate`, that added to the element; then `activation` applied
/// (floating-point types). With `accumulate`, no bias and an activation, it
/// applies the activation in place.
cudaError_t launchFillProduct(void *out, const KernelView &view,
                              const void *bias, int64_t biasStride,
                              bool accumulate, FuserActivation activation,
                              FuserDType dtype, cudaStream_t stream);

} // namespace fuser::runtime::cuda

#endif // FUSER_RUNTIME_CUDA_KERNELS_H
