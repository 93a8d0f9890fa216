//===- CudnnAttention.cpp - the CUDA backend's sdpa on cuDNN --------------===//
//
// Each call describes its problem (AttentionKey), takes the problem's
// plan (built on its first call), a workspace from the backend's
// stream-ordered pool (released after the call is issued, so that
// steady-state executions ask the device for nothing, and a capture owns
// its own) and runs the plan on the current stream.
//
// Dropout draws from cuDNN's Philox generator: its seed is the caller's
// seed mixed with the batch and head offsets of the rank's piece (as the
// host backend's draws mix them), so pieces draw different masks and equal
// arguments the same one; it is not the host backend's mask.
//
//===----------------------------------------------------------------------===//

#include "CudnnAttention.h"
#include "../DropoutMask.h"

#include <cmath>
#include <limits>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

//--- The engine --------------------------------------------------------------//

AttentionEngine::~AttentionEngine() {
  plans.clear();
  for (auto &[seed, state] : philoxStates)
    cudaFree(state);
  if (handle)
    cudnnDestroy(handle);
}

FuserStatus AttentionEngine::getHandle(const char *op, cudnnHandle_t &result) {
  if (!handle && checkCudnn(cudnnCreate(&handle), op, "cudnnCreate"))
    return FUSER_FAILED;
  result = handle;
  return checkCudnn(cudnnSetStream(handle, backend.getStream()), op,
                    "cudnnSetStream");
}

namespace {
/// "bf16 attention [2, 3, 128 x 256, 64], causal, dropout 0.1, strides
/// ...", for messages.
std::string describeKey(const AttentionKey &key) {
  std::string text =
      std::string(key.dataType == CUDNN_DATA_BFLOAT16 ? "bf16" : "f16") +
      (key.backward ? " attention backward [" : " attention [") +
      std::to_string(key.batch) + ", " + std::to_string(key.heads) + ", " +
      std::to_string(key.queries) + " x " + std::to_string(key.keys) + ", " +
      std::to_string(key.depth) + "]" + (key.causal ? ", causal" : "");
  if (key.dropoutProbability > 0)
    text += ", dropout " + std::to_string(key.dropoutProbability);
  text += ", strides";
  for (const auto &strides : key.strides) {
    text += " [";
    for (size_t dim = 0; dim < strides.size(); ++dim)
      text += (dim ? ", " : "") + std::to_string(strides[dim]);
    text += "]";
  }
  return text;
}
} // namespace

FuserStatus AttentionEngine::getPlan(const AttentionKey &key, const char *op,
                                     const CudnnPlan *&plan) {
  auto found = plans.find(key);
  if (found != plans.end()) {
    plan = found->second.get();
    return FUSER_OK;
  }
  cudnnHandle_t cudnn = nullptr;
  if (getHandle(op, cudnn))
    return FUSER_FAILED;
  CudnnGraphBuilder builder(op);
  if (key.backward)
    describeBackwardGraph(key, builder);
  else
    describeForwardGraph(key, builder);
  auto built = std::make_unique<CudnnPlan>();
  if (builder.build(cudnn, describeKey(key), *built))
    return FUSER_FAILED;
  plan = built.get();
  plans.emplace(key, std::move(built));
  return FUSER_OK;
}

FuserStatus AttentionEngine::getPhiloxState(int64_t seed, const char *op,
                                            int64_t *&state) {
  auto found = philoxStates.find(seed);
  if (found != philoxStates.end()) {
    state = found->second;
    return FUSER_OK;
  }
  const int64_t values[2] = {seed, 0};
  void *memory = nullptr;
  cudaStream_t stream = backend.getStream();
  if (backend.refuseWhileCapturing(op, "writing a dropout seed to the device",
                                   kSetUpBeforeCapture) ||
      checkCuda(cudaMalloc(&memory, sizeof(values)), op, "cudaMalloc"))
    return FUSER_FAILED;
  backend.countDeviceAllocation(sizeof(values));
  state = static_cast<int64_t *>(memory);
  philoxStates.emplace(seed, state);
  // Other streams may read it next: the copy completes before any work
  // is issued with it.
  if (checkCuda(cudaMemcpyAsync(state, values, sizeof(values),
                                cudaMemcpyHostToDevice, stream),
                op, "cudaMemcpyAsync"))
    return FUSER_FAILED;
  return backend.awaitCompletion([&] { return cudaStreamQuery(stream); }, op,
                                 "cudaStreamQuery");
}

//--- The calls -----------------------------------------------------------------//

namespace {

std::vector<int64_t> getStrides(const FuserBuffer &buffer) {
  return std::vector<int64_t>(buffer.strides, buffer.strides + buffer.rank);
}

/// The key of a call on `buffers` (query, key, value, out, logsumexp, then
/// for the backward pass dOut, dQ, dK, dV); fails on element types cuDNN's
/// attention does not take and on addresses its tensors cannot have.
FuserStatus describeProblem(const std::vector<const FuserBuffer *> &buffers,
                            const AttentionOptions &options, bool backward,
                            const char *op, AttentionKey &key) {
  const FuserBuffer &query = *buffers[0];
  if (query.dtype != FUSER_BF16 && query.dtype != FUSER_F16)
    return fail(std::string(op) +
                ": the CUDA backend's fused attention (cuDNN) takes f16 and "
                "bf16 operands, not " +
                fuser_dtype_name(query.dtype) +
                "; the host backend computes attention in any floating-point "
                "type");
  for (const FuserBuffer *buffer : buffers)
    if (reinterpret_cast<uintptr_t>(getData(*buffer)) % 16 != 0)
      return fail(std::string(op) + ": operand " + describe(*buffer) +
                  " does not start on a 16-byte boundary, which cuDNN's "
                  "attention needs");
  key.backward = backward;
  key.dataType = query.dtype == FUSER_BF16 ? CUDNN_DATA_BFLOAT16
                                           : CUDNN_DATA_HALF;
  key.batch = query.sizes[0];
  key.heads = query.sizes[1];
  key.queries = query.sizes[2];
  key.keys = buffers[1]->sizes[2];
  key.depth = query.sizes[3];
  for (const FuserBuffer *buffer : buffers)
    key.strides.push_back(getStrides(*buffer));
  key.causal = options.causal;
  key.dropoutProbability = options.dropoutProbability;
  return FUSER_OK;
}

/// The by-value scalars of a call: cuDNN reads them from the host when
/// the plan runs.
struct Scalars {
  float scale, negativeInfinity = -std::numeric_limits<float>::infinity(),
               dropoutScale, keepProbability;
  explicit Scalars(const AttentionOptions &options)
      : scale(static_cast<float>(options.scale)),
        dropoutScale(static_cast<float>(1 / (1 - options.dropoutProbability))),
        keepProbability(static_cast<float>(1 - options.dropoutProbability)) {}
};

constexpr int64_t kWorkspaceAlignment = 256;

int64_t alignUp(int64_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
         kWorkspaceAlignment;
}

/// Runs the plan of `key` with `tensors` (uids and memory); the backward
/// pass's f32 softmax sums and dQ accumulator follow cuDNN's workspace.
FuserStatus runAttention(const AttentionKey &key, const AttentionOptions &options,
                         std::vector<int64_t> uids,
                         std::vector<void *> pointers, const char *op) {
  CudaBackend &backend = getActiveCudaBackend();
  if (backend.checkCapturedStream(op))
    return FUSER_FAILED;
  AttentionEngine &engine = backend.getAttentionEngine();
  cudnnHandle_t handle = nullptr;
  const CudnnPlan *plan = nullptr;
  if (engine.getHandle(op, handle) || engine.getPlan(key, op, plan))
    return FUSER_FAILED;

  Scalars scalars(options);
  uids.push_back(kScale);
  pointers.push_back(&scalars.scale);
  if (key.causal) {
    uids.push_back(kNegativeInfinity);
    pointers.push_back(&scalars.negativeInfinity);
  }
  if (key.dropoutProbability > 0) {
    int64_t seed = static_cast<int64_t>(mixRandomState(
        mixRandomState(static_cast<uint64_t>(options.seed),
                       static_cast<uint64_t>(options.batchOffset)),
        static_cast<uint64_t>(options.headOffset)));
    int64_t *state = nullptr;
    if (engine.getPhiloxState(seed, op, state))
      return FUSER_FAILED;
    uids.insert(uids.end(), {kSeed, kOffset, kDropoutScale});
    pointers.insert(pointers.end(), {state, state + 1, &scalars.dropoutScale});
  }

  int64_t bytes = alignUp(plan->workspaceBytes);
  int64_t softmaxSumBytes = 0;
  if (key.backward) {
    softmaxSumBytes = alignUp(key.batch * key.heads * key.queries * 4);
    uids.insert(uids.end(),
                {kSoftmaxSum, kGradQueryAccumulator, kKeepProbability});
    bytes += softmaxSumBytes +
             alignUp(key.batch * key.heads * key.queries * key.depth * 4);
  }
  char *workspace = nullptr;
  if (bytes > 0) {
    workspace = static_cast<char *>(
        backend.allocate(bytes, FUSER_MEMORY_DEVICE, /*zeroed=*/false));
    if (!workspace)
      return FUSER_FAILED;
  }
  if (key.backward)
    pointers.insert(pointers.end(),
                    {workspace + alignUp(plan->workspaceBytes),
                     workspace + alignUp(plan->workspaceBytes) +
                         softmaxSumBytes,
                     &scalars.keepProbability});
  FuserStatus status =
      executePlan(handle, *plan, uids, pointers, workspace, op);
  if (workspace)
    backend.deallocate(workspace);
  return status;
}

} // namespace

AttentionEngine &CudaBackend::getAttentionEngine() {
  if (!attentionEngine)
    attentionEngine = {new AttentionEngine(*this),
                       [](AttentionEngine *engine) { delete engine; }};
  return *attentionEngine;
}

FuserStatus CudaBackend::sdpaForward(const FuserBuffer &query,
                                     const FuserBuffer &key,
                                     const FuserBuffer &value,
                                     const FuserBuffer &out,
                                     const FuserBuffer &logsumexp,
                                     const AttentionOptions &options) {
  const char *op = "hostir.sdpa_forward";
  AttentionKey problem;
  if (describeProblem({&query, &key, &value, &out, &logsumexp}, options,
                      /*backward=*/false, op, problem))
    return FUSER_FAILED;
  return runAttention(problem, options,
                      {kQuery, kKey, kValue, kOut, kStatistics},
                      {getData(query), getData(key), getData(value),
                       getData(out), getData(logsumexp)},
                      op);
}

FuserStatus CudaBackend::sdpaBackward(
    const FuserBuffer &query, const FuserBuffer &key, const FuserBuffer &value,
    const FuserBuffer &out, const FuserBuffer &gradOut,
    const FuserBuffer &logsumexp, const FuserBuffer &gradQuery,
    const FuserBuffer &gradKey, const FuserBuffer &gradValue,
    const AttentionOptions &options) {
  const char *op = "hostir.sdpa_backward";
  AttentionKey problem;
  if (describeProblem({&query, &key, &value, &out, &logsumexp, &gradOut,
                       &gradQuery, &gradKey, &gradValue},
                      options, /*backward=*/true, op, problem))
    return FUSER_FAILED;
  return runAttention(
      problem, options,
      {kQuery, kKey, kValue, kOut, kStatistics, kGradOut, kGradQuery, kGradKey,
       kGradValue},
      {getData(query), getData(key), getData(value), getData(out),
       getData(logsumexp), getData(gradOut), getData(gradQuery),
       getData(gradKey), getData(gradValue)},
      op);
}
