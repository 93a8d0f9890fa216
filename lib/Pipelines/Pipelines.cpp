//===- Pipelines.cpp - named pass pipelines -------------------------------===//

#include "fuser/Pipelines/Pipelines.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
namespace passes = mlir::fuser;

void ::fuser::buildFuserToHostIRPipeline(
    OpPassManager &pm, const ::fuser::FuserToHostIRPipelineOptions &options) {
  OpPassManager &functions = pm.nest<func::FuncOp>();
  functions.addPass(passes::createVerifyProgramSignature());
  functions.addPass(passes::createPropagateShardings());
  passes::DecomposeReshardingsOptions decompose;
  decompose.reshardPlacement = options.reshardPlacement;
  functions.addPass(passes::createDecomposeReshardings(decompose));
  passes::ExposePipelinedAxesOptions expose;
  expose.pipelining = options.pipelining;
  expose.backend = options.backend;
  expose.calibration = options.pipeliningCalibration;
  expose.ranksPerNode = options.ranksPerNode;
  functions.addPass(passes::createExposePipelinedAxes(expose));
  functions.addPass(passes::createReorderShardedAxis());
  functions.addPass(passes::createMarkAliases());
  functions.addPass(passes::createInferAllocationOrder());
  functions.addPass(passes::createFinalizeLayouts());
  functions.addPass(passes::createFuseLibraryEpilogues());
  pm.addPass(passes::createSegment());
  passes::VerifyStageOptions segmented;
  segmented.stage = passes::CompilerStage::Segmented;
  pm.addNestedPass<func::FuncOp>(passes::createVerifyStage(segmented));
  passes::ConvertFuserToHostIROptions lower;
  lower.backend = options.backend;
  lower.pipelining = options.pipelining;
  pm.addPass(passes::createConvertFuserToHostIR(lower));
  mlir::hostir::AssignStreamsOptions assign;
  assign.streams = options.streams;
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createAssignStreams(assign));
  if (options.cacheAllocations)
    pm.addPass(mlir::hostir::createCacheAllocations());
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createPlaceDeallocations());
  pm.addNestedPass<func::FuncOp>(mlir::hostir::createVerifyHostProgram());
}

void ::fuser::buildKernelsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(passes::createConvertFuserToLinalg());
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
  passes::ConvertHostIRToLLVMOptions lower;
  lower.target = target;
  pm.addPass(passes::createConvertHostIRToLLVM(lower));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace fuser {
std::string defaultCudaPath() {
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return "/usr/local/cuda";
}
} // namespace fuser

void ::fuser::buildKernelsToPTXPipeline(OpPassManager &pm,
                                        const GPUKernelOptions &options) {
  pm.addPass(passes::createConvertFuserToLinalg());
  pm.addPass(passes::createCopiesToKernels());
  passes::ChooseGPUKernelSchedulesOptions choose;
  choose.chip = options.chip;
  pm.addPass(passes::createChooseGPUKernelSchedules(choose));
  passes::EmitGPUKernelsOptions emit;
  emit.chip = options.chip;
  pm.addPass(passes::createEmitGPUKernels(emit));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createLowerAffinePass());
  // The NVVM conversion takes branches, not structured control flow.
  kernels.addPass(createSCFToControlFlowPass());
  // Strided views become descriptor arithmetic, in affine maps again.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(passes::createContractKernelArithmetic());
  // Lane groups are read and written whole, at addresses the emitter made
  // multiples of their size (checked at run time where strides are not
  // static): their natural alignment is what makes them one 16-byte access
  // instead of one per element.
  ConvertVectorToLLVMPassOptions vectors;
  vectors.useVectorAlignment = true;
  kernels.addPass(createConvertVectorToLLVMPass(vectors));
  // Kernel parameters are pointers to each buffer's first element.
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.ptxFeatures;
  target.optLevel = 3;
  // Math functions come from libdevice; fuser-verify-kernel-binary reports
  // them when it is missing.
  llvm::SmallString<128> libdevice(options.cudaPath);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (llvm::sys::fs::exists(libdevice))
    target.linkLibs.push_back(std::string(libdevice));
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(passes::createVerifyKernelBinary());
}

void ::fuser::buildCPUToLLVMPipeline(OpPassManager &pm) {
  buildKernelsToLLVMPipeline(pm);
  buildHostToLLVMPipeline(pm, passes::HostTarget::CPU);
}

void ::fuser::buildCUDAToLLVMPipeline(OpPassManager &pm,
                                      const GPUKernelOptions &options) {
  buildKernelsToPTXPipeline(pm, options);
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
  PassPipelineRegistration<::fuser::GPUKernelOptions>(
      "fuser-kernels-to-ptx",
      "Compile the kernel module for GPUs: linalg, a schedule per kernel "
      "(fuser-choose-gpu-kernel-schedules, fuser-emit-gpu-kernels), NVVM, "
      "and PTX in a gpu.binary",
      ::fuser::buildKernelsToPTXPipeline);
  PassPipelineRegistration<::fuser::GPUKernelOptions>(
      "fuser-cuda-to-llvm",
      "Compile host programs and their kernels for GPUs: kernels to PTX "
      "(fuser-kernels-to-ptx), host programs to the LLVM dialect calling "
      "the runtime's CUDA backend, which loads the PTX and launches them",
      ::fuser::buildCUDAToLLVMPipeline);
}
