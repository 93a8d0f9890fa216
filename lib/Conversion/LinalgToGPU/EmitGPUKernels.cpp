//===- EmitGPUKernels.cpp - kernels on tensors to scheduled gpu.funcs -----===//
//
// Each kernel function becomes the gpu.func its #fuser.gpu_schedule
// describes. The schedule is checked against the kernel first
// (verifyGPUSchedule), so emission follows it without trying others.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "fuser/Conversion/LinalgToGPU/GPUKernelSchedules.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_EMITGPUKERNELS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::gpu_schedule;

/// How a kernel buffer is passed: the caller passes the address of its
/// first element, so a layout the compiler knows becomes the parameter's
/// type (offset 0); strides known only at run time follow as index
/// parameters, and the kernel rebuilds the view from a one-element buffer.
struct BufferParameter {
  MemRefType parameter;
  /// The strides passed as index parameters (dims of the buffer).
  SmallVector<int64_t> dynamicStrides;
};

/// `type` has a static shape (the kernel analysis checked).
static BufferParameter bufferParameter(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  BufferParameter passed;
  for (auto [dim, stride] : llvm::enumerate(strides))
    if (ShapedType::isDynamic(stride))
      passed.dynamicStrides.push_back(dim);
  if (!passed.dynamicStrides.empty()) {
    passed.parameter = MemRefType::get({1}, type.getElementType());
    return passed;
  }
  MemRefType rowMajor =
      MemRefType::get(type.getShape(), type.getElementType());
  auto [rowMajorStrides, zero] = rowMajor.getStridesAndOffset();
  passed.parameter =
      ArrayRef(strides) == ArrayRef(rowMajorStrides)
          ? rowMajor
          : MemRefType::get(type.getShape(), type.getElementType(),
                            StridedLayoutAttr::get(type.getContext(),
                                                   /*offset=*/0, strides));
  return passed;
}

/// The view a buffer parameter with run-time strides stands for.
static MemRefType viewType(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  return MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), /*offset=*/0, strides));
}

/// The schedule's emitter.
static LogicalResult emitSchedule(Kernel &kernel, OpBuilder &builder) {
  switch (kernel.schedule.getKind()) {
  case GPUScheduleKind::Rows:
    return emitRowSchedule(kernel, builder);
  case GPUScheduleKind::OuterReduction:
    return emitOuterReductionSchedule(kernel, builder);
  case GPUScheduleKind::Transpose:
    return emitTransposeSchedule(kernel, builder);
  case GPUScheduleKind::Pointwise:
    return emitPointwiseSchedule(kernel, builder);
  }
  llvm_unreachable("every schedule kind has an emitter");
}

namespace {
struct EmitGPUKernelsPass
    : public mlir::fuser::impl::EmitGPUKernelsBase<EmitGPUKernelsPass> {
  using Base::Base;
  void runOnOperation() override;

  /// The gpu.func of `function` in `gpuModule`, or a diagnostic.
  LogicalResult emit(func::FuncOp function, gpu::GPUModuleOp gpuModule,
                     const GPUTarget &target);
};
} // namespace

LogicalResult EmitGPUKernelsPass::emit(func::FuncOp function,
                                       gpu::GPUModuleOp gpuModule,
                                       const GPUTarget &target) {
  Location loc = function.getLoc();
  auto schedule = function->getAttrOfType<GPUScheduleAttr>(
      FuserDialect::getGPUScheduleAttrName());
  if (!schedule)
    return function.emitError("kernel @")
           << function.getName()
           << " has no #fuser.gpu_schedule (fuser-choose-gpu-kernel-schedules "
              "chooses one)";
  FailureOr<KernelStructure> structure = analyzeKernel(function);
  if (failed(structure) ||
      failed(verifyScheduleFits(function, *structure, schedule, target)))
    return failure();
  SmallVector<Type> parameters;
  SmallVector<std::optional<BufferParameter>> buffers;
  for (Type type : function.getArgumentTypes()) {
    auto buffer = dyn_cast<MemRefType>(type);
    if (!buffer) {
      parameters.push_back(type);
      buffers.push_back(std::nullopt);
      continue;
    }
    BufferParameter passed = bufferParameter(buffer);
    parameters.push_back(passed.parameter);
    buffers.push_back(passed);
  }
  for (const auto &passed : buffers)
    if (passed)
      parameters.append(passed->dynamicStrides.size(),
                        IndexType::get(function.getContext()));
  Kernel kernel{*structure, schedule, target};

  OpBuilder builder(gpuModule.getBodyRegion());
  builder.setInsertionPointToEnd(gpuModule.getBody());
  auto gpuFunction = gpu::GPUFuncOp::create(
      builder, loc, function.getName(),
      builder.getFunctionType(parameters, {}));
  gpuFunction->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                       builder.getUnitAttr());
  kernel.gpuFunction = gpuFunction;
  Block &entry = gpuFunction.getBody().front();
  builder.setInsertionPointToStart(&entry);
  unsigned nextStride = function.getNumArguments();
  for (auto [argument, parameter, passed] :
       llvm::zip(function.getArguments(), entry.getArguments(), buffers)) {
    if (!passed || passed->dynamicStrides.empty()) {
      kernel.values.map(argument, parameter);
      continue;
    }
    auto type = cast<MemRefType>(argument.getType());
    MemRefType view = viewType(type);
    SmallVector<OpFoldResult> strides;
    auto [staticStrides, offset] = type.getStridesAndOffset();
    for (int64_t stride : staticStrides)
      strides.push_back(ShapedType::isDynamic(stride)
                            ? OpFoldResult(entry.getArgument(nextStride++))
                            : OpFoldResult(builder.getIndexAttr(stride)));
    SmallVector<OpFoldResult> sizes = llvm::map_to_vector(
        type.getShape(),
        [&](int64_t size) -> OpFoldResult { return builder.getIndexAttr(size); });
    kernel.values.map(argument, memref::ReinterpretCastOp::create(
                                    builder, loc, view, parameter,
                                    builder.getIndexAttr(0), sizes, strides));
  }
  for (Operation &op : function.getBody().front())
    if (isScalarPrelude(&op))
      builder.clone(op, kernel.values);
  // The schedule fits the kernel, and the analysis found every value
  // computable: a failure here is a disagreement between the two.
  if (failed(emitSchedule(kernel, builder)))
    return function.emitError("schedule ")
           << schedule << " was checked for kernel @" << function.getName()
           << " but could not be emitted; please report this kernel";
  gpu::ReturnOp::create(builder, loc);
  gpuFunction.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(schedule.getThreads()), 1, 1}));
  return success();
}

void EmitGPUKernelsPass::runOnOperation() {
  ModuleOp program = getOperation();
  ModuleOp kernels = lookupKernelModule(program);
  if (!kernels)
    return;
  FailureOr<GPUTarget> target = GPUTarget::fromOptions(program, chip);
  if (failed(target))
    return signalPassFailure();
  OpBuilder builder(kernels);
  auto gpuModule =
      gpu::GPUModuleOp::create(builder, kernels.getLoc(), "kernels_gpu");
  llvm::StringMap<GPUScheduleAttr> launches;
  llvm::StringMap<SmallVector<SmallVector<int64_t>>> runTimeStrides;
  // Every kernel is checked, so that one run reports every misfit.
  bool failedAny = false;
  for (auto function : kernels.getOps<func::FuncOp>()) {
    if (failed(emit(function, gpuModule, *target))) {
      failedAny = true;
      continue;
    }
    launches[function.getName()] = function->getAttrOfType<GPUScheduleAttr>(
        FuserDialect::getGPUScheduleAttrName());
    auto &strides = runTimeStrides[function.getName()];
    for (Type type : function.getArgumentTypes()) {
      auto buffer = dyn_cast<MemRefType>(type);
      strides.push_back(buffer ? bufferParameter(buffer).dynamicStrides
                               : SmallVector<int64_t>());
    }
  }
  if (failedAny)
    return signalPassFailure();
  // Warp reductions become shuffles here, so that the schedule's
  // instructions show at the gpu level.
  RewritePatternSet patterns(&getContext());
  populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                  target->warpSize);
  if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
    return signalPassFailure();

  StringAttr name = kernels.getSymNameAttr();
  kernels.erase();
  gpuModule.setName(name);
  program->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                   builder.getUnitAttr());
  program.walk([&](hostir::LaunchOp launch) {
    auto found = launches.find(launch.getKernel().getLeafReference());
    if (launch.getKernel().getRootReference() != name ||
        found == launches.end())
      return;
    OpBuilder at(launch);
    auto constant = [&](int64_t value) {
      return arith::ConstantIndexOp::create(at, launch.getLoc(), value);
    };
    Value one = constant(1);
    launch.getGridXMutable().assign(constant(found->second.getBlocks()));
    launch.getGridYMutable().assign(one);
    launch.getGridZMutable().assign(one);
    launch.getBlockXMutable().assign(constant(found->second.getThreads()));
    launch.getBlockYMutable().assign(one);
    launch.getBlockZMutable().assign(one);
    // Strides known only at run time follow the arguments.
    SmallVector<Value> strides;
    for (auto [operand, dims] :
         llvm::zip(launch.getKernelOperands(),
                   runTimeStrides[found->first()])) {
      if (dims.empty())
        continue;
      auto metadata =
          memref::ExtractStridedMetadataOp::create(at, launch.getLoc(), operand);
      for (int64_t dim : dims)
        strides.push_back(metadata.getStrides()[dim]);
    }
    launch.getKernelOperandsMutable().append(strides);
  });
}
