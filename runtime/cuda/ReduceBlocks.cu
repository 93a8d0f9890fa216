//===- ReduceBlocks.cu - reduce_blocks and the k = 0 product on the GPU ---===//
//
// reduce_blocks combines the blocks a ring reduce_scatter received: a
// grid-stride loop over the elements of one block, each thread reading its
// element (16 bytes of consecutive elements where the buffers allow) from
// every block in turn. 16-bit floats and f32 are combined in f32, f64 in
// f64, integers in 64 bits, as the host backend does.
//
//===----------------------------------------------------------------------===//

#include "../Activation.h"
#include "Kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

using namespace fuser::runtime::cuda;

namespace {

constexpr int kThreads = 256;
/// Enough blocks of kThreads to fill a large GPU several times over; the
/// loops stride over the rest.
constexpr int64_t kMaxBlocks = 2048;

/// How each element type is read, combined and written back.
template <typename T> struct Element;
template <> struct Element<float> {
  using Acc = float;
  __device__ static Acc load(float value) { return value; }
  __device__ static float store(Acc value) { return value; }
};
template <> struct Element<double> {
  using Acc = double;
  __device__ static Acc load(double value) { return value; }
  __device__ static double store(Acc value) { return value; }
};
template <> struct Element<__half> {
  using Acc = float;
  __device__ static Acc load(__half value) { return __half2float(value); }
  __device__ static __half store(Acc value) { return __float2half_rn(value); }
};
template <> struct Element<__nv_bfloat16> {
  using Acc = float;
  __device__ static Acc load(__nv_bfloat16 value) {
    return __bfloat162float(value);
  }
  __device__ static __nv_bfloat16 store(Acc value) {
    return __float2bfloat16_rn(value);
  }
};
template <typename Int> struct IntegerElement {
  using Acc = long long;
  __device__ static Acc load(Int value) { return static_cast<Acc>(value); }
  __device__ static Int store(Acc value) { return static_cast<Int>(value); }
};
template <> struct Element<int64_t> : IntegerElement<int64_t> {};
template <> struct Element<int32_t> : IntegerElement<int32_t> {};
template <> struct Element<int8_t> : IntegerElement<int8_t> {};
/// i1: nonzero is true; sums and maxima are "or", products and minima
/// "and" once stored.
struct Bool {
  uint8_t bits;
};
template <> struct Element<Bool> {
  using Acc = long long;
  __device__ static Acc load(Bool value) { return value.bits != 0; }
  __device__ static Bool store(Acc value) {
    return Bool{static_cast<uint8_t>(value != 0)};
  }
};

template <typename Acc>
__device__ inline Acc combine(FuserReduction kind, Acc next, Acc acc) {
  switch (kind) {
  case FUSER_PROD:
    return next * acc;
  case FUSER_MAX:
    return next > acc ? next : acc;
  case FUSER_MIN:
    return next < acc ? next : acc;
  default: // sum, avg
    return next + acc;
  }
}

/// The average of integers is truncated, as the host's division is.
template <typename T, typename Acc>
__device__ inline T finish(FuserReduction kind, Acc acc, int64_t blocks) {
  if (kind != FUSER_AVG)
    return Element<T>::store(acc);
  if constexpr (std::is_same_v<Acc, long long>)
    return Element<T>::store(static_cast<Acc>(static_cast<double>(acc) /
                                              static_cast<double>(blocks)));
  else
    return Element<T>::store(acc / static_cast<Acc>(blocks));
}

template <typename T, int V> struct alignas(sizeof(T) * V) Pack {
  T values[V];
};

/// Dense row-major buffers; each thread takes V consecutive elements (one
/// 16-byte access per block where V * sizeof(T) == 16).
template <typename T, int V>
__global__ void reduceBlocksKernel(const T *__restrict__ input,
                                   T *__restrict__ out, int64_t blocks,
                                   int64_t elements, FuserReduction kind) {
  using Acc = typename Element<T>::Acc;
  using Vector = Pack<T, V>;
  int64_t vectors = elements / V;
  const Vector *in = reinterpret_cast<const Vector *>(input);
  Vector *target = reinterpret_cast<Vector *>(out);
  for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       v < vectors; v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc acc[V];
    Vector first = in[v];
#pragma unroll
    for (int i = 0; i < V; ++i)
      acc[i] = Element<T>::load(first.values[i]);
    for (int64_t block = 1; block < blocks; ++block) {
      Vector next = in[block * vectors + v];
#pragma unroll
      for (int i = 0; i < V; ++i)
        acc[i] = combine(kind, Element<T>::load(next.values[i]), acc[i]);
    }
    Vector result;
#pragma unroll
    for (int i = 0; i < V; ++i)
      result.values[i] = finish<T>(kind, acc[i], blocks);
    target[v] = result;
  }
}

__device__ inline int64_t offsetOf(const KernelView &view, int64_t index) {
  int64_t offset = 0;
  for (int dim = view.rank - 1; dim >= 0; --dim) {
    offset += (index % view.sizes[dim]) * view.strides[dim];
    index /= view.sizes[dim];
  }
  return offset;
}

template <typename T>
__global__ void reduceBlocksStridedKernel(const T *__restrict__ input,
                                          KernelView inputView,
                                          T *__restrict__ out,
                                          KernelView outView, int64_t blocks,
                                          int64_t elements,
                                          FuserReduction kind) {
  using Acc = typename Element<T>::Acc;
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       e < elements; e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    Acc acc = Element<T>::load(input[offsetOf(inputView, e)]);
    for (int64_t block = 1; block < blocks; ++block)
      acc = combine(
          kind,
          Element<T>::load(input[offsetOf(inputView, block * elements + e)]),
          acc);
    out[offsetOf(outView, e)] = finish<T>(kind, acc, blocks);
  }
}

template <typename T>
__global__ void fillProductKernel(T *__restrict__ out, KernelView view,
                                  const T *__restrict__ bias,
                                  int64_t biasStride, bool accumulate,
                                  FuserActivation activation,
                                  int64_t elements) {
  using Acc = typename Element<T>::Acc;
  int64_t n = view.sizes[view.rank - 1];
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       e < elements; e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    T &target = out[offsetOf(view, e)];
    Acc value(0);
    if (accumulate)
      value += Element<T>::load(target);
    if (bias)
      value += Element<T>::load(bias[(e % n) * biasStride]);
    if constexpr (std::is_floating_point_v<Acc>)
      value = fuser::runtime::applyActivation(value, activation);
    target = Element<T>::store(value);
  }
}

int getGridSize(int64_t work) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min(kMaxBlocks, (work + kThreads - 1) /
                                                    kThreads)));
}

template <typename T>
cudaError_t reduceDense(const void *input, void *out, int64_t blocks,
                        int64_t elements, FuserReduction kind,
                        cudaStream_t stream) {
  constexpr int V = sizeof(T) <= 16 ? 16 / sizeof(T) : 1;
  auto aligned = [](const void *pointer) {
    return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
  };
  const T *from = static_cast<const T *>(input);
  T *to = static_cast<T *>(out);
  if (V > 1 && elements % V == 0 && aligned(input) && aligned(out))
    reduceBlocksKernel<T, V><<<getGridSize(elements / V), kThreads, 0,
                               stream>>>(from, to, blocks, elements, kind);
  else
    reduceBlocksKernel<T, 1><<<getGridSize(elements), kThreads, 0, stream>>>(
        from, to, blocks, elements, kind);
  return cudaGetLastError();
}

template <typename T>
cudaError_t reduceStrided(const void *input, const KernelView &inputView,
                          void *out, const KernelView &outView, int64_t blocks,
                          int64_t elements, FuserReduction kind,
                          cudaStream_t stream) {
  reduceBlocksStridedKernel<T><<<getGridSize(elements), kThreads, 0, stream>>>(
      static_cast<const T *>(input), inputView, static_cast<T *>(out), outView,
      blocks, elements, kind);
  return cudaGetLastError();
}

template <typename T>
cudaError_t fill(void *out, const KernelView &view, const void *bias,
                 int64_t biasStride, bool accumulate,
                 FuserActivation activation, cudaStream_t stream) {
  int64_t elements = 1;
  for (int dim = 0; dim < view.rank; ++dim)
    elements *= view.sizes[dim];
  if (elements == 0)
    return cudaSuccess;
  fillProductKernel<T><<<getGridSize(elements), kThreads, 0, stream>>>(
      static_cast<T *>(out), view, static_cast<const T *>(bias), biasStride,
      accumulate, activation, elements);
  return cudaGetLastError();
}

/// Calls function.template operator()<T>() with T the storage type of
/// `dtype`.
template <typename Function>
cudaError_t dispatch(FuserDType dtype, const Function &function) {
  switch (dtype) {
  case FUSER_F32:
    return function(float());
  case FUSER_F16:
    return function(__half());
  case FUSER_BF16:
    return function(__nv_bfloat16());
  case FUSER_F64:
    return function(double());
  case FUSER_I64:
    return function(int64_t());
  case FUSER_I32:
    return function(int32_t());
  case FUSER_I8:
    return function(int8_t());
  case FUSER_I1:
    return function(Bool());
  }
  return cudaErrorInvalidValue;
}

} // namespace

cudaError_t fuser::runtime::cuda::launchReduceBlocks(
    const void *input, void *out, int64_t blocks, int64_t elements,
    FuserDType dtype, FuserReduction kind, cudaStream_t stream) {
  return dispatch(dtype, [&](auto type) {
    return reduceDense<decltype(type)>(input, out, blocks, elements, kind,
                                       stream);
  });
}

cudaError_t fuser::runtime::cuda::launchReduceBlocksStrided(
    const void *input, const KernelView &inputView, void *out,
    const KernelView &outView, int64_t blocks, int64_t elements,
    FuserDType dtype, FuserReduction kind, cudaStream_t stream) {
  return dispatch(dtype, [&](auto type) {
    return reduceStrided<decltype(type)>(input, inputView, out, outView,
                                         blocks, elements, kind, stream);
  });
}

cudaError_t fuser::runtime::cuda::launchFillProduct(
    void *out, const KernelView &view, const void *bias, int64_t biasStride,
    bool accumulate, FuserActivation activation, FuserDType dtype,
    cudaStream_t stream) {
  return dispatch(dtype, [&](auto type) {
    return fill<decltype(type)>(out, view, bias, biasStride, accumulate,
                                activation, stream);
  });
}
