//===- CudnnGraph.h - operation graphs on cuDNN's backend API --*- C++ -*-===//
//
// cuDNN's graph API without its C++ frontend: tensors and operations
// (matmul, pointwise, reduction, reshape, random numbers) described
// through backend descriptors, an operation graph of them, and an
// execution plan from the first of the heuristic's engine configurations
// that finalizes. What cudnn-frontend's nodes lower to; CudnnAttention.cpp
// builds the attention graphs with it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CUDA_CUDNNGRAPH_H
#define FUSER_RUNTIME_CUDA_CUDNNGRAPH_H

#include "../Internal.h"

#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fuser::runtime::cuda {

/// Records "<op>: <call> failed: <cuDNN's message>" as the last error and
/// returns FUSER_FAILED; FUSER_OK for CUDNN_STATUS_SUCCESS.
FuserStatus checkCudnn(cudnnStatus_t status, const char *op,
                       const std::string &call);

/// A backend descriptor, destroyed with its owner.
class CudnnDescriptor {
public:
  CudnnDescriptor() = default;
  ~CudnnDescriptor();
  CudnnDescriptor(CudnnDescriptor &&other) noexcept;
  CudnnDescriptor &operator=(CudnnDescriptor &&other) noexcept;
  CudnnDescriptor(const CudnnDescriptor &) = delete;
  CudnnDescriptor &operator=(const CudnnDescriptor &) = delete;

  cudnnStatus_t create(cudnnBackendDescriptorType_t type);
  cudnnBackendDescriptor_t get() const { return descriptor; }

private:
  cudnnBackendDescriptor_t descriptor = nullptr;
};

/// What a graph runs with: its execution plan, the descriptors the plan
/// was built from (kept while it lives), and the workspace it needs.
struct CudnnPlan {
  std::vector<CudnnDescriptor> descriptors;
  CudnnDescriptor plan;
  int64_t workspaceBytes = 0;
};

/// Describes an operation graph one call at a time. The first call that
/// cuDNN refuses is remembered and the later ones do nothing, so that a
/// graph reads as the list of its operations; build() reports it.
class CudnnGraphBuilder {
public:
  using Tensor = cudnnBackendDescriptor_t;

  explicit CudnnGraphBuilder(const char *op) : op(op) {}

  /// A tensor the variant pack gives memory for, under `uid`.
  Tensor tensor(int64_t uid, cudnnDataType_t type,
                const std::vector<int64_t> &dims,
                const std::vector<int64_t> &strides);
  /// A scalar the variant pack gives by value (a host pointer to it).
  Tensor scalar(int64_t uid, cudnnDataType_t type);
  /// An intermediate the engine keeps to itself.
  Tensor intermediate(cudnnDataType_t type, const std::vector<int64_t> &dims,
                      const std::vector<int64_t> &strides);

  /// y = mode(x, b, t) in `precision` (b and t where the mode takes them;
  /// `axis` for GEN_INDEX).
  void pointwise(cudnnPointwiseMode_t mode, Tensor x, Tensor b, Tensor t,
                 Tensor y, cudnnDataType_t precision = CUDNN_DATA_FLOAT,
                 int64_t axis = -1);
  /// y = the reduction of x to y's dims, in float.
  void reduction(cudnnReduceTensorOp_t reduce, Tensor x, Tensor y);
  /// c = a b over the last two dims, in float.
  void matmul(Tensor a, Tensor b, Tensor c);
  /// y = x seen with y's dims and strides.
  void reshape(Tensor x, Tensor y);
  /// y = Bernoulli draws of `probability` of ones, from Philox seeded by
  /// the device tensors `seed` and `offset`.
  void bernoulli(double probability, Tensor seed, Tensor offset, Tensor y);

  /// Finalizes the operation graph and the first engine configuration of
  /// cuDNN's heuristic (mode A) that makes an execution plan; `what`
  /// describes the problem in messages.
  FuserStatus build(cudnnHandle_t handle, const std::string &what,
                    CudnnPlan &plan);

private:
  /// A new descriptor of `type`, kept with the graph.
  cudnnBackendDescriptor_t create(cudnnBackendDescriptorType_t type,
                                  const char *name);
  void set(cudnnBackendDescriptor_t descriptor,
           cudnnBackendAttributeName_t attribute,
           cudnnBackendAttributeType_t type, int64_t count,
           const void *values, const char *name);
  /// `set` of an attribute that is one other descriptor.
  void setDescriptor(cudnnBackendDescriptor_t descriptor,
                     cudnnBackendAttributeName_t attribute,
                     cudnnBackendDescriptor_t value, const char *name);
  void finalize(cudnnBackendDescriptor_t descriptor, const char *name);
  Tensor makeTensor(int64_t uid, cudnnDataType_t type,
                    const std::vector<int64_t> &dims,
                    const std::vector<int64_t> &strides, bool isVirtual,
                    bool byValue);
  /// Adds an operation descriptor of `type` to the graph.
  cudnnBackendDescriptor_t operation(cudnnBackendDescriptorType_t type,
                                     const char *name);
  void remember(cudnnStatus_t status, const std::string &call);

  const char *op;
  std::vector<CudnnDescriptor> descriptors;
  std::vector<cudnnBackendDescriptor_t> operations;
  /// Intermediates are numbered after the variant pack's tensors.
  int64_t nextIntermediate = 1 << 20;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::string failedCall;
};

/// Runs `plan` on the handle's stream with the memory of its tensors
/// (`uids[i]` at `pointers[i]`, a host pointer for a scalar) and a
/// workspace of plan.workspaceBytes.
FuserStatus executePlan(cudnnHandle_t handle, const CudnnPlan &plan,
                        const std::vector<int64_t> &uids,
                        const std::vector<void *> &pointers, void *workspace,
                        const char *op);

} // namespace fuser::runtime::cuda

#endif // FUSER_RUNTIME_CUDA_CUDNNGRAPH_H
