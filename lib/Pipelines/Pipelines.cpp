//===- Pipelines.cpp - named pass pipelines -------------------------------===//

#include "fuser/Pipelines/Pipelines.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
namespace passes = mlir::fuser;

void ::fuser::buildFuserToHostIRPipeline(
    OpPassManager &pm, const ::fuser::FuserToHostIRPipelineOptions &options) {
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(passes::createPropagateShardings());
  passes::DecomposeReshardingsOptions decompose;
  decompose.reshardPlacement = options.reshardPlacement;
  functions.addPass(passes::createDecomposeReshardings(decompose));
  functions.addPass(passes::createExposePipelinedAxes());
  functions.addPass(passes::createReorderShardedAxis());
  functions.addPass(passes::createMarkAliases());
  functions.addPass(passes::createInferAllocationOrder());
  functions.addPass(passes::createFinalizeLayouts());
  pm.addPass(passes::createSegment());
  passes::VerifyStageOptions segmented;
  segmented.stage = "segmented";
  pm.addNestedPass<func::FuncOp>(passes::createVerifyStage(segmented));
  passes::LowerFuserToHostIROptions lower;
  lower.backend = options.backend;
  lower.pipelining = options.pipelining;
  pm.addPass(passes::createLowerFuserToHostIR(lower));
  mlir::hostir::AssignStreamsOptions assign;
  assign.streams = options.streams;
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createAssignStreams(assign));
  if (options.cacheAllocations)
    pm.addPass(mlir::hostir::createCacheAllocations());
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createPlaceDeallocations());
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createVerifyHostProgram());
}

void ::fuser::buildKernelsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(passes::createLowerKernelsToLinalg());
  // The kernel module is the one module nested in the program's.
  OpPassManager &kernels = pm.nest<ModuleOp>();
  // Fused chains write straight into the kernel's output buffers; what
  // still needs a temporary is freed after its last use.
  kernels.addPass(createLinalgElementwiseOpFusionPass());
  kernels.addPass(bufferization::createEmptyTensorEliminationPass());
  kernels.addPass(bufferization::createOneShotBufferizePass());
  bufferization::buildBufferDeallocationPipeline(kernels);
  kernels.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertMathToLibmPass());
  kernels.addPass(createConvertMathToLLVMPass());
  // bf16 conversions become integer arithmetic: as LLVM instructions they
  // need a compiler-runtime helper (__truncsfbf2) on CPUs without bf16
  // support, which libgcc before GCC 13 does not provide.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expand));
  kernels.addPass(createArithToLLVMConversionPass());
  kernels.addPass(createFinalizeMemRefToLLVMConversionPass());
  kernels.addPass(createConvertControlFlowToLLVMPass());
  kernels.addPass(createConvertFuncToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void ::fuser::buildHostToLLVMPipeline(OpPassManager &pm,
                                      passes::HostTarget target) {
  // Chunk views become subviews, then descriptor arithmetic; loops become
  // branches: what the host lowering converts along with the hostir ops.
  OpPassManager &programs = pm.nest<func::FuncOp>();
  programs.addPass(mlir::hostir::createExpandAliasSelects());
  programs.addPass(createSCFToControlFlowPass());
  programs.addPass(memref::createExpandStridedMetadataPass());
  programs.addPass(createLowerAffinePass());
  passes::LowerHostToLLVMOptions lower;
  lower.target = target;
  pm.addPass(passes::createLowerHostToLLVM(lower));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void ::fuser::buildCPUToLLVMPipeline(OpPassManager &pm) {
  buildKernelsToLLVMPipeline(pm);
  buildHostToLLVMPipeline(pm, passes::HostTarget::CPU);
}

void ::fuser::buildCUDAHostToLLVMPipeline(OpPassManager &pm) {
  buildHostToLLVMPipeline(pm, passes::HostTarget::CUDA);
}

void ::fuser::registerFuserPipelines() {
  PassPipelineRegistration<::fuser::FuserToHostIRPipelineOptions>(
      "fuser-to-hostir-pipeline",
      "Compile annotated fuser functions to host programs (propagate, "
      "decompose, lay out, segment, lower, cache and free buffers)",
      ::fuser::buildFuserToHostIRPipeline);
  PassPipelineRegistration<>(
      "fuser-kernels-to-llvm",
      "Compile the kernel module for CPU ranks (linalg, bufferization, loops, "
      "LLVM dialect)",
      ::fuser::buildKernelsToLLVMPipeline);
  PassPipelineRegistration<>(
      "fuser-cpu-to-llvm",
      "Compile host programs and their kernels for CPU ranks to the LLVM "
      "dialect (kernels as fuser-kernels-to-llvm, host programs as calls "
      "into the runtime)",
      ::fuser::buildCPUToLLVMPipeline);
  PassPipelineRegistration<>(
      "fuser-cuda-host-to-llvm",
      "Compile host programs for GPUs to the LLVM dialect (calls into the "
      "runtime's CUDA backend; programs that launch kernels are refused "
      "until kernels get GPU code generation)",
      ::fuser::buildCUDAHostToLLVMPipeline);
}
