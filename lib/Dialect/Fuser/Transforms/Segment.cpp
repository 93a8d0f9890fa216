//===- Segment.cpp - kernels, library calls, communications, views --------===//

#include "Segmentation.h"

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"
#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SEGMENT
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Outlines the kernel segments of the functions of one module.
class Segmentation {
public:
  explicit Segmentation(ModuleOp module) : module(module) {}
  LogicalResult run(func::FuncOp function);

private:
  LogicalResult flush(func::FuncOp function, SmallVectorImpl<Operation *> &run,
                      const AliasAnalysis &analysis);
  LogicalResult outline(func::FuncOp function,
                        SmallVectorImpl<Operation *> &kernel,
                        const AliasAnalysis &analysis);
  ModuleOp getKernelModule();

  ModuleOp module;
  ModuleOp kernels;
  unsigned kernelCount = 0;
};
} // namespace

ModuleOp Segmentation::getKernelModule() {
  if (!kernels)
    kernels = getOrCreateKernelModule(module);
  return kernels;
}

/// Whether `op` computes values from its elements' global positions, so a
/// kernel computing a split result needs to know where its piece lies.
static bool isPositional(Operation *op) {
  if (!isa<IotaOp, UniformOp, NormalOp>(op))
    return false;
  ShardingAttr sharding = getSharding(op->getResult(0));
  return sharding && llvm::any_of(sharding.getDims(), [](DenseI64ArrayAttr axes) {
           return !axes.empty();
         });
}

/// The global position of the first element of the rank's piece of
/// `value`, per dim: the rank's index along the axes splitting the dim
/// (outermost first) times the local size.
static SmallVector<Value>
getPieceOffsets(OpBuilder &builder, Location loc, Value value,
                const DenseMap<MeshPositionAttr, Value> &positions) {
  ShardingAttr sharding = getSharding(value);
  SmallVector<int64_t> local = sharding.getLocalShape(
      cast<RankedTensorType>(value.getType()).getShape());
  SmallVector<Value> offsets;
  for (auto [dim, axes] : llvm::enumerate(sharding.getDims())) {
    Value piece;
    for (int64_t axis : axes.asArrayRef()) {
      Value position = positions.lookup(MeshPositionAttr::get(
          builder.getContext(), sharding.getMesh(), axis));
      if (!piece) {
        piece = position;
        continue;
      }
      Value size = arith::ConstantIndexOp::create(
          builder, loc, sharding.getMesh().getAxisSize(axis));
      piece = arith::AddIOp::create(
          builder, loc, arith::MulIOp::create(builder, loc, piece, size),
          position);
    }
    if (!piece) {
      offsets.push_back(arith::ConstantIndexOp::create(builder, loc, 0));
      continue;
    }
    offsets.push_back(arith::MulIOp::create(
        builder, loc, piece,
        arith::ConstantIndexOp::create(builder, loc, local[dim])));
  }
  return offsets;
}

static RankedTensorType localTensorType(Type type) {
  MemRefType buffer = getLocalBufferType(cast<RankedTensorType>(type));
  return RankedTensorType::get(buffer.getShape(), buffer.getElementType());
}

/// `op` in a kernel: its operands mapped by `mapping`, its results the
/// local pieces of its own (mapped in turn).
static Operation *cloneOnLocalPieces(OpBuilder &builder, Operation *op,
                                     IRMapping &mapping) {
  OperationState state(
      op->getLoc(), op->getName(),
      llvm::map_to_vector(op->getOperands(),
                          [&](Value v) { return mapping.lookupOrDefault(v); }),
      llvm::map_to_vector(
          op->getResultTypes(),
          [](Type type) -> Type { return localTensorType(type); }),
      op->getAttrs());
  for (Region &region : op->getRegions())
    region.cloneInto(state.addRegion(), mapping);
  Operation *local = builder.create(state);
  mapping.map(op->getResults(), local->getResults());
  return local;
}

/// A slice's bounds are global. The dims a kernel's piece splits are ones
/// the slice keeps whole (a dim it cuts is never split), so there the
/// bounds are the piece's.
static void limitToLocalPiece(SliceOp slice, RankedTensorType global) {
  SmallVector<int64_t> limits(slice.getLimits());
  for (auto [dim, size] :
       llvm::enumerate(slice.getInput().getType().getShape())) {
    if (size == global.getDimSize(dim))
      continue;
    assert(slice.getStarts()[dim] == 0 && slice.getSteps()[dim] == 1 &&
           limits[dim] == global.getDimSize(dim) && "a split dim is cut");
    limits[dim] = size;
  }
  slice.setLimits(limits);
}

/// A kernel writes the values the rest of the function reads into buffers
/// of their layouts, but a view's layout may have gaps or repeat data (a
/// slice, a broadcast), which no buffer has. Such a view read after the
/// kernel is made again there, a view of the kernel's output of its
/// operand; the run keeps it only for its readers inside.
static void keepEscapingViewsAsViews(SmallVectorImpl<Operation *> &run,
                                     const AliasAnalysis &analysis) {
  DenseSet<Operation *> inRun(run.begin(), run.end());
  DenseSet<Operation *> remade;
  Operation *last = run.back();
  // Last first, so that a view of a view made again makes its operand a
  // view read after the kernel too.
  for (Operation *op : llvm::reverse(run)) {
    if (getSegmentRole(op, analysis) != SegmentRole::View)
      continue;
    Value result = op->getResult(0);
    ShardingAttr sharding = getSharding(result);
    if (!sharding || Layout::of(sharding).isContiguous())
      continue;
    SmallVector<OpOperand *> after;
    for (OpOperand &use : result.getUses())
      if (!inRun.contains(use.getOwner()))
        after.push_back(&use);
    if (after.empty())
      continue;
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(last);
    Operation *view = builder.clone(*op);
    for (OpOperand *use : after)
      use->set(view->getResult(0));
    remade.insert(op);
  }
  // Views made again that no reader inside the run is left for leave it.
  DenseSet<Operation *> erased;
  for (Operation *op : llvm::reverse(run))
    if (remade.contains(op) && op->use_empty()) {
      erased.insert(op);
      op->erase();
    }
  llvm::erase_if(run, [&](Operation *op) { return erased.contains(op); });
}

/// Outlines the kernels a run becomes.
LogicalResult Segmentation::flush(func::FuncOp function,
                                  SmallVectorImpl<Operation *> &run,
                                  const AliasAnalysis &analysis) {
  llvm::scope_exit clear([&] { run.clear(); });
  if (run.empty())
    return success();
  for (SmallVector<Operation *> &piece : splitIndependentWork(run))
    for (SmallVector<Operation *> &kernel : splitOuterReductions(piece))
      if (failed(outline(function, kernel, analysis)))
        return failure();
  return success();
}

LogicalResult Segmentation::outline(func::FuncOp function,
                                    SmallVectorImpl<Operation *> &run,
                                    const AliasAnalysis &analysis) {
  // Views alone stay views.
  if (llvm::none_of(run, [&](Operation *op) {
        return getSegmentRole(op, analysis) == SegmentRole::Kernel;
      }))
    return success();
  keepEscapingViewsAsViews(run, analysis);
  DenseSet<Operation *> inRun(run.begin(), run.end());
  SetVector<Value> inputs;
  SetVector<MeshPositionAttr> positions;
  SmallVector<Value> outputs;
  for (Operation *op : run) {
    if (auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
        ruled && isResharding(ruled))
      return op->emitError("reshards, so it cannot compute on local pieces; "
                           "run fuser-decompose-reshardings first");
    // Kernels exchange per-rank buffers with the host program: a scalar
    // or buffer crossing the segment's boundary has no piece to pass.
    for (OpOperand &operand : op->getOpOperands())
      if (!inRun.contains(operand.get().getDefiningOp())) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          return op->emitOpError("operand #")
                 << operand.getOperandNumber() << " of type "
                 << operand.get().getType()
                 << " comes from outside the segment; kernels take ranked "
                    "tensors only";
        inputs.insert(operand.get());
      }
    // Iota and random draws depend on their elements' global positions: a
    // split one takes the rank's position along the splitting axes.
    if (isPositional(op))
      for (DenseI64ArrayAttr axes : getSharding(op->getResult(0)).getDims())
        for (int64_t axis : axes.asArrayRef())
          positions.insert(MeshPositionAttr::get(
              op->getContext(), getSharding(op->getResult(0)).getMesh(), axis));
    for (OpResult result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inRun.contains(user);
          })) {
        if (!isa<RankedTensorType>(result.getType()))
          return op->emitOpError("result #")
                 << result.getResultNumber() << " of type " << result.getType()
                 << " is used outside the segment; kernels return ranked "
                    "tensors only";
        outputs.push_back(result);
      }
  }

  // The kernel function: buffers of the inputs, then of the outputs, then
  // the rank's positions along the mesh axes positional ops need.
  SmallVector<Type> arguments;
  for (Value value : inputs)
    arguments.push_back(getLocalBufferType(cast<RankedTensorType>(value.getType())));
  for (Value value : outputs)
    arguments.push_back(getLocalBufferType(cast<RankedTensorType>(value.getType())));
  arguments.append(positions.size(), IndexType::get(module.getContext()));
  Location loc = run.front()->getLoc();
  std::string name =
      (function.getSymName() + "_kernel_" + Twine(kernelCount++)).str();
  ModuleOp kernelModule = getKernelModule();
  OpBuilder builder(kernelModule.getBodyRegion());
  builder.setInsertionPointToEnd(kernelModule.getBody());
  auto kernel = func::FuncOp::create(builder, loc, name,
                                     builder.getFunctionType(arguments, {}));
  SymbolTable(kernelModule).insert(kernel);
  Block *body = kernel.addEntryBlock();
  unsigned firstPosition = inputs.size() + outputs.size();
  DenseMap<MeshPositionAttr, Value> positionArguments;
  for (auto [index, position] : llvm::enumerate(positions)) {
    kernel.setArgAttr(firstPosition + index,
                      FuserDialect::getMeshPositionAttrName(), position);
    positionArguments[position] = body->getArgument(firstPosition + index);
  }
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [value, buffer] : llvm::zip(inputs, body->getArguments()))
    mapping.map(value, bufferization::ToTensorOp::create(
                           builder, loc, localTensorType(value.getType()),
                           buffer, /*restrict=*/true));
  for (Operation *op : run) {
    SmallVector<Value> offsets;
    if (isPositional(op))
      offsets = getPieceOffsets(builder, op->getLoc(), op->getResult(0),
                                positionArguments);
    Operation *local = cloneOnLocalPieces(builder, op, mapping);
    if (auto slice = dyn_cast<SliceOp>(local))
      limitToLocalPiece(slice, cast<SliceOp>(op).getInput().getType());
    local->insertOperands(0, offsets);
  }
  for (auto [value, buffer] :
       llvm::zip(outputs, body->getArguments().drop_front(inputs.size())))
    bufferization::MaterializeInDestinationOp::create(
        builder, loc, TypeRange(), mapping.lookup(value), buffer,
        /*restrict=*/true, /*writable=*/true);
  func::ReturnOp::create(builder, loc);

  // The host function runs the kernel in place of the ops.
  OpBuilder host(run.back());
  host.setInsertionPointAfter(run.back());
  auto reference = SymbolRefAttr::get(
      builder.getContext(), kernelModule.getSymNameAttr().getValue(),
      {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
  SmallVector<Type> resultTypes =
      llvm::map_to_vector(outputs, [](Value value) { return value.getType(); });
  auto launch = KernelOp::create(host, loc, resultTypes, reference,
                                 inputs.getArrayRef());
  for (auto [value, result] : llvm::zip(outputs, launch.getResults()))
    value.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(run))
    op->erase();
  return success();
}

LogicalResult Segmentation::run(func::FuncOp function) {
  // Segments are ranges of one block: fuser ops nested in regions would
  // need a segment per region.
  WalkResult nested = function.walk([&](Operation *op) {
    if (op->getBlock() != &function.getBody().front() &&
        isa<FuserDialect>(op->getDialect()) &&
        op->getParentOp() != function) {
      op->emitError("segmentation handles fuser ops in the function body only, "
                    "not nested in regions");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();

  AliasAnalysis analysis(function);
  // Kernel ops and views that need no copy form a run; anything else ends
  // it.
  SmallVector<SmallVector<Operation *>> runs(1);
  for (Operation &op : function.getBody().front()) {
    if (getSegmentRole(&op, analysis) != SegmentRole::Other) {
      runs.back().push_back(&op);
      continue;
    }
    if (!runs.back().empty())
      runs.emplace_back();
  }
  recomputeAcrossRuns(runs);
  for (SmallVector<Operation *> &run : runs)
    if (failed(flush(function, run, analysis)))
      return failure();
  return success();
}

namespace {
struct SegmentPass : public mlir::fuser::impl::SegmentBase<SegmentPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Segmentation segmentation(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() && failed(segmentation.run(function)))
        return signalPassFailure();
  }
};
} // namespace
