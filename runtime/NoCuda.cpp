//===- NoCuda.cpp - the CUDA backend of a runtime built without it -------===//

#include "Backend.h"
#include "Internal.h"

std::unique_ptr<fuser::runtime::Backend> fuser::runtime::createCudaBackend() {
  fail("this runtime was built without the CUDA backend (CMake found no CUDA "
       "toolkit with NCCL); rebuild it where they are installed");
  return nullptr;
}
