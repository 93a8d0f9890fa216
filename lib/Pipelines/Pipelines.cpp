//===- Pipelines.cpp - named pass pipelines -------------------------------===//

#include "fuser/Pipelines/Pipelines.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

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

void ::fuser::registerFuserPipelines() {
  PassPipelineRegistration<::fuser::FuserToHostIRPipelineOptions>(
      "fuser-to-hostir-pipeline",
      "Compile annotated fuser functions to host programs (propagate, "
      "decompose, lay out, segment, lower, cache and free buffers)",
      ::fuser::buildFuserToHostIRPipeline);
}
