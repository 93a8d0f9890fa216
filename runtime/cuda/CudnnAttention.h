//===- CudnnAttention.h - fused attention on cuDNN -------------*- C++ -*-===//
//
// The CUDA backend's sdpa: the operation graphs cudnn-frontend builds for
// scaled dot-product attention (CudnnAttentionGraphs.cpp), which cuDNN's
// runtime-fusion engine runs as flash attention, and what the backend
// keeps between calls: the cuDNN handle, one execution plan per problem
// (plans take long to build), and the Philox seeds of the dropout in
// device memory, which executions and graph replays read.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CUDA_CUDNNATTENTION_H
#define FUSER_RUNTIME_CUDA_CUDNNATTENTION_H

#include "CudaBackend.h"
#include "CudnnGraph.h"

#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace fuser::runtime::cuda {

/// The variant pack's tensors.
enum AttentionTensor : int64_t {
  kQuery = 1,
  kKey,
  kValue,
  kOut,
  kStatistics,
  kScale,
  kNegativeInfinity,
  kSeed,
  kOffset,
  kDropoutScale,
  kGradOut,
  kGradQuery,
  kGradKey,
  kGradValue,
  /// Backward: the rows' dOut . out times 1 - p, and dQ in f32, in the
  /// workspace after cuDNN's own.
  kSoftmaxSum,
  kGradQueryAccumulator,
  /// Backward: 1 - p, or 1 without dropout.
  kKeepProbability,
};

/// Everything a plan depends on: the direction, element type, sizes, every
/// operand's strides (query, key, value, out, logsumexp, then dOut, dQ,
/// dK, dV), the mask and the dropout (its probability is the Bernoulli
/// descriptor's).
struct AttentionKey {
  bool backward = false;
  int32_t dataType = 0; // cudnnDataType_t
  int64_t batch = 0, heads = 0, queries = 0, keys = 0, depth = 0;
  std::vector<std::vector<int64_t>> strides;
  bool causal = false;
  double dropoutProbability = 0;

  auto tie() const {
    return std::tie(backward, dataType, batch, heads, queries, keys, depth,
                    strides, causal, dropoutProbability);
  }
  bool operator<(const AttentionKey &other) const {
    return tie() < other.tie();
  }
};

/// Describes the forward or backward graph of `key` into `builder`.
void describeForwardGraph(const AttentionKey &key, CudnnGraphBuilder &builder);
void describeBackwardGraph(const AttentionKey &key, CudnnGraphBuilder &builder);

class AttentionEngine {
public:
  explicit AttentionEngine(CudaBackend &backend) : backend(backend) {}
  ~AttentionEngine();
  AttentionEngine(const AttentionEngine &) = delete;
  AttentionEngine &operator=(const AttentionEngine &) = delete;

  /// The handle, on the backend's current stream.
  FuserStatus getHandle(const char *op, cudnnHandle_t &handle);
  /// The plan of `key`, built on its first call.
  FuserStatus getPlan(const AttentionKey &key, const char *op,
                      const CudnnPlan *&plan);
  /// Device memory holding {seed, 0}: the Philox seed and offset of
  /// cuDNN's dropout, written once per seed and kept, so that work in
  /// flight and graph replays read it.
  FuserStatus getPhiloxState(int64_t seed, const char *op, int64_t *&state);

private:
  CudaBackend &backend;
  cudnnHandle_t handle = nullptr;
  std::map<AttentionKey, std::unique_ptr<CudnnPlan>> plans;
  std::map<int64_t, int64_t *> philoxStates;
};

} // namespace fuser::runtime::cuda

#endif // FUSER_RUNTIME_CUDA_CUDNNATTENTION_H
