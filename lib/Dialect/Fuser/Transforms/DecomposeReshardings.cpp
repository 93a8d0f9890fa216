//===- DecomposeReshardings.cpp - one communication per placement change --===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"
#include "fuser/Dialect/Fuser/Transforms/ReshardPlanner.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_DECOMPOSERESHARDINGS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// The one placement every reader of `value` needs it in (its operand entry
/// of getRequiredOperandShardings), if they agree and it is not partial;
/// null otherwise.
static ShardingAttr getPlacementReadersNeed(Value value) {
  ShardingAttr needed;
  for (OpOperand &use : value.getUses()) {
    auto reader = dyn_cast<ShardingRuleOpInterface>(use.getOwner());
    std::string why;
    FailureOr<SmallVector<ShardingAttr>> required =
        reader ? getRequiredOperandShardings(reader, why)
               : FailureOr<SmallVector<ShardingAttr>>(failure());
    if (failed(required))
      return {};
    ShardingAttr entry = (*required)[use.getOperandNumber()];
    if (!entry || entry.isPartial() ||
        (needed && !needed.hasSamePlacement(entry)))
      return {};
    needed = entry;
  }
  return needed;
}

/// A product whose sum is partial (its result is, or its operands split
/// the contracted dim, so computing it in place gives partial sums) would
/// add a linear's bias on every rank of the partial sum, and apply an
/// activation to partial sums. Rewrite it as the product alone, the
/// resolution of its partial sum (a fuser.set, decomposed like any other),
/// an add of the broadcast bias and the activation. The sum is resolved
/// into the placement its readers need where they agree on one: a
/// sequence-parallel row-parallel linear's readers want its rows split, so
/// the sum becomes a reduce_scatter and the bias is added to the rank's
/// rows, instead of an allreduce, a bias on the whole and a slice.
static void splitPartialProductEpilogue(Operation *product) {
  auto linear = dyn_cast<LinearOp>(product);
  Value bias = linear ? linear.getBias() : Value();
  auto activation = product->getAttrOfType<ActivationAttr>("activation");
  Value result = product->getResult(0);
  ShardingAttr sharding = getSharding(result);
  if ((!bias && !activation) || !sharding)
    return;
  ShardingAttr partial = sharding;
  if (!sharding.isPartial()) {
    SmallVector<ProjectionConflict> conflicts;
    std::string why;
    FailureOr<SmallVector<ShardingAttr>> computed = projectOperandShardings(
        cast<ShardingRuleOpInterface>(product), conflicts, why);
    if (failed(computed) || !conflicts.empty() || !computed->front() ||
        !computed->front().isPartial())
      return;
    partial = computed->front();
  }
  OpBuilder builder(product);
  Location loc = product->getLoc();
  auto type = cast<RankedTensorType>(result.getType());
  RankedTensorType partialType = type.cloneWithEncoding(partial);
  RankedTensorType resolvedType =
      sharding.isPartial() ? partialType.cloneWithEncoding(
                                 partial.withPartial({}, ReductionKind::Sum))
                           : type;
  if (ShardingAttr needed = getPlacementReadersNeed(result);
      needed && needed.getMesh() == partial.getMesh())
    resolvedType = type.cloneWithEncoding(needed);
  Value sum =
      linear
          ? LinearOp::create(builder, loc, partialType, linear.getInput(),
                             linear.getWeight(), Value(), nullptr)
                .getResult()
          : MatmulOp::create(builder, loc, partialType, product->getOperand(0),
                             product->getOperand(1), nullptr)
                .getResult();
  sum = SetOp::create(builder, loc, resolvedType, sum);
  if (bias) {
    SmallVector<int64_t> biasDims;
    if (cast<RankedTensorType>(bias.getType()).getRank() == 1)
      biasDims.push_back(partialType.getRank() - 1);
    Value broadcast =
        BroadcastOp::create(builder, loc, resolvedType, bias,
                            builder.getDenseI64ArrayAttr(biasDims));
    sum = AddOp::create(builder, loc, resolvedType, sum, broadcast);
  }
  if (activation) {
    if (activation.getValue() == Activation::GeluTanh)
      sum = GeluOp::create(builder, loc, resolvedType, sum,
                           GeluApproximation::Tanh);
    else
      sum = ReluOp::create(builder, loc, resolvedType, sum);
  }
  result.replaceAllUsesWith(sum);
  product->erase();
}

/// Per-rank variances do not combine into the global one, so a var_mean
/// whose input is split along a reduced dim would gather its input. Rewrite
/// it as the two passes it computes: the mean (per-rank means average into
/// the global one), then the mean squared difference from it, a sum. Each
/// is resolved at its reduced size, as softmax's statistics are. 16-bit
/// inputs are computed on in f32, as the fused var_mean does; the divisor
/// is N - correction clamped at 0, as PyTorch's.
static void splitVarMeanOverSplitDims(VarMeanOp varMean) {
  Value input = varMean.getInput();
  auto inputType = cast<RankedTensorType>(input.getType());
  ShardingAttr inputSharding = getSharding(input);
  if (!inputSharding || inputSharding.isPartial() ||
      !inputType.hasStaticShape() ||
      llvm::none_of(varMean.getDims(), [&](int64_t dim) {
        return !inputSharding.getDimAxes(dim).empty();
      }))
    return;
  OpBuilder builder(varMean);
  Location loc = varMean.getLoc();
  ArrayRef<int64_t> dims = varMean.getDims();
  bool keepdim = varMean.getKeepdim();
  Type wide = inputType.getElementTypeBitWidth() < 32
                  ? builder.getF32Type()
                  : inputType.getElementType();
  auto widened = [&](Type type) {
    return cast<RankedTensorType>(type).clone(wide);
  };
  auto convert = [&](Value value, Type type) -> Value {
    if (value.getType() == type)
      return value;
    return CastOp::create(builder, loc, type, value);
  };
  Value x = convert(input, widened(inputType));
  Type meanType = varMean.getMean().getType();
  Value mean = MeanOp::create(builder, loc, widened(meanType), x, dims,
                              keepdim);
  // The mean in every position of the input it summarizes.
  SmallVector<int64_t> meanDims;
  int64_t count = 1;
  for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
    bool reduced = llvm::is_contained(dims, dim);
    if (reduced)
      count *= inputType.getDimSize(dim);
    if (keepdim || !reduced)
      meanDims.push_back(dim);
  }
  Value spread =
      BroadcastOp::create(builder, loc, x.getType(), mean,
                          builder.getDenseI64ArrayAttr(meanDims));
  Value centered = SubOp::create(builder, loc, x.getType(), x, spread);
  Value squares = MulOp::create(builder, loc, x.getType(), centered, centered);
  Type varianceType = varMean.getVariance().getType();
  Value sum = SumOp::create(builder, loc, widened(varianceType), squares,
                            dims, keepdim);
  Value divisor = FullOp::create(
      builder, loc, widened(varianceType),
      builder.getF64FloatAttr(
          double(std::max<int64_t>(0, count - varMean.getCorrection()))));
  Value variance =
      DivOp::create(builder, loc, widened(varianceType), sum, divisor);
  varMean.getVariance().replaceAllUsesWith(convert(variance, varianceType));
  varMean.getMean().replaceAllUsesWith(convert(mean, meanType));
  varMean.erase();
}

/// Whether converting `op`'s single result moves fewer elements than
/// converting the operands that are not placed as `required`, so a
/// row-parallel linear followed by a reduce-scatter moves its result rather
/// than its input and weight. Ties (and single-input single-output ops)
/// go to after: the op then computes on data already in place.
static bool movesLessAfter(Operation *op, ArrayRef<ShardingAttr> required) {
  if (op->getNumResults() != 1)
    return false;
  int64_t before = 0;
  DenseSet<std::pair<Value, Attribute>> moved;
  for (auto [operand, sharding] : llvm::zip_equal(op->getOperands(), required)) {
    if (!sharding || getSharding(operand).hasSamePlacement(sharding) ||
        !moved.insert({operand, sharding}).second)
      continue;
    int64_t elements = getNumElements(operand);
    if (ShapedType::isDynamic(elements))
      return op->getNumOperands() == 1;
    before += elements;
  }
  int64_t after = getNumElements(op->getResult(0));
  if (ShapedType::isDynamic(after))
    return op->getNumOperands() == 1;
  return after <= before;
}

namespace {
class Decomposition {
public:
  Decomposition(ReshardPlacement placement, Operation *function)
      : placement(placement), dominance(function) {}
  LogicalResult run(ShardingRuleOpInterface op);

private:
  FailureOr<bool> reshardAfter(ShardingRuleOpInterface op);
  LogicalResult reshardBefore(ShardingRuleOpInterface op,
                              ArrayRef<ShardingAttr> required);
  FailureOr<bool> gatherUnpassableSplits(ShardingRuleOpInterface op);
  FailureOr<bool> gatherWhole(ShardingRuleOpInterface op);
  Value findMovedThroughViews(Value value, ShardingAttr target, Operation *user,
                              OpBuilder &builder);

  ReshardPlacement placement;
  /// Each value converted for an operand, by the value and the placement it
  /// was moved to: consumers that need the same placement share one move
  /// (a partial sum read twice is reduced once) where it dominates them.
  DenseMap<std::pair<Value, Attribute>, Value> moved;
  DominanceInfo dominance;
};
} // namespace

/// Lets the op compute on its operands' placement and converts each result
/// placed otherwise back to its sharding. False when that does not apply:
/// its operands disagree or leave a result unplaced, no result would
/// change, or an operand is bound to a result's sharding (a linalg init), so
/// that the result's type cannot change alone.
FailureOr<bool> Decomposition::reshardAfter(ShardingRuleOpInterface op) {
  if (op.getShardingRule().hasBoundOperands())
    return false;
  SmallVector<ProjectionConflict> conflicts;
  std::string why;
  FailureOr<SmallVector<ShardingAttr>> computed =
      projectOperandShardings(op, conflicts, why);
  if (failed(computed) || !conflicts.empty())
    return false;
  SmallVector<Type> originalTypes(op->getResultTypes());
  bool moves = false;
  for (auto [type, sharding] : llvm::zip_equal(originalTypes, *computed)) {
    if (!isa<RankedTensorType>(type))
      continue;
    if (!sharding)
      return false;
    moves |= !sharding.hasSamePlacement(getSharding(type));
  }
  if (!moves)
    return false;

  for (auto [result, sharding] : llvm::zip_equal(op->getResults(), *computed))
    if (sharding && !sharding.hasSamePlacement(getSharding(result)))
      result.setType(
          cast<RankedTensorType>(result.getType()).cloneWithEncoding(sharding));
  FailureOr<SmallVector<ShardingAttr>> required =
      getRequiredOperandShardings(op, why);
  if (failed(required) || !hasRequiredPlacements(op, *required)) {
    for (auto [result, type] : llvm::zip_equal(op->getResults(), originalTypes))
      result.setType(type);
    return false;
  }
  // Each result computed elsewhere than it was placed moves there.
  OpBuilder builder(op->getContext());
  builder.setInsertionPointAfter(op);
  for (auto [result, type] : llvm::zip_equal(op->getResults(), originalTypes)) {
    if (result.getType() == type)
      continue;
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        result.getUses(), [](OpOperand &use) { return &use; });
    FailureOr<Value> converted =
        emitReshard(builder, op->getLoc(), result, getSharding(type));
    if (failed(converted))
      return failure();
    for (OpOperand *use : uses)
      use->set(*converted);
  }
  return true;
}

/// The sharding an operand is moved to: the placement the op requires,
/// keeping the operand's stream split when the move leaves the stream dim's
/// mesh axes alone (its chunks then hold the same data before and after, so
/// a pipeline can move them one by one).
static ShardingAttr withOperandStream(Value operand, ShardingAttr required) {
  ShardingAttr current = getSharding(operand);
  std::optional<int64_t> dim = current.getStreamDim();
  if (!dim || current.getMesh() != required.getMesh() ||
      current.getDimAxes(*dim) != required.getDimAxes(*dim))
    return required;
  ShardingAttr streamed =
      required.withStream(dim, current.getStreamChunks(), /*chunked=*/false);
  auto type = cast<RankedTensorType>(operand.getType());
  return streamed.checkShape(type.getShape()).empty() ? streamed : required;
}

/// `value` placed as `target` from a move already made for `user`'s
/// predecessors: the move of `value` itself, or of the source of the views
/// that make `value`, which are then repeated on the moved source before
/// `user`. A weight gradient reads its output gradient through a reshape
/// and a permute, which its data gradient reads directly: one gather
/// serves both. Null when no such move dominates `user`.
Value Decomposition::findMovedThroughViews(Value value, ShardingAttr target,
                                           Operation *user,
                                           OpBuilder &builder) {
  if (Value done = moved.lookup({value, target});
      done && dominance.properlyDominates(done, user))
    return done;
  Operation *view = value.getDefiningOp();
  auto ruled = dyn_cast_or_null<ShardingRuleOpInterface>(view);
  if (!ruled || !isa<ViewOpInterface>(view) || view->getNumResults() != 1 ||
      view->getNumOperands() != 1)
    return {};
  // The placement the view's source needs to give `target`.
  Type original = value.getType();
  auto targetType = cast<RankedTensorType>(original).cloneWithEncoding(target);
  value.setType(targetType);
  std::string why;
  FailureOr<SmallVector<ShardingAttr>> required =
      getRequiredOperandShardings(ruled, why);
  value.setType(original);
  if (failed(required) || !required->front())
    return {};
  Value source =
      findMovedThroughViews(view->getOperand(0), required->front(), user, builder);
  if (!source)
    return {};
  Value repeated =
      mlir::clone(builder, view, TypeRange{targetType}, ValueRange{source})
          ->getResult(0);
  moved[{value, target}] = repeated;
  return repeated;
}

LogicalResult Decomposition::reshardBefore(ShardingRuleOpInterface op,
                                           ArrayRef<ShardingAttr> required) {
  OpBuilder builder(op);
  for (auto [operand, sharding] :
       llvm::zip_equal(op->getOpOperands(), required)) {
    if (!sharding || getSharding(operand.get()).hasSamePlacement(sharding))
      continue;
    ShardingAttr target = withOperandStream(operand.get(), sharding);
    if (Value reused = findMovedThroughViews(operand.get(), target, op, builder)) {
      operand.set(reused);
      continue;
    }
    Value &converted = moved[{operand.get(), target}];
    if (!converted || !dominance.properlyDominates(converted, op)) {
      FailureOr<Value> emitted =
          emitReshard(builder, op->getLoc(), operand.get(), target);
      if (failed(emitted))
        return failure();
      converted = *emitted;
    }
    operand.set(converted);
  }
  return success();
}

/// Moves each operand whose split cannot pass through `op` (a split that
/// straddles factors, or of a dim the op cuts or joins) to its placement
/// without the axes of those dims. Returns whether it moved any.
FailureOr<bool>
Decomposition::gatherUnpassableSplits(ShardingRuleOpInterface op) {
  ShardingRule rule = op.getShardingRule();
  OpBuilder builder(op);
  bool movedAny = false;
  for (OpOperand &operand : op->getOpOperands()) {
    ShardingAttr sharding = getSharding(operand.get());
    if (!sharding)
      continue;
    SmallVector<FactorMismatch> mismatches;
    projectToFactors(rule, rule.operands[operand.getOperandNumber()], sharding,
                     mismatches);
    if (mismatches.empty())
      continue;
    SmallVector<SmallVector<int64_t>> dims = sharding.getDimAxesList();
    for (const FactorMismatch &mismatch : mismatches)
      dims[mismatch.dim].clear();
    FailureOr<Value> gathered = emitReshard(
        builder, op->getLoc(), operand.get(), sharding.withDims(dims));
    if (failed(gathered))
      return failure();
    operand.set(*gathered);
    movedAny = true;
  }
  return movedAny;
}

/// Moves each operand that is split or pending a reduction to its whole
/// value on its mesh. Returns whether it moved any.
FailureOr<bool> Decomposition::gatherWhole(ShardingRuleOpInterface op) {
  if (op.getShardingRule().hasBoundOperands())
    return false;
  OpBuilder builder(op);
  bool movedAny = false;
  for (OpOperand &operand : op->getOpOperands()) {
    ShardingAttr sharding = getSharding(operand.get());
    if (!sharding || sharding.getNumUsedAxes() == 0)
      continue;
    ShardingAttr whole =
        sharding
            .withDims(SmallVector<SmallVector<int64_t>>(
                sharding.getDimAxesList().size()))
            .withPartial({}, sharding.getPartialKind());
    FailureOr<Value> gathered =
        emitReshard(builder, op->getLoc(), operand.get(), whole);
    if (failed(gathered))
      return failure();
    operand.set(*gathered);
    movedAny = true;
  }
  return movedAny;
}

LogicalResult Decomposition::run(ShardingRuleOpInterface op) {
  // Unsharded programs (no mesh anywhere) have nothing to move.
  if (isUnsharded(op))
    return success();
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (isa<RankedTensorType>(operand.getType()) && !getSharding(operand))
      return op->emitError("operand #")
             << index << " has no sharding; run fuser-propagate-shardings first";
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (isa<RankedTensorType>(result.getType()) && !getSharding(result))
      return op->emitError("result #")
             << index << " has no sharding; run fuser-propagate-shardings first";
  std::string why;
  FailureOr<SmallVector<ShardingAttr>> required =
      getRequiredOperandShardings(op, why);
  if (succeeded(required) && hasRequiredPlacements(op, *required))
    return success();

  bool preferAfter = placement == ReshardPlacement::After ||
                     (placement == ReshardPlacement::Auto &&
                      (failed(required) || movesLessAfter(op, *required)));
  if (preferAfter || failed(required)) {
    FailureOr<bool> done = reshardAfter(op);
    if (failed(done))
      return failure();
    if (*done)
      return success();
  }
  if (succeeded(required))
    return reshardBefore(op, *required);
  // Neither the results' placement nor the operands' passes through the op
  // (both sides placed by the user): gather the operands along the dims
  // whose split cannot pass, compute on what is left, and move the results.
  // Where what is left still disagrees, the op computes on whole operands:
  // always local, if slow; the placements of both sides left no better plan.
  for (auto gather : {&Decomposition::gatherUnpassableSplits,
                      &Decomposition::gatherWhole}) {
    FailureOr<bool> gathered = (this->*gather)(op);
    if (failed(gathered))
      return failure();
    if (!*gathered)
      continue;
    FailureOr<bool> done = reshardAfter(op);
    if (failed(done) || *done)
      return done;
  }
  return op->emitError("the result sharding cannot be computed locally (")
         << why << ") and the operands do not determine another one";
}

namespace {
struct DecomposeReshardingsPass
    : public mlir::fuser::impl::DecomposeReshardingsBase<
          DecomposeReshardingsPass> {
  using DecomposeReshardingsBase::DecomposeReshardingsBase;

  void runOnOperation() override {
    SmallVector<Operation *> products;
    getOperation().walk([&](Operation *op) {
      if (isa<LinearOp, MatmulOp>(op))
        products.push_back(op);
    });
    for (Operation *product : products)
      splitPartialProductEpilogue(product);
    // Placed before, the statistics' input is gathered anyway: the two
    // passes would gather it twice.
    if (reshardPlacement != ReshardPlacement::Before) {
      SmallVector<VarMeanOp> varMeans;
      getOperation().walk([&](VarMeanOp op) { varMeans.push_back(op); });
      for (VarMeanOp varMean : varMeans)
        splitVarMeanOverSplitDims(varMean);
    }

    SmallVector<ShardingRuleOpInterface> ops;
    getOperation().walk(
        [&](ShardingRuleOpInterface op) { ops.push_back(op); });
    Decomposition decomposition(reshardPlacement, getOperation());
    for (ShardingRuleOpInterface op : ops) {
      if (failed(decomposition.run(op)))
        return signalPassFailure();
      // A copy left with equal operand and result types is gone.
      SmallVector<OpFoldResult> folded;
      if (op->getNumResults() == 1 && succeeded(op->fold(folded)) &&
          folded.size() == 1)
        if (auto value = dyn_cast<Value>(folded.front())) {
          op->getResult(0).replaceAllUsesWith(value);
          op->erase();
        }
    }
  }
};
} // namespace
