//===- CudaKernels.cpp - loading and launching the programs' GPU kernels -===//
//
// Programs compiled for GPUs embed their kernels as PTX text and launch
// them through fuser_launch_kernel. An image is loaded once per process
// (the driver compiles it for the GPU then), and each kernel is looked up
// once: the program keeps the function in a slot of its own, so that a
// launch in steady state is one cuLaunchKernel.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

#include <cstring>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
/// Bytes kept of the JIT compiler's log of an image that does not load.
constexpr size_t kJitLogBytes = 16384;

std::string describeLaunch(const char *kernel) {
  return std::string("hostir.launch of kernel '") + kernel + "'";
}

// The slots are read without the lock by every launch and written once
// under it (and cleared at release): atomic accesses, so that a thread
// sees either null or the finished function.
CUfunction loadSlot(void **function) {
  return static_cast<CUfunction>(__atomic_load_n(function, __ATOMIC_ACQUIRE));
}
void storeSlot(void **function, CUfunction value) {
  __atomic_store_n(function, static_cast<void *>(value), __ATOMIC_RELEASE);
}
} // namespace

FuserStatus CudaBackend::loadKernel(const char *image, const char *kernel,
                                    void **function) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  // Another thread may have loaded it since this one looked.
  if (loadSlot(function))
    return FUSER_OK;
  std::string op = describeLaunch(kernel);
  auto module = kernelModules.find(image);
  if (module == kernelModules.end()) {
    if (refuseWhileCapturing(op.c_str(), "loading the kernel's module",
                             kSetUpBeforeCapture))
      return FUSER_FAILED;
    // Driver calls act on the calling thread's current context: the
    // device's primary context, which the runtime API makes current.
    if (checkCuda(cudaSetDevice(device), op.c_str(), "cudaSetDevice"))
      return FUSER_FAILED;
    std::string log(kJitLogBytes, '\0');
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log.data(), reinterpret_cast<void *>(log.size())};
    CUmodule loaded = nullptr;
    if (CUresult result =
            driver.moduleLoadDataEx(&loaded, image, 2, options, values);
        result != CUDA_SUCCESS) {
      log.resize(std::strlen(log.c_str()));
      return checkDriver(result, op.c_str(), "cuModuleLoadDataEx",
                         log.empty() ? std::string() : "JIT log: " + log);
    }
    module = kernelModules.emplace(image, loaded).first;
  }
  CUfunction loaded = nullptr;
  if (checkDriver(driver.moduleGetFunction(&loaded, module->second, kernel),
                  op.c_str(), "cuModuleGetFunction"))
    return FUSER_FAILED;
  storeSlot(function, loaded);
  kernelSlots.push_back(function);
  return FUSER_OK;
}

FuserStatus CudaBackend::launchKernel(const char *image, const char *kernel,
                                      void **function, const int64_t grid[3],
                                      const int64_t block[3],
                                      void **parameters) {
  if (!loadSlot(function) && loadKernel(image, kernel, function))
    return FUSER_FAILED;
  // The check's name is built only while capturing: launches are hot.
  if (capture && checkCapturedStream(describeLaunch(kernel).c_str()))
    return FUSER_FAILED;
  CUresult result = driver.launchKernel(
      loadSlot(function), grid[0], grid[1], grid[2], block[0], block[1],
      block[2], /*sharedMemBytes=*/0, getStream(), parameters,
      /*extra=*/nullptr);
  if (result == CUDA_SUCCESS)
    return FUSER_OK;
  return checkDriver(result, describeLaunch(kernel).c_str(), "cuLaunchKernel");
}

void CudaBackend::unloadKernelModules() {
  std::lock_guard<std::mutex> lock(kernelMutex);
  // A program run after the next start must load its kernels again.
  for (void **slot : kernelSlots)
    storeSlot(slot, nullptr);
  kernelSlots.clear();
  for (auto &[image, module] : kernelModules)
    driver.moduleUnload(module);
  kernelModules.clear();
}
