//===- CudaErrors.cpp - CUDA, cuBLAS and NCCL failures as messages -------===//
//
// "hostir.<op>: <call> failed: <library's message>"; fuser_fail, which
// compiled programs call on a failure, adds the rank and ends every rank.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

using namespace fuser::runtime;

static FuserStatus failCall(const char *op, const char *call,
                            const std::string &message) {
  return fail(std::string(op) + ": " + call + " failed: " + message);
}

FuserStatus cuda::checkCuda(cudaError_t error, const char *op,
                            const char *call) {
  if (error == cudaSuccess)
    return FUSER_OK;
  // Clear the sticky state of errors that are not sticky, so that a later
  // call does not report this one again.
  cudaGetLastError();
  return failCall(op, call,
                  std::string(cudaGetErrorName(error)) + " (" +
                      cudaGetErrorString(error) + ")");
}

FuserStatus cuda::checkDriver(CUresult result, const char *op, const char *call,
                              const std::string &detail) {
  if (result == CUDA_SUCCESS)
    return FUSER_OK;
  static auto getErrorName = reinterpret_cast<decltype(&cuGetErrorName)>(
      findDriverEntryPoint("cuGetErrorName"));
  static auto getErrorString = reinterpret_cast<decltype(&cuGetErrorString)>(
      findDriverEntryPoint("cuGetErrorString"));
  const char *name = nullptr, *description = nullptr;
  std::string message =
      getErrorName && getErrorString &&
              getErrorName(result, &name) == CUDA_SUCCESS &&
              getErrorString(result, &description) == CUDA_SUCCESS
          ? std::string(name) + " (" + description + ")"
          : "CUDA driver error " + std::to_string(result);
  return failCall(op, call, detail.empty() ? message : message + "; " + detail);
}

FuserStatus cuda::checkNccl(ncclResult_t result, const char *op,
                            const char *call) {
  if (result == ncclSuccess)
    return FUSER_OK;
  std::string message = ncclGetErrorString(result);
  if (const char *detail = ncclGetLastError(nullptr); detail && *detail)
    message += std::string(": ") + detail;
  return failCall(op, call, message);
}

FuserStatus cuda::checkCublas(cublasStatus_t status, const char *op,
                              const char *call) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return FUSER_OK;
  return failCall(op, call,
                  std::string(cublasLtGetStatusName(status)) + " (" +
                      cublasLtGetStatusString(status) + ")");
}
