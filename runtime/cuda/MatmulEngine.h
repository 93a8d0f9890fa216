//===- MatmulEngine.h - cuBLASLt handle, workspaces and plans -*- C++ -*-===//
//
// What the CUDA backend's matmul and linear keep between calls: the
// cuBLASLt handle, one workspace per stream that ran a product (allocated
// once, so that steady-state executions allocate nothing; one per stream
// because products on different streams may run at the same time), and
// for each problem the descriptors and its algorithm, so that a repeated
// product queries nothing. The algorithm is cuBLASLt's first heuristic
// result unless another of its first is clearly faster, timed once on the
// problem's first call (MatmulTuning.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CUDA_MATMULENGINE_H
#define FUSER_RUNTIME_CUDA_MATMULENGINE_H

#include "CudaBackend.h"

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

namespace fuser::runtime::cuda {

/// Bytes of each stream's cuBLASLt workspace (what Hopper's kernels ask
/// for at most).
constexpr size_t kMatmulWorkspaceBytes = size_t(32) << 20;
/// How many of cuBLASLt's heuristic results a problem's first call times.
constexpr int kMatmulCandidates = 8;

/// One cuBLASLt problem, column-major as cuBLASLt sees it:
/// D [m, n] = activation(op(A) [m, k] * op(B) [k, n] (+ bias[i] on row i
/// of D) (+ D as it was, when accumulating)), bias and activation applied
/// by cuBLASLt's epilogue, all operands of
/// one type, `batchCount` of them `batchStride*` elements apart. Everything
/// the algorithm depends on, alignments included.
struct MatmulKey {
  int32_t dataType = 0; // cudaDataType_t
  int32_t transA = 0, transB = 0; // cublasOperation_t
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;
  int32_t batchCount = 1;
  int64_t batchStrideA = 0, batchStrideB = 0, batchStrideD = 0;
  bool bias = false;
  /// beta = 1: D += op(A) op(B).
  bool accumulate = false;
  /// A FuserActivation the epilogue applies.
  int32_t activation = FUSER_ACTIVATION_NONE;
  /// Of the start addresses, in bytes (powers of two up to 256).
  uint32_t alignA = 256, alignB = 256, alignD = 256, alignBias = 256;

  auto tie() const {
    return std::tie(dataType, transA, transB, m, n, k, lda, ldb, ldd,
                    batchCount, batchStrideA, batchStrideB, batchStrideD, bias,
                    accumulate, activation, alignA, alignB, alignD, alignBias);
  }
  bool operator<(const MatmulKey &other) const { return tie() < other.tie(); }
};

/// alpha = 1 and beta = 1 when accumulating (else 0), in the scale type
/// of a key's products.
class MatmulScalars {
public:
  explicit MatmulScalars(const MatmulKey &key);
  const void *alpha() const;
  const void *beta() const;

private:
  bool inDoubles;
  float floats[2];
  double doubles[2];
};

/// What FUSER_MATMUL_TUNING says when a problem is planned: unset or "on"
/// times the candidates, "off" takes cuBLASLt's first choice (the same
/// algorithm on every rank and in every run, so the same bits).
enum class MatmulTuning { On, Off, Invalid };
MatmulTuning getMatmulTuning();

class MatmulEngine {
public:
  explicit MatmulEngine(CudaBackend &backend);
  ~MatmulEngine();
  MatmulEngine(const MatmulEngine &) = delete;
  MatmulEngine &operator=(const MatmulEngine &) = delete;

  /// Issues D = op(A) op(B) (+ bias) on `stream`; `op` names the hostir op
  /// in messages.
  FuserStatus run(const MatmulKey &key, const void *a, const void *b, void *d,
                  const void *bias, cudaStream_t stream, const char *op);

  /// Problems planned so far (each planned once).
  int64_t getPlanCount() const { return static_cast<int64_t>(plans.size()); }

  /// The descriptors and algorithm of one problem.
  struct Plan {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo = {};
    ~Plan();
  };

  /// The operands of one call, for timing the candidates of its plan.
  struct Operands {
    const void *a, *b;
    /// The call's output, which the candidates may write in its place
    /// when the call does not accumulate into it.
    void *d;
    cudaStream_t stream;
    void *workspace;
  };

private:
  FuserStatus getPlan(const MatmulKey &key, const void *bias,
                      const Operands &operands, const char *op, Plan *&plan);
  FuserStatus getWorkspace(cudaStream_t stream, const char *op,
                           void *&workspace);
  /// The index of the candidate `plan` runs: cuBLASLt's first (0) unless
  /// another is clearly faster on these operands, and 0 without timing
  /// when there is one, tuning is off, a graph is captured, or memory for
  /// the scratch output of an accumulating call is short; FUSER_FAILED
  /// when FUSER_MATMUL_TUNING is neither on nor off, or a timing fails.
  FuserStatus chooseCandidate(const MatmulKey &key, const Plan &plan,
                              const cublasLtMatmulHeuristicResult_t *candidates,
                              int count, const Operands &operands,
                              const char *op, int &chosen);

  CudaBackend &backend;
  cublasLtHandle_t handle = nullptr;
  std::map<MatmulKey, std::unique_ptr<Plan>> plans;
  std::map<cudaStream_t, void *> workspaces;
};

} // namespace fuser::runtime::cuda

#endif // FUSER_RUNTIME_CUDA_MATMULENGINE_H
