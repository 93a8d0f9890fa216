//===- NoCudnn.cpp - fused attention of a runtime built without cuDNN -----===//
//
// The CUDA backend's sdpa calls run on cuDNN (CudnnAttention.cpp); where
// CMake did not find it (FUSER_ENABLE_CUDNN), they fail, saying why.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

static FuserStatus failWithoutCudnn(const char *op) {
  return fail(std::string(op) +
              ": this runtime was built without cuDNN, which the CUDA "
              "backend's fused attention runs on (configure with "
              "FUSER_ENABLE_CUDNN=ON and cuDNN 9 in the CUDA toolkit, in "
              "PyTorch's nvidia.cudnn package or under CUDNN_ROOT)");
}

FuserStatus CudaBackend::sdpaForward(const FuserBuffer &, const FuserBuffer &,
                                     const FuserBuffer &, const FuserBuffer &,
                                     const FuserBuffer &,
                                     const AttentionOptions &) {
  return failWithoutCudnn("hostir.sdpa_forward");
}

FuserStatus CudaBackend::sdpaBackward(
    const FuserBuffer &, const FuserBuffer &, const FuserBuffer &,
    const FuserBuffer &, const FuserBuffer &, const FuserBuffer &,
    const FuserBuffer &, const FuserBuffer &, const FuserBuffer &,
    const AttentionOptions &) {
  return failWithoutCudnn("hostir.sdpa_backward");
}
