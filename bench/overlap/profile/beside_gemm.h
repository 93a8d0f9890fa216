// What the programs of this folder share: a cuBLAS bf16 GEMM, its operands,
// the streams they issue on, and the timing of work issued on another
// stream beside it, released together with it.
#ifndef BENCH_OVERLAP_PROFILE_BESIDE_GEMM_H
#define BENCH_OVERLAP_PROFILE_BESIDE_GEMM_H

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                            \
  do {                                                                         \
    if (int status = int(call)) {                                              \
      std::printf("%s failed with %d (line %d)\n", #call, status, __LINE__);   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// Row-major bf16 C[m, n] = A[m, k] B[k, n].
inline void gemm(cudaStream_t stream, int m, int n, int k, const void *a,
                 const void *b, void *c) {
  static cublasHandle_t handle = [] {
    cublasHandle_t created;
    CHECK(cublasCreate(&created));
    return created;
  }();
  float one = 1, zero = 0;
  CHECK(cublasSetStream(handle, stream));
  CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b,
                     CUDA_R_16BF, n, a, CUDA_R_16BF, k, &zero, c, CUDA_R_16BF,
                     n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/// Zeroed operands of a row-major bf16 C[m, n] = A[m, k] B[k, n], freed
/// with it.
struct GemmOperands {
  int m, n, k;
  void *a = nullptr, *b = nullptr, *c = nullptr;

  GemmOperands(int m, int n, int k) : m(m), n(n), k(k) {
    CHECK(cudaMalloc(&a, aBytes()));
    CHECK(cudaMalloc(&b, size_t(k) * n * 2));
    CHECK(cudaMalloc(&c, size_t(m) * n * 2));
    CHECK(cudaMemset(a, 0, aBytes()));
    CHECK(cudaMemset(b, 0, size_t(k) * n * 2));
  }
  ~GemmOperands() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
  GemmOperands(const GemmOperands &) = delete;
  GemmOperands &operator=(const GemmOperands &) = delete;

  size_t aBytes() const { return size_t(m) * k * 2; }
  void run(cudaStream_t stream) const { gemm(stream, m, n, k, a, b, c); }
};

/// The streams the programs here issue on: the GEMM's, the one beside it,
/// and one beside it at the device's highest priority.
struct BesideStreams {
  cudaStream_t gemm, beside, urgent;

  BesideStreams() {
    CHECK(cudaStreamCreateWithFlags(&gemm, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&beside, cudaStreamNonBlocking));
    int lowest, highest;
    CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    CHECK(
        cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, highest));
  }
};

/// When the work beside the GEMM and the GEMM ended, in ms after their
/// common start: medians over the timed iterations.
struct EndTimes {
  float beside, gemm;
};

/// Calls `issue(start)` 23 times (the first 3 are warm-up), each with the
/// device idle and `gemmStream` and `besideStream` released together by
/// the event `start`, recorded on `gemmStream`; times the end of the work
/// each stream then holds.
template <typename Issue>
EndTimes timeBesideGemm(cudaStream_t gemmStream, cudaStream_t besideStream,
                        Issue issue) {
  cudaEvent_t start, besideEnd, gemmEnd;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&besideEnd));
  CHECK(cudaEventCreate(&gemmEnd));
  std::vector<float> besideEnds, gemmEnds;
  for (int iteration = 0; iteration < 23; ++iteration) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, gemmStream));
    CHECK(cudaStreamWaitEvent(besideStream, start));
    issue(start);
    CHECK(cudaEventRecord(besideEnd, besideStream));
    CHECK(cudaEventRecord(gemmEnd, gemmStream));
    CHECK(cudaDeviceSynchronize());
    if (iteration < 3)
      continue;
    float besideMs, gemmMs;
    CHECK(cudaEventElapsedTime(&besideMs, start, besideEnd));
    CHECK(cudaEventElapsedTime(&gemmMs, start, gemmEnd));
    besideEnds.push_back(besideMs);
    gemmEnds.push_back(gemmMs);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(besideEnd));
  CHECK(cudaEventDestroy(gemmEnd));
  auto median = [](std::vector<float> &values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  };
  return {median(besideEnds), median(gemmEnds)};
}

#endif // BENCH_OVERLAP_PROFILE_BESIDE_GEMM_H
