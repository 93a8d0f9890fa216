//===- PropagateShardings.cpp - give every tensor value a sharding --------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_PROPAGATESHARDINGS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

static void setSharding(Value value, ShardingAttr sharding) {
  value.setType(
      cast<RankedTensorType>(value.getType()).cloneWithEncoding(sharding));
}

namespace {
class Propagation {
public:
  explicit Propagation(func::FuncOp function) : function(function) {}
  LogicalResult run();

private:
  bool refine(Value value, ShardingAttr candidate, bool withPartial = false);
  FailureOr<bool> forward(ShardingRuleOpInterface op);
  bool backward(ShardingRuleOpInterface op);
  LogicalResult replicateTheRest();
  LogicalResult convertBoundOperands();
  LogicalResult checkVerifiers();
  void finishSignature();

  bool isFunctionArgument(Value value) {
    auto argument = dyn_cast<BlockArgument>(value);
    return argument && argument.getOwner() == &function.getBody().front();
  }

  func::FuncOp function;
  DenseSet<Value> annotated;
  SmallVector<ShardingRuleOpInterface> ops;
};
} // namespace

/// Adds what `candidate` knows to `value`'s sharding: the whole sharding if it
/// has none, else mesh axes for dims that have none (axes it already uses are
/// not taken twice), a missing stream split and, `withPartial`, missing
/// partial state. Never touches annotated values; never removes anything, so
/// propagation reaches a fixed point.
bool Propagation::refine(Value value, ShardingAttr candidate,
                         bool withPartial) {
  if (!candidate || annotated.contains(value) ||
      !isa<RankedTensorType>(value.getType()))
    return false;
  auto shape = cast<RankedTensorType>(value.getType()).getShape();
  ShardingAttr current = getSharding(value);
  ShardingAttr next = candidate;
  if (current) {
    if (current.getMesh() != candidate.getMesh())
      return false;
    SmallVector<SmallVector<int64_t>> dims = current.getDimAxesList();
    SmallVector<int64_t> used(current.getPartialAxes());
    for (const SmallVector<int64_t> &axes : dims)
      llvm::append_range(used, axes);
    for (auto [dim, axes] : llvm::enumerate(dims)) {
      ArrayRef<int64_t> offered = candidate.getDimAxes(dim);
      if (!axes.empty() || offered.empty() ||
          llvm::any_of(offered,
                       [&](int64_t a) { return llvm::is_contained(used, a); }))
        continue;
      axes.assign(offered.begin(), offered.end());
      llvm::append_range(used, offered);
    }
    next = current.withDims(dims);
    if (!current.getStreamDim() && candidate.getStreamDim())
      next = next.withStream(candidate.getStreamDim(),
                             candidate.getStreamChunks(),
                             candidate.getStreamChunked());
    if (withPartial && !current.isPartial() && candidate.isPartial() &&
        llvm::none_of(candidate.getPartialAxes(),
                      [&](int64_t a) { return llvm::is_contained(used, a); }))
      next = next.withPartial(candidate.getPartialAxes(),
                              candidate.getPartialKind());
  }
  if (next == current || !next.checkShape(shape).empty())
    return false;
  setSharding(value, next);
  return true;
}

FailureOr<bool> Propagation::forward(ShardingRuleOpInterface op) {
  // Results the user placed take nothing from the operands, and a split
  // that cannot pass through the op is then theirs to settle: decomposition
  // moves the data between both placements. Elsewhere propagation would
  // have to drop it silently, and reports it.
  if (llvm::all_of(op->getResults(), [&](Value result) {
        return !isa<RankedTensorType>(result.getType()) ||
               annotated.contains(result);
      }))
    return false;
  SmallVector<ProjectionConflict> conflicts;
  std::string why;
  FailureOr<SmallVector<ShardingAttr>> results =
      projectOperandShardings(op, conflicts, why);
  if (!conflicts.empty()) {
    const ProjectionConflict &conflict = conflicts.front();
    return op->emitError("cannot propagate the sharding of operand #")
           << conflict.operand << " through this op: dim " << conflict.dim
           << ": " << conflict.reason
           << " (annotate the results to have the data moved instead)";
  }
  if (failed(results))
    return op->emitError("cannot propagate shardings through this op: ")
           << why;
  bool changed = false;
  for (auto [result, sharding] : llvm::zip_equal(op->getResults(), *results))
    changed |= refine(result, sharding);
  return changed;
}

bool Propagation::backward(ShardingRuleOpInterface op) {
  // The most sharded result speaks for all of them.
  std::optional<unsigned> reference;
  int64_t mostAxes = -1;
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (ShardingAttr sharding = getSharding(result);
        sharding && sharding.getNumUsedAxes() > mostAxes) {
      mostAxes = sharding.getNumUsedAxes();
      reference = index;
    }
  if (!reference)
    return false;
  ShardingAttr sharding = getSharding(op->getResult(*reference));
  ShardingRule rule = op.getShardingRule();
  SmallVector<FactorMismatch> ignored;
  FactorSharding factors =
      projectToFactors(rule, rule.results[*reference], sharding, ignored);
  // A partial result asks for its reduction factor to be split, when the op
  // has exactly one.
  SmallVector<int64_t> reductionFactors;
  for (auto [index, factor] : llvm::enumerate(rule.getFactors()))
    if (factor.kind == FactorKind::Reduction)
      reductionFactors.push_back(index);
  if (sharding.isPartial() && reductionFactors.size() == 1)
    llvm::append_range(factors.axes[reductionFactors.front()],
                       sharding.getPartialAxes());

  bool changed = false;
  MeshAttr mesh = sharding.getMesh();
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    // An operand bound to a result (a linalg init) takes its whole sharding:
    // a partial result accumulates into a partial init.
    if (std::optional<unsigned> bound = rule.getBoundResult(index);
        bound && !isFunctionArgument(operand))
      if (ShardingAttr boundSharding = getSharding(op->getResult(*bound))) {
        changed |= refine(operand, boundSharding, /*withPartial=*/true);
        continue;
      }
    FactorMismatch mismatch;
    FailureOr<SmallVector<SmallVector<int64_t>>> dims = dimAxesFromFactors(
        rule, rule.operands[index], factors, mesh, mismatch);
    if (failed(dims))
      continue;
    std::optional<int64_t> streamDim;
    int64_t streamChunks = 0;
    if (auto stream = streamSplitOf(rule.operands[index], factors)) {
      streamDim = stream->first;
      streamChunks = stream->second;
    }
    // The caller lays out function arguments: they get a mesh and stream
    // splits, not mesh-axis splits.
    if (isFunctionArgument(operand))
      dims->assign(dims->size(), {});
    changed |= refine(operand, ShardingAttr::get(mesh, *dims)
                                   .withStream(streamDim, streamChunks,
                                               /*chunked=*/false));
  }
  return changed;
}

/// Values no sharded value relates to are replicated on the function's
/// mesh; with several meshes there is no telling which, so that is an error.
LogicalResult Propagation::replicateTheRest() {
  SmallVector<Value> unsharded;
  SetVector<MeshAttr> meshes;
  auto visit = [&](Value value) {
    if (!isa<RankedTensorType>(value.getType()))
      return;
    if (ShardingAttr sharding = getSharding(value))
      meshes.insert(sharding.getMesh());
    else
      unsharded.push_back(value);
  };
  for (BlockArgument argument : function.getArguments())
    visit(argument);
  function.walk([&](Operation *op) {
    for (Value result : op->getResults())
      visit(result);
  });
  if (meshes.empty() || unsharded.empty())
    return success();
  if (meshes.size() > 1) {
    for (Value value : unsharded)
      emitError(value.getLoc())
          << "cannot tell which mesh this value lives on: the function uses "
          << meshes.size()
          << " meshes and no sharded value relates to it; annotate it";
    return failure();
  }
  for (Value value : unsharded) {
    auto rank = cast<RankedTensorType>(value.getType()).getRank();
    setSharding(value, ShardingAttr::get(meshes.front(),
                                         SmallVector<SmallVector<int64_t>>(rank)));
  }
  return success();
}

/// Points `operand` at a copy of its producer of type `type`, where the
/// producer creates its one result from no tensor (tensor.empty) and that
/// result already is a partial value of the kind `type` needs (its rule is
/// neutral for it). Other consumers keep the original.
static LogicalResult recreateAsPartial(OpOperand &operand,
                                       RankedTensorType type) {
  auto creation = operand.get().getDefiningOp<ShardingRuleOpInterface>();
  if (!creation || creation->getNumResults() != 1 ||
      llvm::any_of(creation->getOperandTypes(),
                   [](Type type) { return isa<TensorType>(type); }) ||
      !llvm::is_contained(creation.getShardingRule().neutralFor,
                          getSharding(type).getPartialKind()))
    return failure();
  OpBuilder builder(creation);
  Operation *copy =
      mlir::clone(builder, creation, TypeRange{type}, creation->getOperands());
  operand.set(copy->getResult(0));
  return success();
}

/// Operands bound to a result's sharding (ShardingRule::boundResults) that
/// did not get it (function arguments, annotated values, values other
/// consumers place differently) read it through a fuser.set, which
/// decomposition turns into communication. Resharding only resolves partial
/// values, so the operand of a partial result must be partial already.
/// Consumers that need a value converted alike share one fuser.set, placed
/// right after the value's definition so that it dominates them all.
LogicalResult Propagation::convertBoundOperands() {
  DenseMap<std::pair<Value, Type>, Value> converted;
  for (ShardingRuleOpInterface op : ops) {
    ShardingRule rule = op.getShardingRule();
    if (!rule.hasBoundOperands())
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      std::optional<unsigned> bound =
          rule.getBoundResult(operand.getOperandNumber());
      if (!bound)
        continue;
      ShardingAttr required = getSharding(op->getResult(*bound));
      ShardingAttr actual = getSharding(operand.get());
      if (!required || !actual || required == actual)
        continue;
      auto type = cast<RankedTensorType>(operand.get().getType())
                      .cloneWithEncoding(required);
      if (llvm::any_of(required.getPartialAxes(), [&](int64_t axis) {
            return !actual.isPartialOver(axis);
          })) {
        if (succeeded(recreateAsPartial(operand, type)))
          continue;
        return op->emitError("operand #")
               << operand.getOperandNumber()
               << " must carry the sharding of result #" << *bound
               << ", which is partial, but it is not, and resharding only "
                  "resolves partial values; compute the result into zeros "
                  "of its own (a linalg.fill of a tensor.empty)";
      }
      Value &set = converted[{operand.get(), type}];
      if (!set) {
        OpBuilder builder(op->getContext());
        builder.setInsertionPointAfterValue(operand.get());
        set = SetOp::create(builder, op->getLoc(), type, operand.get());
      }
      operand.set(set);
    }
  }
  return success();
}

/// Upstream ops may reject encodings on their types (arith.constant's value
/// must have its result's type) or a mix of them. Say which op cannot carry
/// what propagation gave it, rather than leave the pass manager to reject
/// the function afterwards.
LogicalResult Propagation::checkVerifiers() {
  bool ok = true;
  function.walk([&](Operation *op) {
    if (op == function)
      return;
    std::string message;
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &diag) {
        if (message.empty())
          message = diag.str();
        return success();
      });
      verified = verify(op, /*verifyRecursively=*/false);
    }
    if (succeeded(verified))
      return;
    op->emitError("cannot carry the shardings propagation gave it: ")
        << message;
    ok = false;
  });
  return success(ok);
}

/// The function type follows its arguments and returned values. (An
/// annotated result type means the returned value is annotated too: func.return
/// requires equal types.) A partial value is resolved before it is returned,
/// by a fuser.set that resharding decomposition turns into communication.
void Propagation::finishSignature() {
  function.walk([&](func::ReturnOp ret) {
    OpBuilder builder(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      ShardingAttr sharding = getSharding(operand.get());
      if (!sharding || !sharding.isPartial() ||
          annotated.contains(operand.get()))
        continue;
      Type resolved = cast<RankedTensorType>(operand.get().getType())
                          .cloneWithEncoding(
                              sharding.withPartial({}, ReductionKind::Sum));
      operand.set(
          SetOp::create(builder, ret.getLoc(), resolved, operand.get()));
    }
  });
  updateFunctionType(function);
}

LogicalResult Propagation::run() {
  auto noteAnnotated = [&](Value value) {
    if (getSharding(value))
      annotated.insert(value);
  };
  for (BlockArgument argument : function.getArguments())
    noteAnnotated(argument);
  function.walk([&](Operation *op) {
    for (Value result : op->getResults())
      noteAnnotated(result);
    if (auto ruled = dyn_cast<ShardingRuleOpInterface>(op))
      ops.push_back(ruled);
  });

  // Each round only adds axes to values that lack them, so it ends.
  bool changed = true;
  while (changed) {
    changed = false;
    for (ShardingRuleOpInterface op : ops) {
      FailureOr<bool> forwarded = forward(op);
      if (failed(forwarded))
        return failure();
      changed |= *forwarded;
    }
    for (ShardingRuleOpInterface op : llvm::reverse(ops))
      changed |= backward(op);
  }
  if (failed(replicateTheRest()) || failed(convertBoundOperands()))
    return failure();
  finishSignature();
  return checkVerifiers();
}

namespace {
struct PropagateShardingsPass
    : public mlir::fuser::impl::PropagateShardingsBase<PropagateShardingsPass> {
  void runOnOperation() override {
    if (getOperation().isExternal())
      return;
    if (failed(Propagation(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
