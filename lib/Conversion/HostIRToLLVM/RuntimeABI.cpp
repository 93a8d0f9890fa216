//===- RuntimeABI.cpp - compiler values as the runtime's C enums ---------===//

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"

using namespace mlir;

std::optional<FuserDType> mlir::fuser::getRuntimeDType(Type elementType) {
  if (elementType.isF32())
    return FUSER_F32;
  if (elementType.isF16())
    return FUSER_F16;
  if (elementType.isBF16())
    return FUSER_BF16;
  if (elementType.isF64())
    return FUSER_F64;
  if (elementType.isSignlessInteger(64))
    return FUSER_I64;
  if (elementType.isSignlessInteger(32))
    return FUSER_I32;
  if (elementType.isSignlessInteger(8))
    return FUSER_I8;
  if (elementType.isSignlessInteger(1))
    return FUSER_I1;
  return std::nullopt;
}

FuserReduction mlir::fuser::getRuntimeReduction(ReductionKind kind) {
  switch (kind) {
  case ReductionKind::Sum:
    return FUSER_SUM;
  case ReductionKind::Prod:
    return FUSER_PROD;
  case ReductionKind::Max:
    return FUSER_MAX;
  case ReductionKind::Min:
    return FUSER_MIN;
  case ReductionKind::Avg:
    return FUSER_AVG;
  }
  llvm_unreachable("not a ReductionKind");
}

FuserMemory mlir::fuser::getRuntimeMemory(hostir::MemoryKind kind) {
  switch (kind) {
  case hostir::MemoryKind::Device:
    return FUSER_MEMORY_DEVICE;
  case hostir::MemoryKind::Host:
    return FUSER_MEMORY_HOST;
  case hostir::MemoryKind::Symmetric:
    return FUSER_MEMORY_SYMMETRIC;
  }
  llvm_unreachable("not a MemoryKind");
}

FuserBackend mlir::fuser::getRuntimeBackend(HostTarget target) {
  switch (target) {
  case HostTarget::CPU:
    return FUSER_BACKEND_HOST;
  case HostTarget::CUDA:
    return FUSER_BACKEND_CUDA;
  }
  llvm_unreachable("not a HostTarget");
}
