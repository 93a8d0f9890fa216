//===- ScheduleGPUKernels.cpp - kernels on tensors to scheduled gpu.funcs -===//

#include "Schedules.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SCHEDULEGPUKERNELS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kWarpSize = 32;

/// How a kernel buffer is passed: the caller passes the address of its
/// first element, so a layout the compiler knows becomes the parameter's
/// type (offset 0); strides known only at run time follow as index
/// parameters, and the kernel rebuilds the view from a one-element buffer.
struct BufferParameter {
  MemRefType parameter;
  /// The strides passed as index parameters (dims of the buffer).
  SmallVector<int64_t> dynamicStrides;
};

static FailureOr<BufferParameter> bufferParameter(MemRefType type) {
  if (!type.hasStaticShape())
    return failure();
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

/// Ops whose elements the emitter computes, and the scalar code the
/// kernel prepares for them.
static bool isComputable(Operation *op) {
  return isa<bufferization::ToTensorOp, linalg::GenericOp, linalg::FillOp,
             linalg::TransposeOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::EmptyOp,
             bufferization::MaterializeInDestinationOp, func::ReturnOp,
             arith::ConstantOp>(op);
}

/// Scalar code at the top of the kernel (index arithmetic on its scalar
/// arguments, constants): cloned once into the gpu.func.
static bool isScalarPrelude(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         !op->hasTrait<mlir::OpTrait::IsTerminator>() &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<ShapedType>(type); });
}

namespace {
struct ScheduleGPUKernelsPass
    : public mlir::fuser::impl::ScheduleGPUKernelsBase<ScheduleGPUKernelsPass> {
  void runOnOperation() override;

  /// The gpu.func of `function` in `gpuModule`, or a diagnostic.
  FailureOr<LaunchShape> schedule(func::FuncOp function,
                                  gpu::GPUModuleOp gpuModule);
};
} // namespace

FailureOr<LaunchShape>
ScheduleGPUKernelsPass::schedule(func::FuncOp function,
                                 gpu::GPUModuleOp gpuModule) {
  Location loc = function.getLoc();
  if (function.isExternal())
    return function.emitError("kernel @")
           << function.getName() << " has no body to compile for GPUs";
  SmallVector<Type> parameters;
  SmallVector<std::optional<BufferParameter>> buffers;
  for (auto [position, type] : llvm::enumerate(function.getArgumentTypes())) {
    auto buffer = dyn_cast<MemRefType>(type);
    if (!buffer) {
      parameters.push_back(type);
      buffers.push_back(std::nullopt);
      continue;
    }
    FailureOr<BufferParameter> passed = bufferParameter(buffer);
    if (failed(passed))
      return function.emitError("kernel argument #")
             << position << " has type " << type
             << ": GPU kernels take buffers of static shape";
    parameters.push_back(passed->parameter);
    buffers.push_back(*passed);
  }
  for (const auto &passed : buffers)
    if (passed)
      parameters.append(passed->dynamicStrides.size(),
                        IndexType::get(function.getContext()));
  Kernel kernel;
  kernel.function = function;
  for (Operation &op : function.getBody().front()) {
    if (!isComputable(&op) && !isScalarPrelude(&op))
      return op.emitOpError("has no GPU code generation (in kernel @")
             << function.getName() << ")";
    if (auto output = dyn_cast<bufferization::MaterializeInDestinationOp>(op))
      kernel.outputs.push_back({output.getSource(), output.getDest()});
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && generic.getNumReductionLoops() > 0)
      kernel.reductions.push_back(generic);
  }

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
  Operation *prelude = entry.empty() ? nullptr : &entry.back();

  // The most specific schedule that handles the kernel wins.
  unsigned attributions = gpuFunction.getNumWorkgroupAttributions();
  for (auto emit : {emitRowSchedule, emitOuterReductionSchedule,
                    emitTransposeSchedule, emitPointwiseSchedule}) {
    FailureOr<LaunchShape> launch = emit(kernel, builder);
    if (succeeded(launch)) {
      gpu::ReturnOp::create(builder, loc);
      gpuFunction.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
          {static_cast<int32_t>(launch->threads), 1, 1}));
      return launch;
    }
    // Start over after what the failed schedule built: its ops, then the
    // shared memory they used.
    while (!entry.empty() && &entry.back() != prelude)
      entry.back().erase();
    while (gpuFunction.getNumWorkgroupAttributions() > attributions) {
      unsigned last = gpuFunction.getNumWorkgroupAttributions() - 1;
      entry.eraseArgument(gpuFunction.getFirstWorkgroupAttributionIndex() + last);
      gpuFunction->setAttr(
          gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
          builder.getI64IntegerAttr(last));
    }
    builder.setInsertionPointToEnd(&entry);
  }
  return function.emitError("no GPU schedule computes kernel @")
         << function.getName();
}

/// Whether the copy engine moves `type`'s elements: rows contiguous in
/// memory (its last stride 1).
static bool copyEngineMoves(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  return strides.empty() || strides.back() == 1;
}

/// Copies the copy engine cannot make (one side transposed, or repeating
/// data) become kernels: a copy kernel gets the transpose schedule.
static void copiesToKernels(ModuleOp program) {
  SmallVector<hostir::CopyOp> copies;
  program.walk([&](hostir::CopyOp copy) {
    auto source = cast<MemRefType>(copy.getSource().getType());
    auto target = cast<MemRefType>(copy.getTarget().getType());
    if ((!copyEngineMoves(source) || !copyEngineMoves(target)) &&
        source.hasStaticShape() && target.hasStaticShape())
      copies.push_back(copy);
  });
  if (copies.empty())
    return;
  ModuleOp kernels = getOrCreateKernelModule(program);
  SymbolTable symbols(kernels);
  for (hostir::CopyOp copy : copies) {
    Location loc = copy.getLoc();
    OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
    auto function = func::FuncOp::create(
        builder, loc, "copy",
        builder.getFunctionType(copy->getOperandTypes(), {}));
    symbols.insert(function);
    Block *body = function.addEntryBlock();
    builder.setInsertionPointToStart(body);
    auto source = cast<MemRefType>(copy.getSource().getType());
    Value read = bufferization::ToTensorOp::create(
        builder, loc,
        RankedTensorType::get(source.getShape(), source.getElementType()),
        body->getArgument(0), /*restrict=*/true);
    auto write = bufferization::MaterializeInDestinationOp::create(
        builder, loc, read, body->getArgument(1));
    write.setRestrict(true);
    write.setWritable(true);
    func::ReturnOp::create(builder, loc);
    // The grid and block are the schedule's, set below.
    OpBuilder host(copy);
    Value one = arith::ConstantIndexOp::create(host, loc, 1);
    hostir::LaunchOp::create(
        host, loc,
        SymbolRefAttr::get(kernels.getSymNameAttr(),
                           FlatSymbolRefAttr::get(function.getSymNameAttr())),
        one, one, one, one, one, one, copy->getOperands(), Value());
    copy.erase();
  }
}

void ScheduleGPUKernelsPass::runOnOperation() {
  ModuleOp program = getOperation();
  copiesToKernels(program);
  ModuleOp kernels = lookupKernelModule(program);
  if (!kernels)
    return;
  OpBuilder builder(kernels);
  auto gpuModule =
      gpu::GPUModuleOp::create(builder, kernels.getLoc(), "kernels_gpu");
  llvm::StringMap<LaunchShape> launches;
  llvm::StringMap<SmallVector<SmallVector<int64_t>>> runTimeStrides;
  for (auto function : kernels.getOps<func::FuncOp>()) {
    FailureOr<LaunchShape> launch = schedule(function, gpuModule);
    if (failed(launch))
      return signalPassFailure();
    launches[function.getName()] = *launch;
    auto &strides = runTimeStrides[function.getName()];
    for (Type type : function.getArgumentTypes()) {
      auto buffer = dyn_cast<MemRefType>(type);
      strides.push_back(buffer ? bufferParameter(buffer)->dynamicStrides
                               : SmallVector<int64_t>());
    }
  }
  // Warp reductions become shuffles here, so that the schedule's
  // instructions show at the gpu level.
  RewritePatternSet patterns(&getContext());
  populateGpuLowerSubgroupReduceToShufflePatterns(patterns, kWarpSize);
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
    launch.getGridXMutable().assign(constant(found->second.blocks));
    launch.getGridYMutable().assign(one);
    launch.getGridZMutable().assign(one);
    launch.getBlockXMutable().assign(constant(found->second.threads));
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
