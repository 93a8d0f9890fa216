//===- PassOptions.cpp - choices of the compiler's pass options ----------===//

#include "fuser/PassOptions/PassOptions.h"

#include "fuser/PassOptions/PassOptionEnums.cpp.inc"

using namespace mlir;
using namespace mlir::fuser;

std::optional<Pipelining>
mlir::fuser::getFixedPipelining(PipeliningPolicy policy) {
  switch (policy) {
  case PipeliningPolicy::Auto:
    return std::nullopt;
  case PipeliningPolicy::None:
    return Pipelining::None;
  case PipeliningPolicy::Collective:
    return Pipelining::Collective;
  case PipeliningPolicy::Ring:
    return Pipelining::Ring;
  }
  llvm_unreachable("not a PipeliningPolicy");
}

/// `value` as a command-line choice named by its keyword in ODS.
template <typename Enum>
static llvm::cl::OptionEnumValue choice(Enum value, StringRef description) {
  return {stringifyEnum(value), static_cast<int>(value), description};
}

llvm::cl::ValuesClass mlir::fuser::backendChoices() {
  return {choice(hostir::Backend::NCCL, "NCCL collectives and send/recv"),
          choice(hostir::Backend::MPI, "MPI (CPU ranks)"),
          choice(hostir::Backend::CudaIpc,
                 "CUDA IPC copies move the blocks of ring pipelines; every "
                 "other communication posts on NCCL")};
}

llvm::cl::ValuesClass mlir::fuser::pipeliningChoices() {
  return {choice(PipeliningPolicy::Auto,
                 "a cost model chooses, with the chunk count"),
          choice(PipeliningPolicy::None, "each group runs whole"),
          choice(PipeliningPolicy::Collective, "one collective per chunk"),
          choice(PipeliningPolicy::Ring,
                 "point-to-point steps between team members")};
}

llvm::cl::ValuesClass mlir::fuser::reshardPlacementChoices() {
  return {choice(ReshardPlacement::Auto,
                 "whichever moves fewer elements (after on a tie)"),
          choice(ReshardPlacement::Before, "convert the op's operands"),
          choice(ReshardPlacement::After,
                 "convert the op's result, when its operands agree")};
}

llvm::cl::ValuesClass mlir::fuser::compilerStageChoices() {
  return {choice(CompilerStage::Propagated, "every tensor has a sharding"),
          choice(CompilerStage::Decomposed,
                 "also, every placement change is a communication"),
          choice(CompilerStage::LaidOut,
                 "also, communication buffers are laid out for the library"),
          choice(CompilerStage::Segmented,
                 "also, every op is a kernel, library call, communication "
                 "or view")};
}

llvm::cl::ValuesClass mlir::fuser::hostTargetChoices() {
  return {choice(HostTarget::CPU, "CPU ranks (the runtime's host backend)"),
          choice(HostTarget::CUDA,
                 "one GPU per rank (the runtime's CUDA backend)")};
}

llvm::cl::ValuesClass mlir::fuser::savedValuesChoices() {
  return {choice(SavedValues::LibraryCalls,
                 "the inputs, products, attention and data movements the "
                 "backward reads; it recomputes the rest from them"),
          choice(SavedValues::All, "every forward value the backward reads")};
}
