// How fast the runtime's GEMMs are against what else cuBLAS offers, on one
// GPU: for the row-major bf16 products the overlap benchmark's programs run
// (whole and as pipeline chunks), the median time of
//   * cublasGemmEx with the default algorithm,
//   * cuBLASLt's first heuristic result with a 32 MiB workspace (what the
//     runtime's MatmulEngine runs),
//   * each of cuBLASLt's first 8 heuristic results (the fastest is printed
//     with its rank),
// and with `accumulate`, the same with beta = 1 (the ring GEMM+RS's local
// product). Prints one line per product.
// Usage: gemm_algorithms
#include "beside_gemm.h"

#include <cublasLt.h>

namespace {
constexpr size_t kWorkspaceBytes = size_t(32) << 20;
constexpr int kCandidates = 8;

struct Product {
  int m, k, n;
  bool accumulate;
};

/// Median ms of `run` over 20 timed calls after 3 warm-up calls.
template <typename Run> float medianMs(Run run) {
  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  std::vector<float> times;
  for (int iteration = 0; iteration < 23; ++iteration) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(end));
    CHECK(cudaEventSynchronize(end));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    if (iteration >= 3)
      times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(end));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Column-major as cuBLASLt sees the row-major product: D^T [n, m] =
/// B^T [n, k] A^T [k, m], no transposes (as the runtime plans fuser.matmul).
struct LtProblem {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d;

  LtProblem(const Product &product) {
    CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatrixLayoutCreate(&a, CUDA_R_16BF, product.n, product.k,
                                     product.n));
    CHECK(cublasLtMatrixLayoutCreate(&b, CUDA_R_16BF, product.k, product.m,
                                     product.k));
    CHECK(cublasLtMatrixLayoutCreate(&d, CUDA_R_16BF, product.n, product.m,
                                     product.n));
  }
  ~LtProblem() {
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(d);
    cublasLtMatmulDescDestroy(desc);
  }
};
} // namespace

int main() {
  // (m, k, n): AG+GEMM 32768x16384x8192 whole, per rank's block (ring
  // S = 1) and per chunk (ring S = 2); GEMM+RS 32768x16384x8192 on 2 GPUs
  // (k / 2) whole and per ring chunk, the local chunk accumulating; the
  // square and 4096-row shapes whole and in halves.
  const Product products[] = {
      {32768, 16384, 8192, false}, {16384, 16384, 8192, false},
      {8192, 16384, 8192, false},  {32768, 8192, 8192, false},
      {8192, 8192, 8192, false},   {8192, 8192, 8192, true},
      {4096, 8192, 8192, false},   {2048, 8192, 8192, false},
      {16384, 4096, 8192, false},  {16384, 8192, 1024, false},
      {8192, 8192, 1024, false},   {16384, 1024, 8192, false}};
  size_t largest = 0;
  for (const Product &product : products)
    largest = std::max({largest, size_t(product.m) * product.k,
                        size_t(product.k) * product.n,
                        size_t(product.m) * product.n});
  void *a, *b, *d, *workspace;
  CHECK(cudaMalloc(&a, largest * 2));
  CHECK(cudaMalloc(&b, largest * 2));
  CHECK(cudaMalloc(&d, largest * 2));
  CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  // bf16 values of magnitude in [1/128, 1/64), mantissas spread, signs
  // alternating.
  std::vector<unsigned short> pattern(largest);
  for (size_t i = 0; i < largest; ++i)
    pattern[i] = static_cast<unsigned short>(
        0x3c00 | (i * 2654435761u >> 20 & 0x7f) | (i & 1) << 15);
  CHECK(cudaMemcpy(a, pattern.data(), largest * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, pattern.data(), largest * 2, cudaMemcpyHostToDevice));

  cublasHandle_t blas;
  cublasLtHandle_t lt;
  CHECK(cublasCreate(&blas));
  CHECK(cublasLtCreate(&lt));
  std::printf("m k n accumulate | gemmex_ms | lt_first_ms | lt_best_ms "
              "(rank of 8) | TFLOP/s of lt_first\n");
  for (const Product &product : products) {
    float one = 1, beta = product.accumulate ? 1 : 0;
    float gemmEx = medianMs([&] {
      CHECK(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, product.n, product.m,
                         product.k, &one, b, CUDA_R_16BF, product.n, a,
                         CUDA_R_16BF, product.k, &beta, d, CUDA_R_16BF,
                         product.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    });
    LtProblem problem(product);
    cublasLtMatmulPreference_t preference;
    CHECK(cublasLtMatmulPreferenceCreate(&preference));
    uint64_t bytes = kWorkspaceBytes;
    CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
        sizeof(bytes)));
    cublasLtMatmulHeuristicResult_t results[kCandidates];
    int count = 0;
    CHECK(cublasLtMatmulAlgoGetHeuristic(lt, problem.desc, problem.a, problem.b,
                                         problem.d, problem.d, preference,
                                         kCandidates, results, &count));
    cublasLtMatmulPreferenceDestroy(preference);
    std::vector<float> times;
    for (int candidate = 0; candidate < count; ++candidate)
      times.push_back(medianMs([&] {
        CHECK(cublasLtMatmul(lt, problem.desc, &one, b, problem.a, a, problem.b,
                             &beta, d, problem.d, d, problem.d,
                             &results[candidate].algo, workspace,
                             kWorkspaceBytes, nullptr));
      }));
    int best =
        int(std::min_element(times.begin(), times.end()) - times.begin());
    double flop = 2.0 * product.m * product.n * product.k;
    std::printf("%d %d %d %d | %.3f | %.3f | %.3f (%d of %d) | %.0f\n",
                product.m, product.k, product.n, int(product.accumulate),
                gemmEx, times[0], times[best], best + 1, count,
                flop / times[0] / 1e9);
  }
  return 0;
}
