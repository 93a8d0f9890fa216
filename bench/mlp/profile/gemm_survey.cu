// Times cuBLAS (cublasGemmEx, what PyTorch's mm calls) against each of
// cuBLASLt's heuristic algorithms for the MLP's GEMMs (TN, bf16, f32
// accumulation), plain and with the GELU epilogue.
// nvcc -arch=sm_90 -O2 -std=c++17 gemm_survey.cu -lcublasLt -lcublas
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CK(x) do { auto e = (x); if (e != 0) { printf("error %d at %s:%d\n", (int)e, __FILE__, __LINE__); exit(1);} } while (0)

__global__ void fill(__nv_bfloat16 *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    p[i] = __float2bfloat16(((h & 0xffff) / 32768.0f - 1.0f));
  }
}

template <class F> float timeIt(F f, int reps = 20) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  // m, n, k in cuBLAS's column-major terms: D [m, n] = A^T [m, k] B [k, n].
  struct Shape { const char *name; int m, n, k; } shapes[] = {
      {"linear1 x[8192,8192] w1[16384,8192]", 16384, 8192, 8192},
      {"linear2 a[8192,16384] w2[8192,16384]", 8192, 8192, 16384},
      {"linear2 half rows", 8192, 4096, 16384},
  };
  size_t maxElems = (size_t)16384 * 16384;
  __nv_bfloat16 *A, *B, *D; void *ws; size_t wsBytes = 32 << 20;
  CK(cudaMalloc(&A, maxElems * 2)); CK(cudaMalloc(&B, maxElems * 2));
  CK(cudaMalloc(&D, maxElems * 2)); CK(cudaMalloc(&ws, wsBytes));
  fill<<<4096, 256>>>(A, maxElems, 1); fill<<<4096, 256>>>(B, maxElems, 2);
  cublasHandle_t h; CK(cublasCreate(&h)); CK(cublasSetWorkspace(h, ws, wsBytes));
  cublasLtHandle_t lt; CK(cublasLtCreate(&lt));
  float alpha = 1, beta = 0;
  for (auto s : shapes) {
    double flop = 2.0 * s.m * s.n * s.k;
    float t = timeIt([&] {
      CK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s.m, s.n, s.k, &alpha, A, CUDA_R_16BF, s.k,
                      B, CUDA_R_16BF, s.k, &beta, D, CUDA_R_16BF, s.m, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT));
    });
    printf("%s: cublasGemmEx %.3f ms %.0f TFLOP/s\n", s.name, t, flop / t / 1e9);
    for (int epilogue : {(int)CUBLASLT_EPILOGUE_DEFAULT, (int)CUBLASLT_EPILOGUE_GELU}) {
      cublasLtMatmulDesc_t desc; CK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
      cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
      CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
      CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
      cublasLtMatrixLayout_t la, lb, ld;
      CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, s.k, s.m, s.k));
      CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, s.k, s.n, s.k));
      CK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, s.m, s.n, s.m));
      cublasLtMatmulPreference_t pref; CK(cublasLtMatmulPreferenceCreate(&pref));
      uint64_t wsb = wsBytes;
      CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof(wsb)));
      cublasLtMatmulHeuristicResult_t results[16]; int count = 0;
      CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 16, results, &count));
      for (int i = 0; i < count; ++i) {
        float ti = timeIt([&] {
          CK(cublasLtMatmul(lt, desc, &alpha, A, la, B, lb, &beta, D, ld, D, ld, &results[i].algo,
                            ws, wsBytes, 0));
        });
        int id = 0, tile = 0, stages = 0, splitk = 0, swizzle = 0, cluster = 0; size_t w;
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &w);
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof(tile), &w);
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof(stages), &w);
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), &w);
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof(swizzle), &w);
        cublasLtMatmulAlgoConfigGetAttribute(&results[i].algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof(cluster), &w);
        printf("  lt %s #%d: %.3f ms %.0f TFLOP/s (algo %d tile %d stages %d splitk %d swizzle %d cluster %d ws %zu)\n",
               epilogue == CUBLASLT_EPILOGUE_GELU ? "gelu" : "plain", i, ti, flop / ti / 1e9, id, tile,
               stages, splitk, swizzle, cluster, results[i].workspaceSize);
      }
      cublasLtMatmulPreferenceDestroy(pref); cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(ld); cublasLtMatmulDescDestroy(desc);
    }
  }
  return 0;
}
