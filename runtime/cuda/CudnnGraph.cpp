//===- CudnnGraph.cpp - operation graphs on cuDNN's backend API -----------===//

#include "CudnnGraph.h"

#include <utility>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

FuserStatus cuda::checkCudnn(cudnnStatus_t status, const char *op,
                             const std::string &call) {
  if (status == CUDNN_STATUS_SUCCESS)
    return FUSER_OK;
  char detail[1024] = "";
  cudnnGetLastErrorString(detail, sizeof(detail));
  std::string message = std::string(op) + ": " + call +
                        " failed: " + cudnnGetErrorString(status);
  if (*detail)
    message += std::string(" (") + detail + ")";
  return fail(message);
}

//--- Descriptors -------------------------------------------------------------//

CudnnDescriptor::~CudnnDescriptor() {
  if (descriptor)
    cudnnBackendDestroyDescriptor(descriptor);
}

CudnnDescriptor::CudnnDescriptor(CudnnDescriptor &&other) noexcept
    : descriptor(std::exchange(other.descriptor, nullptr)) {}

CudnnDescriptor &CudnnDescriptor::operator=(CudnnDescriptor &&other) noexcept {
  std::swap(descriptor, other.descriptor);
  return *this;
}

cudnnStatus_t CudnnDescriptor::create(cudnnBackendDescriptorType_t type) {
  return cudnnBackendCreateDescriptor(type, &descriptor);
}

//--- The builder -------------------------------------------------------------//

void CudnnGraphBuilder::remember(cudnnStatus_t result,
                                 const std::string &call) {
  if (status == CUDNN_STATUS_SUCCESS && result != CUDNN_STATUS_SUCCESS) {
    status = result;
    failedCall = call;
  }
}

cudnnBackendDescriptor_t
CudnnGraphBuilder::create(cudnnBackendDescriptorType_t type, const char *name) {
  CudnnDescriptor descriptor;
  if (status == CUDNN_STATUS_SUCCESS)
    remember(descriptor.create(type),
             std::string("cudnnBackendCreateDescriptor (") + name + ")");
  descriptors.push_back(std::move(descriptor));
  return descriptors.back().get();
}

void CudnnGraphBuilder::set(cudnnBackendDescriptor_t descriptor,
                            cudnnBackendAttributeName_t attribute,
                            cudnnBackendAttributeType_t type, int64_t count,
                            const void *values, const char *name) {
  if (status == CUDNN_STATUS_SUCCESS)
    remember(cudnnBackendSetAttribute(descriptor, attribute, type, count,
                                      values),
             std::string("cudnnBackendSetAttribute (") + name + ", attribute " +
                 std::to_string(attribute) + ")");
}

void CudnnGraphBuilder::setDescriptor(cudnnBackendDescriptor_t descriptor,
                                      cudnnBackendAttributeName_t attribute,
                                      cudnnBackendDescriptor_t value,
                                      const char *name) {
  set(descriptor, attribute, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value, name);
}

void CudnnGraphBuilder::finalize(cudnnBackendDescriptor_t descriptor,
                                 const char *name) {
  if (status == CUDNN_STATUS_SUCCESS)
    remember(cudnnBackendFinalize(descriptor),
             std::string("cudnnBackendFinalize (") + name + ")");
}

CudnnGraphBuilder::Tensor
CudnnGraphBuilder::makeTensor(int64_t uid, cudnnDataType_t type,
                              const std::vector<int64_t> &dims,
                              const std::vector<int64_t> &strides,
                              bool isVirtual, bool byValue) {
  const char *name = "tensor";
  Tensor tensor = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, name);
  int64_t alignment = 16;
  set(tensor, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type, name);
  set(tensor, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
      static_cast<int64_t>(dims.size()), dims.data(), name);
  set(tensor, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64,
      static_cast<int64_t>(strides.size()), strides.data(), name);
  set(tensor, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, name);
  set(tensor, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1,
      &alignment, name);
  set(tensor, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual,
      name);
  if (byValue)
    set(tensor, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byValue,
        name);
  finalize(tensor, name);
  return tensor;
}

CudnnGraphBuilder::Tensor
CudnnGraphBuilder::tensor(int64_t uid, cudnnDataType_t type,
                          const std::vector<int64_t> &dims,
                          const std::vector<int64_t> &strides) {
  return makeTensor(uid, type, dims, strides, false, false);
}

CudnnGraphBuilder::Tensor CudnnGraphBuilder::scalar(int64_t uid,
                                                    cudnnDataType_t type) {
  return makeTensor(uid, type, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);
}

CudnnGraphBuilder::Tensor
CudnnGraphBuilder::intermediate(cudnnDataType_t type,
                                const std::vector<int64_t> &dims,
                                const std::vector<int64_t> &strides) {
  return makeTensor(nextIntermediate++, type, dims, strides, true, false);
}

cudnnBackendDescriptor_t
CudnnGraphBuilder::operation(cudnnBackendDescriptorType_t type,
                             const char *name) {
  cudnnBackendDescriptor_t descriptor = create(type, name);
  operations.push_back(descriptor);
  return descriptor;
}

void CudnnGraphBuilder::pointwise(cudnnPointwiseMode_t mode, Tensor x,
                                  Tensor b, Tensor t, Tensor y,
                                  cudnnDataType_t precision, int64_t axis) {
  const char *name = "pointwise";
  cudnnBackendDescriptor_t descriptor =
      create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, name);
  set(descriptor, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1,
      &mode, name);
  set(descriptor, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1,
      &precision, name);
  if (mode == CUDNN_POINTWISE_GEN_INDEX)
    set(descriptor, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis,
        name);
  finalize(descriptor, name);
  cudnnBackendDescriptor_t node =
      operation(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, descriptor,
                name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x, name);
  if (b)
    setDescriptor(node, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b, name);
  if (t)
    setDescriptor(node, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y, name);
  finalize(node, name);
}

void CudnnGraphBuilder::reduction(cudnnReduceTensorOp_t reduce, Tensor x,
                                  Tensor y) {
  const char *name = "reduction";
  cudnnDataType_t precision = CUDNN_DATA_FLOAT;
  cudnnBackendDescriptor_t descriptor =
      create(CUDNN_BACKEND_REDUCTION_DESCRIPTOR, name);
  set(descriptor, CUDNN_ATTR_REDUCTION_OPERATOR,
      CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &reduce, name);
  set(descriptor, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
      &precision, name);
  finalize(descriptor, name);
  cudnnBackendDescriptor_t node =
      operation(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_REDUCTION_DESC, descriptor, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y, name);
  finalize(node, name);
}

void CudnnGraphBuilder::matmul(Tensor a, Tensor b, Tensor c) {
  const char *name = "matmul";
  cudnnDataType_t precision = CUDNN_DATA_FLOAT;
  cudnnBackendDescriptor_t descriptor =
      create(CUDNN_BACKEND_MATMUL_DESCRIPTOR, name);
  set(descriptor, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
      &precision, name);
  finalize(descriptor, name);
  cudnnBackendDescriptor_t node =
      operation(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_MATMUL_ADESC, a, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_MATMUL_BDESC, b, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_MATMUL_CDESC, c, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_MATMUL_DESC, descriptor, name);
  finalize(node, name);
}

void CudnnGraphBuilder::reshape(Tensor x, Tensor y) {
  const char *name = "reshape";
  cudnnBackendDescriptor_t node =
      operation(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y, name);
  finalize(node, name);
}

void CudnnGraphBuilder::bernoulli(double probability, Tensor seed,
                                  Tensor offset, Tensor y) {
  const char *name = "rng";
  cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
  cudnnBackendDescriptor_t descriptor =
      create(CUDNN_BACKEND_RNG_DESCRIPTOR, name);
  set(descriptor, CUDNN_ATTR_RNG_DISTRIBUTION, CUDNN_TYPE_RNG_DISTRIBUTION, 1,
      &distribution, name);
  set(descriptor, CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY, CUDNN_TYPE_DOUBLE,
      1, &probability, name);
  finalize(descriptor, name);
  cudnnBackendDescriptor_t node =
      operation(CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RNG_YDESC, y, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RNG_DESC, descriptor, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RNG_SEED, seed, name);
  setDescriptor(node, CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC, offset, name);
  finalize(node, name);
}

FuserStatus CudnnGraphBuilder::build(cudnnHandle_t handle,
                                     const std::string &what, CudnnPlan &plan) {
  const char *name = "operation graph";
  cudnnBackendDescriptor_t graph =
      create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, name);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
      static_cast<int64_t>(operations.size()), operations.data(), name);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle,
      name);
  finalize(graph, name);

  name = "engine heuristics";
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  cudnnBackendDescriptor_t heuristics =
      create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, name);
  setDescriptor(heuristics, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph, name);
  set(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode,
      name);
  finalize(heuristics, name);
  int64_t count = 0;
  if (status == CUDNN_STATUS_SUCCESS)
    remember(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      nullptr),
             "cudnnBackendGetAttribute (engine heuristics' result count)");
  std::vector<cudnnBackendDescriptor_t> configs;
  for (int64_t i = 0; i < count; ++i)
    configs.push_back(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine"));
  if (status == CUDNN_STATUS_SUCCESS && count > 0)
    remember(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                      &count, configs.data()),
             "cudnnBackendGetAttribute (engine heuristics' results)");
  if (status != CUDNN_STATUS_SUCCESS)
    return checkCudnn(status, op, failedCall + " for " + what);

  // The heuristic ranks them; some cannot run this graph (on this GPU).
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  for (int64_t i = 0; i < count; ++i) {
    CudnnDescriptor candidate;
    last = candidate.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    if (last == CUDNN_STATUS_SUCCESS)
      last = cudnnBackendSetAttribute(candidate.get(),
                                      CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                      CUDNN_TYPE_HANDLE, 1, &handle);
    if (last == CUDNN_STATUS_SUCCESS)
      last = cudnnBackendSetAttribute(
          candidate.get(), CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &configs[i]);
    if (last == CUDNN_STATUS_SUCCESS)
      last = cudnnBackendFinalize(candidate.get());
    if (last != CUDNN_STATUS_SUCCESS)
      continue;
    int64_t returned = 0;
    if (checkCudnn(cudnnBackendGetAttribute(
                       candidate.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                       CUDNN_TYPE_INT64, 1, &returned, &plan.workspaceBytes),
                   op, "cudnnBackendGetAttribute (workspace size)"))
      return FUSER_FAILED;
    plan.plan = std::move(candidate);
    plan.descriptors = std::move(descriptors);
    return FUSER_OK;
  }
  return checkCudnn(last, op,
                    "building an execution plan from any of cuDNN's " +
                        std::to_string(count) + " engine configurations for " +
                        what);
}

FuserStatus cuda::executePlan(cudnnHandle_t handle, const CudnnPlan &plan,
                              const std::vector<int64_t> &uids,
                              const std::vector<void *> &pointers,
                              void *workspace, const char *op) {
  CudnnDescriptor pack;
  auto count = static_cast<int64_t>(uids.size());
  cudnnStatus_t status =
      pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendSetAttribute(pack.get(),
                                      CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                      CUDNN_TYPE_INT64, count, uids.data());
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendSetAttribute(
        pack.get(), CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
        count, pointers.data());
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendSetAttribute(pack.get(),
                                      CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                      CUDNN_TYPE_VOID_PTR, 1, &workspace);
  if (status == CUDNN_STATUS_SUCCESS)
    status = cudnnBackendFinalize(pack.get());
  if (checkCudnn(status, op, "describing the variant pack"))
    return FUSER_FAILED;
  return checkCudnn(cudnnBackendExecute(handle, plan.plan.get(), pack.get()),
                    op, "cudnnBackendExecute");
}
