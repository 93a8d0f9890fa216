//===- CudaLibrary.cpp - matmul, linear and reduce_blocks on the GPU ------===//
//
// Matrix products go to cuBLASLt with f32 accumulation (f64 for f64).
// cuBLASLt is column-major, and a row-major out [m, n] is its transpose
// D = out^T [n, m]: D = B^T A^T, with each operand read as it lies (a
// matrix whose rows are contiguous is its transpose column-major, so
// CUBLAS_OP_N; one whose columns are contiguous is read with CUBLAS_OP_T).
// That puts the linear's per-column bias on the rows of D, where the
// BIAS epilogue adds it. An out whose columns are contiguous, or that is a
// single column, is D itself (D = A B); a bias is then written to out
// first and the product added to it (beta = 1). A product that
// accumulates into out is added to it (beta = 1) the same way. An
// activation is the epilogue's too (GELU, RELU, or with the bias
// GELU_BIAS, RELU_BIAS: cuBLASLt applies it to the sum, C included); for
// f64, and a product over k = 0, a kernel applies it afterwards. Batch dims
// that collapse to one strided dim become one strided-batched call; any
// others are looped over, one call each.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "Kernels.h"
#include "MatmulEngine.h"
#include "../Internal.h"
#include "../MatmulProblem.h"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <utility>
#include <vector>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

//--- The engine --------------------------------------------------------------//

MatmulEngine::Plan::~Plan() {
  if (a)
    cublasLtMatrixLayoutDestroy(a);
  if (b)
    cublasLtMatrixLayoutDestroy(b);
  if (d)
    cublasLtMatrixLayoutDestroy(d);
  if (desc)
    cublasLtMatmulDescDestroy(desc);
}

MatmulEngine::MatmulEngine(CudaBackend &backend) : backend(backend) {}

MatmulEngine::~MatmulEngine() {
  plans.clear();
  for (auto &[stream, workspace] : workspaces)
    cudaFree(workspace);
  workspaces.clear();
  if (handle)
    cublasLtDestroy(handle);
}

namespace {
template <typename T>
cublasStatus_t setDesc(cublasLtMatmulDesc_t desc,
                       cublasLtMatmulDescAttributes_t attribute, T value) {
  return cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(value));
}

template <typename T>
cublasStatus_t setLayout(cublasLtMatrixLayout_t layout,
                         cublasLtMatrixLayoutAttribute_t attribute, T value) {
  return cublasLtMatrixLayoutSetAttribute(layout, attribute, &value,
                                          sizeof(value));
}

template <typename T>
cublasStatus_t setPreference(cublasLtMatmulPreference_t preference,
                             cublasLtMatmulPreferenceAttributes_t attribute,
                             T value) {
  return cublasLtMatmulPreferenceSetAttribute(preference, attribute, &value,
                                              sizeof(value));
}

/// The epilogue that adds the key's bias and applies its activation.
cublasLtEpilogue_t getEpilogue(const MatmulKey &key) {
  switch (key.activation) {
  case FUSER_ACTIVATION_GELU_TANH:
    return key.bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  case FUSER_ACTIVATION_RELU:
    return key.bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  default:
    return key.bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

/// "bf16 [4096, 1024] = N [4096, 512] x T [512, 1024] (ld 4096, 1024,
/// 4096), batch 1, bias", for messages.
std::string describeKey(const MatmulKey &key) {
  auto name = [](int32_t type) {
    switch (type) {
    case CUDA_R_32F:
      return "f32";
    case CUDA_R_16F:
      return "f16";
    case CUDA_R_16BF:
      return "bf16";
    case CUDA_R_64F:
      return "f64";
    }
    return "?";
  };
  auto transpose = [](int32_t op) { return op == CUBLAS_OP_N ? "N" : "T"; };
  return std::string(name(key.dataType)) + " column-major [" +
         std::to_string(key.m) + ", " + std::to_string(key.n) +
         "] = " + transpose(key.transA) + "(A) [" + std::to_string(key.m) +
         ", " + std::to_string(key.k) + "] x " + transpose(key.transB) +
         "(B) [" + std::to_string(key.k) + ", " + std::to_string(key.n) +
         "] (ld " + std::to_string(key.lda) + ", " + std::to_string(key.ldb) +
         ", " + std::to_string(key.ldd) + "), batch " +
         std::to_string(key.batchCount) + (key.bias ? ", bias" : "") +
         (key.accumulate ? ", accumulating" : "") +
         (key.activation == FUSER_ACTIVATION_GELU_TANH ? ", gelu (tanh)"
          : key.activation == FUSER_ACTIVATION_RELU    ? ", relu"
                                                       : "") +
         ", alignments " + std::to_string(key.alignA) + "/" +
         std::to_string(key.alignB) + "/" + std::to_string(key.alignD) + " B";
}
} // namespace

FuserStatus MatmulEngine::getPlan(const MatmulKey &key, const void *bias,
                                  const Operands &operands, const char *op,
                                  Plan *&plan) {
  auto found = plans.find(key);
  if (found != plans.end()) {
    plan = found->second.get();
    return FUSER_OK;
  }
  if (!handle && checkCublas(cublasLtCreate(&handle), op, "cublasLtCreate"))
    return FUSER_FAILED;

  auto created = std::make_unique<Plan>();
  auto type = static_cast<cudaDataType_t>(key.dataType);
  bool doubles = type == CUDA_R_64F;
  if (checkCublas(cublasLtMatmulDescCreate(
                      &created->desc,
                      doubles ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
                      doubles ? CUDA_R_64F : CUDA_R_32F),
                  op, "cublasLtMatmulDescCreate") ||
      checkCublas(setDesc(created->desc, CUBLASLT_MATMUL_DESC_TRANSA,
                          static_cast<int32_t>(key.transA)),
                  op, "cublasLtMatmulDescSetAttribute") ||
      checkCublas(setDesc(created->desc, CUBLASLT_MATMUL_DESC_TRANSB,
                          static_cast<int32_t>(key.transB)),
                  op, "cublasLtMatmulDescSetAttribute"))
    return FUSER_FAILED;
  cublasLtEpilogue_t epilogue = getEpilogue(key);
  if (epilogue != CUBLASLT_EPILOGUE_DEFAULT &&
      checkCublas(setDesc(created->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                          static_cast<uint32_t>(epilogue)),
                  op, "cublasLtMatmulDescSetAttribute"))
    return FUSER_FAILED;
  // The heuristic reads the pointer's alignment.
  if (key.bias && checkCublas(setDesc(created->desc,
                                      CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias),
                              op, "cublasLtMatmulDescSetAttribute"))
    return FUSER_FAILED;

  bool aN = key.transA == CUBLAS_OP_N, bN = key.transB == CUBLAS_OP_N;
  struct {
    cublasLtMatrixLayout_t *layout;
    uint64_t rows, columns;
    int64_t ld, batchStride;
  } layouts[] = {
      {&created->a, static_cast<uint64_t>(aN ? key.m : key.k),
       static_cast<uint64_t>(aN ? key.k : key.m), key.lda, key.batchStrideA},
      {&created->b, static_cast<uint64_t>(bN ? key.k : key.n),
       static_cast<uint64_t>(bN ? key.n : key.k), key.ldb, key.batchStrideB},
      {&created->d, static_cast<uint64_t>(key.m),
       static_cast<uint64_t>(key.n), key.ldd, key.batchStrideD}};
  for (auto &layout : layouts) {
    if (checkCublas(cublasLtMatrixLayoutCreate(layout.layout, type,
                                               layout.rows, layout.columns,
                                               layout.ld),
                    op, "cublasLtMatrixLayoutCreate"))
      return FUSER_FAILED;
    if (key.batchCount > 1 &&
        (checkCublas(setLayout(*layout.layout,
                               CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                               key.batchCount),
                     op, "cublasLtMatrixLayoutSetAttribute") ||
         checkCublas(setLayout(*layout.layout,
                               CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                               layout.batchStride),
                     op, "cublasLtMatrixLayoutSetAttribute")))
      return FUSER_FAILED;
  }

  cublasLtMatmulPreference_t preference = nullptr;
  if (checkCublas(cublasLtMatmulPreferenceCreate(&preference), op,
                  "cublasLtMatmulPreferenceCreate"))
    return FUSER_FAILED;
  cublasLtMatmulHeuristicResult_t candidates[kMatmulCandidates] = {};
  int count = 0;
  cublasStatus_t status =
      setPreference(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    static_cast<uint64_t>(kMatmulWorkspaceBytes));
  for (auto [attribute, alignment] :
       {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignA},
        std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignB},
        std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignD},
        std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignD}})
    if (status == CUBLAS_STATUS_SUCCESS)
      status = setPreference(preference, attribute, alignment);
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(
        handle, created->desc, created->a, created->b, created->d, created->d,
        preference, kMatmulCandidates, candidates, &count);
  cublasLtMatmulPreferenceDestroy(preference);
  if (checkCublas(status, op, "cublasLtMatmulAlgoGetHeuristic"))
    return FUSER_FAILED;
  // Results come best first; a failed one ends the usable ones.
  int usable = 0;
  while (usable < count && candidates[usable].state == CUBLAS_STATUS_SUCCESS)
    ++usable;
  if (usable == 0)
    return fail(std::string(op) + ": cuBLASLt has no algorithm for " +
                describeKey(key));
  int chosen = 0;
  if (chooseCandidate(key, *created, candidates, usable, operands, op, chosen))
    return FUSER_FAILED;
  created->algo = candidates[chosen].algo;
  plan = created.get();
  plans.emplace(key, std::move(created));
  return FUSER_OK;
}

FuserStatus MatmulEngine::getWorkspace(cudaStream_t stream, const char *op,
                                       void *&workspace) {
  auto found = workspaces.find(stream);
  if (found != workspaces.end()) {
    workspace = found->second;
    return FUSER_OK;
  }
  if (backend.refuseWhileCapturing(op, "allocating a stream's cuBLASLt "
                                       "workspace",
                                   kSetUpBeforeCapture) ||
      checkCuda(cudaMalloc(&workspace, kMatmulWorkspaceBytes), op,
                "cudaMalloc"))
    return FUSER_FAILED;
  backend.countDeviceAllocation(kMatmulWorkspaceBytes);
  workspaces.emplace(stream, workspace);
  return FUSER_OK;
}

FuserStatus MatmulEngine::run(const MatmulKey &key, const void *a,
                              const void *b, void *d, const void *bias,
                              cudaStream_t stream, const char *op) {
  Plan *plan = nullptr;
  void *workspace = nullptr;
  if (getWorkspace(stream, op, workspace) ||
      getPlan(key, bias, {a, b, d, stream, workspace}, op, plan))
    return FUSER_FAILED;
  if (key.bias &&
      checkCublas(setDesc(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias),
                  op, "cublasLtMatmulDescSetAttribute"))
    return FUSER_FAILED;
  MatmulScalars scalars(key);
  // C is D (cuBLASLt computes in place when their layouts are the same); it
  // is read only when accumulating.
  return checkCublas(cublasLtMatmul(handle, plan->desc, scalars.alpha(), a,
                                    plan->a, b, plan->b, scalars.beta(), d,
                                    plan->d, d, plan->d, &plan->algo, workspace,
                                    kMatmulWorkspaceBytes, stream),
                     op, "cublasLtMatmul");
}

MatmulEngine &CudaBackend::getMatmulEngine() {
  if (!matmulEngine)
    matmulEngine = std::make_unique<MatmulEngine>(*this);
  return *matmulEngine;
}

//--- Matrix products -----------------------------------------------------------//

namespace {

/// A matrix (rows x columns, element strides) as cuBLASLt reads it: a
/// column-major layout of leading dimension `ld`, transposed or not.
struct Layout {
  bool valid = false;
  cublasOperation_t op = CUBLAS_OP_N;
  int64_t ld = 0;
};

/// The stride of a unit dim means nothing: any layout fits it.
Layout getLayout(int64_t rows, int64_t columns, int64_t rowStride,
                 int64_t columnStride, bool allowTranspose) {
  // A contiguous row: the transpose of a column, whose ld is aligned like
  // the row's length rather than 1.
  if (allowTranspose && rows == 1 && columns > 1 && columnStride == 1)
    return {true, CUBLAS_OP_T, columns};
  // Columns contiguous: column-major as it lies.
  if (rows == 1 || rowStride == 1) {
    int64_t ld = columns == 1 ? std::max<int64_t>(rows, 1) : columnStride;
    if (ld >= std::max<int64_t>(rows, 1))
      return {true, CUBLAS_OP_N, ld};
  }
  // Rows contiguous: the transpose of a column-major [columns, rows].
  if (allowTranspose && (columns == 1 || columnStride == 1)) {
    int64_t ld = rows == 1 ? std::max<int64_t>(columns, 1) : rowStride;
    if (ld >= std::max<int64_t>(columns, 1))
      return {true, CUBLAS_OP_T, ld};
  }
  return {};
}

cudaDataType_t getCudaType(FuserDType dtype, bool &supported) {
  supported = true;
  switch (dtype) {
  case FUSER_F32:
    return CUDA_R_32F;
  case FUSER_F16:
    return CUDA_R_16F;
  case FUSER_BF16:
    return CUDA_R_16BF;
  case FUSER_F64:
    return CUDA_R_64F;
  default:
    supported = false;
    return CUDA_R_32F;
  }
}

/// The largest power of two (at most 256) dividing the address and every
/// stride in bytes that moves it between calls.
uint32_t getAlignment(const void *address, std::initializer_list<int64_t> strides) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(address) | 256;
  for (int64_t stride : strides)
    bits |= static_cast<uintptr_t>(stride);
  return static_cast<uint32_t>(bits & (~bits + 1));
}

FuserStatus failLayout(const char *op, const MatmulOperand &operand) {
  return fail(std::string(op) + ": " + operand.name + " " +
              describeStrided(*operand.buffer) +
              " is not a matrix cuBLASLt can read: neither its rows nor its "
              "columns are contiguous (one of its last two dims needs stride "
              "1, the other a stride of at least the first's size)");
}

/// out[..., i, j] = activation(bias[j], or 0 without a bias (added to out
/// when `accumulate`)): a product over k = 0; the start of one that adds
/// to the bias (no activation); or, accumulating without a bias, the
/// activation of a finished product.
FuserStatus fillProduct(const MatmulProblem &problem, const void *bias,
                        bool accumulate, FuserActivation activation,
                        const char *op, cudaStream_t stream) {
  KernelView view;
  if (problem.batch.size() + 2 > static_cast<size_t>(kMaxKernelRank))
    return fail(std::string(op) + ": more than " +
                std::to_string(kMaxKernelRank - 2) + " batch dims");
  const MatmulOperand &out = problem.operands[MatmulProblem::Out];
  for (const MatmulBatchDim &dim : problem.batch) {
    view.sizes[view.rank] = dim.size;
    view.strides[view.rank++] = dim.strides[MatmulProblem::Out];
  }
  view.sizes[view.rank] = problem.m;
  view.strides[view.rank++] = out.rowStride;
  view.sizes[view.rank] = problem.n;
  view.strides[view.rank++] = out.colStride;
  return checkCuda(launchFillProduct(out.data, view, bias, problem.biasStride,
                                     accumulate, activation, problem.dtype,
                                     stream),
                   op, "a kernel launch");
}

FuserStatus runProblem(const MatmulProblem &problem, const char *op) {
  if (problem.isEmpty())
    return FUSER_OK;
  bool supported = false;
  cudaDataType_t type = getCudaType(problem.dtype, supported);
  if (!supported)
    return fail(std::string(op) +
                ": the CUDA backend multiplies f32, f16, bf16 and f64 "
                "matrices, not " +
                fuser_dtype_name(problem.dtype));
  CudaBackend &backend = getActiveCudaBackend();
  if (backend.checkCapturedStream(op))
    return FUSER_FAILED;
  cudaStream_t stream = backend.getStream();
  if (problem.k == 0)
    return fillProduct(problem, problem.bias, problem.accumulate,
                       problem.activation, op, stream);

  const MatmulOperand &a = problem.operands[MatmulProblem::A],
                      &b = problem.operands[MatmulProblem::B],
                      &out = problem.operands[MatmulProblem::Out];
  int64_t m = problem.m, n = problem.n, k = problem.k;
  // D = out^T where out's rows are contiguous, which puts the bias on the
  // rows of D for the epilogue; D = out where its columns are, and for a
  // single column (a weight of rank 1), which is then a contiguous column
  // rather than a row of leading dimension 1.
  Layout transposedD = getLayout(n, m, out.colStride, out.rowStride, false),
         plainD = getLayout(m, n, out.rowStride, out.colStride, false);
  if (!transposedD.valid && !plainD.valid)
    return failLayout(op, out);
  bool transposed = transposedD.valid && !(n == 1 && plainD.valid);
  Layout d = transposed ? transposedD : plainD;
  // A bias the epilogue cannot add (one value per column of D, or one not
  // contiguous) is written to out first, and the product added to it.
  bool biasInEpilogue =
      problem.bias && transposed && (n == 1 || problem.biasStride == 1);
  bool prefill = problem.bias && !biasInEpilogue;
  // cuBLASLt's A and B: B^T and A^T, or A and B.
  const MatmulOperand &first = transposed ? b : a, &second = transposed ? a : b;
  int operandOf[2] = {transposed ? MatmulProblem::B : MatmulProblem::A,
                      transposed ? MatmulProblem::A : MatmulProblem::B};
  Layout layoutA = transposed
                       ? getLayout(n, k, b.colStride, b.rowStride, true)
                       : getLayout(m, k, a.rowStride, a.colStride, true);
  Layout layoutB = transposed
                       ? getLayout(k, m, a.colStride, a.rowStride, true)
                       : getLayout(k, n, b.rowStride, b.colStride, true);
  if (!layoutA.valid)
    return failLayout(op, first);
  if (!layoutB.valid)
    return failLayout(op, second);

  MatmulKey key;
  key.dataType = type;
  key.transA = layoutA.op;
  key.transB = layoutB.op;
  key.m = transposed ? n : m;
  key.n = transposed ? m : n;
  key.k = k;
  key.lda = layoutA.ld;
  key.ldb = layoutB.ld;
  key.ldd = d.ld;
  key.bias = biasInEpilogue;
  // out holds what the product is added to: the bias written first, or
  // the caller's values.
  key.accumulate = prefill || problem.accumulate;
  // cuBLASLt's f64 products have no activation epilogues.
  bool activationAfter =
      problem.activation != FUSER_ACTIVATION_NONE && type == CUDA_R_64F;
  if (!activationAfter)
    key.activation = problem.activation;

  // The innermost batch dim is cuBLASLt's strided batch, unless an operand
  // stays put along it; the others are looped over.
  std::vector<MatmulBatchDim> outer = problem.batch;
  if (!outer.empty()) {
    const MatmulBatchDim &inner = outer.back();
    if (inner.strides[operandOf[0]] != 0 && inner.strides[operandOf[1]] != 0 &&
        inner.strides[MatmulProblem::Out] != 0 && inner.size <= INT32_MAX) {
      key.batchCount = static_cast<int32_t>(inner.size);
      key.batchStrideA = inner.strides[operandOf[0]];
      key.batchStrideB = inner.strides[operandOf[1]];
      key.batchStrideD = inner.strides[MatmulProblem::Out];
      outer.pop_back();
    }
  }
  int64_t size = static_cast<int64_t>(getElementSize(problem.dtype));
  auto outerStrides = [&](int operand) {
    int64_t bits = 0;
    for (const MatmulBatchDim &dim : outer)
      bits |= dim.strides[operand] * size;
    return bits;
  };
  key.alignA = getAlignment(first.data, {outerStrides(operandOf[0])});
  key.alignB = getAlignment(second.data, {outerStrides(operandOf[1])});
  key.alignD = getAlignment(out.data, {outerStrides(MatmulProblem::Out)});
  if (biasInEpilogue)
    key.alignBias = getAlignment(problem.bias, {});
  if (prefill && fillProduct(problem, problem.bias, problem.accumulate,
                             FUSER_ACTIVATION_NONE, op, stream))
    return FUSER_FAILED;

  MatmulProblem loop;
  loop.batch = outer;
  MatmulEngine &engine = backend.getMatmulEngine();
  for (const auto &offsets : loop.getBatchOffsets())
    if (engine.run(key, first.data + offsets[operandOf[0]] * size,
                   second.data + offsets[operandOf[1]] * size,
                   out.data + offsets[MatmulProblem::Out] * size,
                   biasInEpilogue ? problem.bias : nullptr, stream, op))
      return FUSER_FAILED;
  if (activationAfter)
    return fillProduct(problem, nullptr, /*accumulate=*/true,
                       problem.activation, op, stream);
  return FUSER_OK;
}

//--- reduce_blocks ---------------------------------------------------------//

/// The buffer's view without unit dims; false past kMaxKernelRank dims.
bool getKernelView(const FuserBuffer &buffer, KernelView &view) {
  for (int64_t dim = 0; dim < buffer.rank; ++dim) {
    if (buffer.sizes[dim] == 1)
      continue;
    if (view.rank == kMaxKernelRank)
      return false;
    view.sizes[view.rank] = buffer.sizes[dim];
    view.strides[view.rank++] = buffer.strides[dim];
  }
  return true;
}

} // namespace

FuserStatus CudaBackend::matmul(const FuserBuffer &lhs, const FuserBuffer &rhs,
                                const FuserBuffer &out, bool accumulate,
                                FuserActivation activation) {
  return runProblem(describeMatmul(lhs, rhs, out, accumulate, activation),
                    "hostir.matmul");
}

FuserStatus CudaBackend::linear(const FuserBuffer &input,
                                const FuserBuffer &weight,
                                const FuserBuffer *bias, const FuserBuffer &out,
                                bool accumulate, FuserActivation activation) {
  return runProblem(
      describeLinear(input, weight, bias, out, accumulate, activation),
      "hostir.linear");
}

FuserStatus CudaBackend::reduceBlocks(const FuserBuffer &input,
                                      const FuserBuffer &out,
                                      FuserReduction kind) {
  const char *op = "hostir.reduce_blocks";
  if (checkCapturedStream(op))
    return FUSER_FAILED;
  int64_t blocks = input.sizes[0], elements = getNumElements(out);
  if (elements == 0)
    return FUSER_OK;
  if (isRowMajor(input) && isRowMajor(out))
    return checkCuda(launchReduceBlocks(getData(input), getData(out), blocks,
                                        elements, input.dtype, kind,
                                        getStream()),
                     op, "a kernel launch");
  KernelView inputView, outView;
  if (!getKernelView(input, inputView) || !getKernelView(out, outView))
    return fail(std::string(op) + ": buffers " + describe(input) + " and " +
                describe(out) + " have more than " +
                std::to_string(kMaxKernelRank) + " dims");
  return checkCuda(launchReduceBlocksStrided(getData(input), inputView,
                                             getData(out), outView, blocks,
                                             elements, input.dtype, kind,
                                             getStream()),
                   op, "a kernel launch");
}
