//===- Computations.cpp - kernel launches, library calls, returns --------===//
//
// A kernel segment becomes an allocation per output and a hostir.launch of
// the outlined kernel; a library call becomes hostir.matmul, hostir.linear,
// hostir.sdpa or hostir.sdpa_backward into allocated outputs; a return
// hands back buffers of the layouts the function's results state.
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

using namespace mlir;
using namespace mlir::fuser;

Value HostBuilder::shardOffset(Location loc, Value tensor, int64_t dim) {
  auto type = cast<RankedTensorType>(tensor.getType());
  ShardingAttr sharding = getSharding(tensor);
  if (!sharding || sharding.getDimAxes(dim).empty())
    return index(loc, 0);
  // The rank's block index along the dim: its team positions along the
  // dim's axes, outermost first, row-major.
  Value block = index(loc, 0);
  for (int64_t axis : sharding.getDimAxes(dim)) {
    Value size = index(loc, sharding.getMesh().getAxisSize(axis));
    Value position = hostir::TeamIndexOp::create(
        rewriter, loc, rewriter.getIndexType(),
        team(loc, sharding.getMesh(), axis));
    block = arith::AddIOp::create(
        rewriter, loc, arith::MulIOp::create(rewriter, loc, block, size),
        position);
  }
  int64_t blockSize = getLocalBufferType(type).getDimSize(dim);
  return arith::MulIOp::create(rewriter, loc, block, index(loc, blockSize));
}

/// hostir.sdpa or hostir.sdpa_backward for `op`, with the rank's batch and
/// head offsets, from which the dropout mask is drawn.
template <typename HostOp, typename AttentionOp>
static void emitAttention(HostBuilder &host, AttentionOp op,
                          HostBuilder::BufferFor bufferFor) {
  Location loc = op.getLoc();
  SmallVector<Value> operands;
  for (Value operand : op->getOperands())
    operands.push_back(bufferFor(operand));
  for (Value result : op->getResults())
    operands.push_back(bufferFor(result));
  operands.push_back(host.shardOffset(loc, op.getQuery(), 0));
  operands.push_back(host.shardOffset(loc, op.getQuery(), 1));
  Builder &builder = host.rewriter;
  NamedAttrList attributes;
  if (op.getCausal())
    attributes.append("causal", builder.getUnitAttr());
  attributes.append("scale", builder.getF64FloatAttr(op.getScaleOrDefault()));
  attributes.append("dropout_probability", op.getDropoutProbabilityAttr());
  attributes.append("seed", op.getSeedAttr());
  HostOp::create(host.rewriter, loc, TypeRange(), operands, attributes);
}

LogicalResult HostBuilder::emitLibraryCall(Operation *op, BufferFor bufferFor,
                                           bool accumulate) {
  Location loc = op->getLoc();
  if (auto sdpa = dyn_cast<SdpaOp>(op)) {
    emitAttention<hostir::SdpaOp>(*this, sdpa, bufferFor);
    return success();
  }
  if (auto backward = dyn_cast<SdpaBackwardOp>(op)) {
    emitAttention<hostir::SdpaBackwardOp>(*this, backward, bufferFor);
    return success();
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    hostir::MatmulOp::create(
        rewriter, loc, bufferFor(matmul.getLhs()), bufferFor(matmul.getRhs()),
        bufferFor(matmul.getResult()), accumulate, matmul.getActivationAttr());
    return success();
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    Value bias = linear.getBias() ? bufferFor(linear.getBias()) : Value();
    hostir::LinearOp::create(rewriter, loc, bufferFor(linear.getInput()),
                             bufferFor(linear.getWeight()), bias,
                             bufferFor(linear.getResult()), accumulate,
                             linear.getActivationAttr());
    return success();
  }
  return op->emitError("no host library call for this op");
}

LogicalResult HostBuilder::lowerLibraryCall(Operation *op) {
  for (Value result : op->getResults())
    map(result, allocate(op->getLoc(), result));
  return emitLibraryCall(op, [&](Value v) { return bufferOf(v); });
}

void HostBuilder::launch(Location loc, SymbolRefAttr kernel,
                         ValueRange arguments, int64_t elements) {
  // One thread per element, in blocks of 128; the code generator may tile
  // differently within that grid.
  constexpr int64_t threadsPerBlock = 128;
  Value one = index(loc, 1);
  hostir::LaunchOp::create(
      rewriter, loc, kernel,
      index(loc, (elements + threadsPerBlock - 1) / threadsPerBlock), one, one,
      index(loc, threadsPerBlock), one, one, arguments, Value());
}

/// Launches already lowered count too: a pattern sees the fuser.kernel ops
/// of its function until the conversion ends.
bool mlir::fuser::isLaunchedOnce(func::FuncOp kernel) {
  std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(
      kernel, kernel->getParentOfType<ModuleOp>()->getParentOp());
  return uses && llvm::count_if(*uses, [](SymbolTable::SymbolUse use) {
                   return isa<KernelOp, hostir::LaunchOp>(use.getUser());
                 }) == 1;
}

namespace {
/// fuser.kernel -> an allocation per output and hostir.launch.
struct KernelLaunchLowering : public HostOpLoweringPattern<KernelOp> {
  using HostOpLoweringPattern::HostOpLoweringPattern;

  LogicalResult lowerOp(KernelOp kernel, ArrayRef<Value> operands,
                        HostBuilder &host) const override {
    return host.lowerAndReplace(
        kernel, [&] { return emitLaunch(host, kernel, operands); });
  }

private:
  static LogicalResult emitLaunch(HostBuilder &host, KernelOp kernel,
                                  ValueRange inputs) {
    Location loc = kernel.getLoc();
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        kernel, kernel.getKernel());
    SmallVector<Value> arguments;
    for (auto [index, input] : llvm::enumerate(inputs))
      arguments.push_back(passToKernel(host, loc, input, callee, index));
    int64_t elements = 1;
    for (Value output : kernel.getOutputs()) {
      Value buffer = host.allocate(loc, output);
      host.map(output, buffer);
      arguments.push_back(buffer);
      auto type = cast<MemRefType>(buffer.getType());
      if (type.hasStaticShape())
        elements = std::max(elements, type.getNumElements());
    }
    // The kernel's remaining arguments are the rank's positions.
    for (unsigned index = arguments.size(), count = callee.getNumArguments();
         index < count; ++index) {
      auto position = callee.getArgAttrOfType<MeshPositionAttr>(
          index, FuserDialect::getMeshPositionAttrName());
      arguments.push_back(hostir::TeamIndexOp::create(
          host.rewriter, loc, host.rewriter.getIndexType(),
          host.team(loc, position.getMesh(), position.getAxis())));
    }
    host.launch(loc, kernel.getKernel(), arguments, elements);
    return success();
  }

  /// Segmentation gave each kernel parameter the layout its value's
  /// sharding states; the host program may hold a view of another layout
  /// (an all_slice's block of a larger buffer: an offset, the whole's
  /// strides). Kernels read any strided buffer, so a kernel launched from
  /// here only takes the view as it is (adoptLaunchedLayouts retypes its
  /// parameter after the conversion); a kernel other launches share reads
  /// a copy of the layout it expects instead.
  static Value passToKernel(HostBuilder &host, Location loc, Value buffer,
                            func::FuncOp kernel, unsigned index) {
    auto expected = cast<MemRefType>(kernel.getArgumentTypes()[index]);
    if (buffer.getType() == expected || isLaunchedOnce(kernel))
      return buffer;
    Value copy = host.allocate(loc, expected);
    hostir::CopyOp::create(host.rewriter, loc, buffer, copy);
    return copy;
  }
};

/// matmul, linear, sdpa and sdpa_backward -> their hostir library calls.
struct LibraryCallLowering : public HostLoweringPattern {
  LibraryCallLowering(MLIRContext *context, const HostProgram &program)
      : HostLoweringPattern(program, MatchTraitOpTypeTag(),
                            TypeID::get<mlir::fuser::OpTrait::LibraryCall>(),
                            /*benefit=*/1, context) {}

  LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                      HostBuilder &host) const override {
    if (program.isInGroup(op))
      return host.rewriter.notifyMatchFailure(op, "lowered with its group");
    return host.lowerAndReplace(op, [&] { return host.lowerLibraryCall(op); });
  }
};

/// A view whose layout is not the result's (a block of a buffer the program
/// owns) is returned as a copy of the result's own layout.
struct ReturnLowering : public HostOpLoweringPattern<func::ReturnOp> {
  using HostOpLoweringPattern::HostOpLoweringPattern;

  LogicalResult lowerOp(func::ReturnOp op, ArrayRef<Value> operands,
                        HostBuilder &host) const override {
    Location loc = op.getLoc();
    SmallVector<Value> results;
    for (auto [value, buffer] : llvm::zip_equal(op.getOperands(), operands)) {
      MemRefType wanted =
          getLocalBufferType(cast<RankedTensorType>(value.getType()));
      if (buffer.getType() == wanted) {
        results.push_back(buffer);
        continue;
      }
      results.push_back(host.allocate(loc, wanted));
      hostir::CopyOp::create(host.rewriter, loc, buffer, results.back());
    }
    host.rewriter.replaceOpWithNewOp<func::ReturnOp>(op, results);
    return success();
  }
};
} // namespace

void mlir::fuser::populateComputationLoweringPatterns(
    RewritePatternSet &patterns, const HostProgram &program) {
  MLIRContext *context = patterns.getContext();
  patterns.add<KernelLaunchLowering, LibraryCallLowering, ReturnLowering>(
      context, program);
}
