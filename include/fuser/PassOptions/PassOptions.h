//===- PassOptions.h - choices of the compiler's pass options ---*- C++ -*-===//
//
// The enum-valued options (PassOptions.td) and their command-line choices,
// which Passes.td, the pipeline options and the tools share.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_PASSOPTIONS_PASSOPTIONS_H
#define FUSER_PASSOPTIONS_PASSOPTIONS_H

#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "llvm/Support/CommandLine.h"

#include "fuser/PassOptions/PassOptionEnums.h.inc"

namespace mlir::fuser {

/// The plan `policy` names for every pipeline; none for `auto`, where the
/// cost model plans each.
std::optional<Pipelining> getFixedPipelining(PipeliningPolicy policy);

/// `--backend`: nccl, mpi or cuda_ipc.
llvm::cl::ValuesClass backendChoices();
/// `--pipelining`: auto, none, collective or ring.
llvm::cl::ValuesClass pipeliningChoices();
/// `--reshard-placement`: auto, before or after.
llvm::cl::ValuesClass reshardPlacementChoices();
/// `--stage` of fuser-verify-stage: propagated, decomposed, laid-out or
/// segmented.
llvm::cl::ValuesClass compilerStageChoices();
/// `--vjp-save`: library-calls or all.
llvm::cl::ValuesClass savedValuesChoices();
/// `--target`: cpu or cuda.
llvm::cl::ValuesClass hostTargetChoices();

} // namespace mlir::fuser

#endif // FUSER_PASSOPTIONS_PASSOPTIONS_H
