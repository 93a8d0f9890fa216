//===- Resharding.cpp - which operands an op needs placed differently -----===//

#include "fuser/Dialect/Fuser/Analysis/Resharding.h"

using namespace mlir;
using namespace mlir::fuser;

bool mlir::fuser::isUnsharded(Operation *op) {
  auto sharded = [](Value value) { return static_cast<bool>(getSharding(value)); };
  return llvm::none_of(op->getOperands(), sharded) &&
         llvm::none_of(op->getResults(), sharded);
}

ShardingAttr mlir::fuser::placementOf(ShardingAttr of) {
  return ShardingAttr::get(of.getMesh(), of.getDimAxesList(), of.getPartial());
}

static std::string describe(const Twine &where, const FactorMismatch &mismatch) {
  return (where + " dim " + Twine(mismatch.dim) + ": " + mismatch.reason).str();
}

/// Whether a sharding may split `dims` over their axes and be partial over
/// `partialAxes`: every mesh axis serves once. Results can ask otherwise (one
/// splits a dim over an axis another is partial over); `why` then names the
/// axis, as being about `where`.
static LogicalResult checkAxesUsedOnce(ArrayRef<SmallVector<int64_t>> dims,
                                       ArrayRef<int64_t> partialAxes,
                                       const Twine &where, std::string &why) {
  SmallVector<int64_t> used;
  for (const SmallVector<int64_t> &axes : dims)
    llvm::append_range(used, axes);
  llvm::append_range(used, partialAxes);
  for (auto [index, axis] : llvm::enumerate(used))
    if (llvm::is_contained(ArrayRef(used).take_front(index), axis)) {
      why = (where + " would use mesh axis " + Twine(axis) +
             " twice, to split a dim and to hold a partial state or to split "
             "two dims")
                .str();
      return failure();
    }
  return success();
}

/// dimAxesFromFactors, explaining a failure in `why` as being about `where`.
static FailureOr<SmallVector<SmallVector<int64_t>>>
dimAxesOf(const ShardingRule &rule, const DimFactors &dims,
          const FactorSharding &factors, MeshAttr mesh, const Twine &where,
          std::string &why) {
  FactorMismatch mismatch;
  FailureOr<SmallVector<SmallVector<int64_t>>> axes =
      dimAxesFromFactors(rule, dims, factors, mesh, mismatch);
  if (failed(axes))
    why = describe(where, mismatch);
  return axes;
}

/// Merges `from` into `into` factor by factor, skipping factors `into`
/// already assigns and axes it already uses. Returns whether it added any.
static bool mergeFactorAxes(FactorSharding &into, const FactorSharding &from,
                            ArrayRef<Factor> factors) {
  SmallVector<int64_t> used = into.usedAxes();
  bool added = false;
  for (auto [index, axes] : llvm::enumerate(from.axes)) {
    if (axes.empty() || !into.axes[index].empty() ||
        factors[index].kind == FactorKind::Blocked ||
        llvm::any_of(axes, [&](int64_t a) { return llvm::is_contained(used, a); }))
      continue;
    into.axes[index] = axes;
    used.append(axes.begin(), axes.end());
    added = true;
  }
  if (!into.streamFactor && from.streamFactor) {
    into.streamFactor = from.streamFactor;
    into.streamChunks = from.streamChunks;
  }
  return added;
}

FailureOr<SmallVector<ShardingAttr>>
mlir::fuser::getRequiredOperandShardings(ShardingRuleOpInterface op,
                                         std::string &why) {
  ShardingRule rule = op.getShardingRule();
  Operation *operation = op.getOperation();
  MeshAttr mesh;
  FactorSharding required(rule.getNumFactors());
  ShardingAttr partialSource;
  for (auto [index, result] : llvm::enumerate(operation->getResults())) {
    // Scalars (upstream elementwise ops in linalg bodies) are not placed.
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    ShardingAttr sharding = getSharding(result);
    if (!sharding) {
      why = "result #" + std::to_string(index) + " has no sharding";
      return failure();
    }
    if (mesh && sharding.getMesh() != mesh) {
      why = "the results are on different meshes";
      return failure();
    }
    mesh = sharding.getMesh();
    SmallVector<FactorMismatch> mismatches;
    FactorSharding projected =
        projectToFactors(rule, rule.results[index], sharding, mismatches);
    if (!mismatches.empty()) {
      why = describe("result #" + Twine(index), mismatches.front());
      return failure();
    }
    mergeFactorAxes(required, projected, rule.getFactors());
    if (sharding.isPartial())
      partialSource = sharding;
  }

  // Moving data around is linear: a view's operand is as partial as its
  // result.
  bool partialPassesThrough =
      partialSource && isa<ViewOpInterface>(operation);

  // Otherwise partial results come from split reduction factors. Keep the
  // reduction factors an operand already splits over those axes; put the
  // rest on the outermost reduction factor.
  if (partialSource && !partialPassesThrough) {
    SmallVector<int64_t> pending(partialSource.getPartialAxes());
    SmallVector<int64_t> reductionFactors;
    for (auto [index, factor] : llvm::enumerate(rule.getFactors()))
      if (factor.kind == FactorKind::Reduction)
        reductionFactors.push_back(index);
    if (reductionFactors.empty() &&
        !llvm::is_contained(rule.neutralFor, partialSource.getPartialKind())) {
      why = "the results are partial, but the op reduces nothing";
      return failure();
    }
    for (int64_t factor : reductionFactors)
      if (rule.getFactor(factor).reduction != partialSource.getPartialKind()) {
        why = "the results are partial with reduction kind " +
              stringifyReductionKind(partialSource.getPartialKind()).str() +
              ", but the op reduces with " +
              stringifyReductionKind(rule.getFactor(factor).reduction).str();
        return failure();
      }
    for (auto [index, operand] : llvm::enumerate(operation->getOperands())) {
      ShardingAttr sharding = getSharding(operand);
      if (!sharding || sharding.getMesh() != mesh)
        continue;
      SmallVector<FactorMismatch> ignored;
      FactorSharding actual =
          projectToFactors(rule, rule.operands[index], sharding, ignored);
      for (int64_t factor : reductionFactors) {
        ArrayRef<int64_t> axes = actual.axes[factor];
        if (axes.empty() || !required.axes[factor].empty() ||
            !llvm::all_of(axes, [&](int64_t a) {
              return llvm::is_contained(pending, a);
            }))
          continue;
        required.axes[factor].assign(axes.begin(), axes.end());
        for (int64_t axis : axes)
          llvm::erase(pending, axis);
      }
    }
    if (!reductionFactors.empty())
      llvm::append_range(required.axes[reductionFactors.front()], pending);
  }

  SmallVector<ShardingAttr> shardings;
  for (auto [index, operand] : llvm::enumerate(operation->getOperands())) {
    if (!isa<RankedTensorType>(operand.getType())) {
      shardings.push_back({});
      continue;
    }
    if (std::optional<unsigned> bound = rule.getBoundResult(index)) {
      shardings.push_back(
          placementOf(getSharding(operation->getResult(*bound))));
      continue;
    }
    FailureOr<SmallVector<SmallVector<int64_t>>> dims =
        dimAxesOf(rule, rule.operands[index], required, mesh,
                  "operand #" + Twine(index), why);
    if (failed(dims))
      return failure();
    ArrayRef<int64_t> partialAxes;
    if (partialPassesThrough)
      partialAxes = partialSource.getPartialAxes();
    if (failed(checkAxesUsedOnce(*dims, partialAxes, "operand #" + Twine(index),
                                 why)))
      return failure();
    shardings.push_back(ShardingAttr::get(
        mesh, *dims,
        partialPassesThrough ? partialSource.getPartial() : PartialAttr()));
  }
  return shardings;
}

/// Operand indices in the order their shardings are taken: the op's
/// preferred operands, then the others most-sharded first (ties by index).
static SmallVector<unsigned> operandPriority(ShardingRuleOpInterface op) {
  SmallVector<unsigned> order = op.getPreferredOperands();
  SmallVector<unsigned> rest;
  for (unsigned index = 0, n = op->getNumOperands(); index < n; ++index)
    if (!llvm::is_contained(order, index))
      rest.push_back(index);
  auto numAxes = [&](unsigned index) -> int64_t {
    ShardingAttr sharding = getSharding(op->getOperand(index));
    return sharding ? sharding.getNumUsedAxes() : -1;
  };
  llvm::stable_sort(rest, [&](unsigned a, unsigned b) {
    return numAxes(a) > numAxes(b);
  });
  order.append(rest);
  return order;
}

int64_t mlir::fuser::getNumElements(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
}

/// The factor axes `op`'s operand shardings give, taken in `order`: each
/// mesh axis goes to the first operand whose factor claims it. Projection
/// conflicts of the operands go to `conflicts` when it is given.
static FactorSharding
mergeOperandFactors(ShardingRuleOpInterface op, const ShardingRule &rule,
                    ArrayRef<unsigned> order, MeshAttr mesh,
                    SmallVectorImpl<ProjectionConflict> *conflicts) {
  FactorSharding factors(rule.getNumFactors());
  for (unsigned index : order) {
    ShardingAttr sharding = getSharding(op->getOperand(index));
    // Operands on other meshes will be moved; they say nothing here.
    if (!sharding || sharding.getMesh() != mesh)
      continue;
    SmallVector<FactorMismatch> mismatches;
    FactorSharding projected =
        projectToFactors(rule, rule.operands[index], sharding, mismatches);
    if (conflicts)
      for (FactorMismatch &mismatch : mismatches)
        if (!mismatch.blocked)
          conflicts->push_back(
              {index, mismatch.dim, std::move(mismatch.reason)});
    mergeFactorAxes(factors, projected, rule.getFactors());
  }
  return factors;
}

/// Elements moved to compute `op` locally on `factors`, by the measure
/// decomposition places its moves with: each operand that loses a split
/// moves whole (an operand that only gains one is sliced, moving nothing),
/// and partial results are resolved whole. Nullopt when `factors` cannot
/// place every operand and result, or a shape is dynamic.
static std::optional<int64_t>
getElementsMoved(ShardingRuleOpInterface op, const ShardingRule &rule,
                 const FactorSharding &factors, MeshAttr mesh) {
  int64_t moved = 0;
  FactorMismatch mismatch;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    ShardingAttr sharding = getSharding(operand);
    if (!sharding || sharding.getMesh() != mesh)
      continue;
    FailureOr<SmallVector<SmallVector<int64_t>>> needed =
        dimAxesFromFactors(rule, rule.operands[index], factors, mesh, mismatch);
    if (failed(needed))
      return std::nullopt;
    bool losesSplit = false;
    for (auto [dim, axes] : llvm::enumerate(sharding.getDimAxesList()))
      losesSplit |= llvm::any_of(axes, [&, dim = dim](int64_t axis) {
        return !llvm::is_contained((*needed)[dim], axis);
      });
    int64_t count = getNumElements(operand);
    if (ShapedType::isDynamic(count))
      return std::nullopt;
    if (losesSplit)
      moved += count;
  }
  bool partial = llvm::any_of(
      llvm::zip_equal(rule.getFactors(), factors.axes), [](auto pair) {
        auto [factor, axes] = pair;
        return factor.kind == FactorKind::Reduction && !axes.empty();
      });
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    if (!isa<RankedTensorType>(result.getType()))
      continue;
    if (failed(dimAxesFromFactors(rule, rule.results[index], factors, mesh,
                                  mismatch)))
      return std::nullopt;
    int64_t count = getNumElements(result);
    if (ShapedType::isDynamic(count))
      return std::nullopt;
    if (partial)
      moved += count;
  }
  return moved;
}

/// The factor axes of `op`'s results: those of its operands in priority
/// order, unless putting another sharded operand first moves fewer
/// elements. Where two operands split different factors over one mesh axis
/// only one split survives, and the priority's choice can be the costly
/// one: a weight gradient g^T x of column-split g and sequence-split x
/// would keep x's split of the contracted dim and reduce-scatter the whole
/// weight-sized product, where gathering x moves s·e elements.
static FactorSharding
chooseOperandFactors(ShardingRuleOpInterface op, const ShardingRule &rule,
                     ArrayRef<unsigned> priority, MeshAttr mesh,
                     SmallVectorImpl<ProjectionConflict> &conflicts) {
  FactorSharding chosen =
      mergeOperandFactors(op, rule, priority, mesh, &conflicts);
  std::optional<int64_t> fewest = getElementsMoved(op, rule, chosen, mesh);
  if (!fewest)
    return chosen;
  for (unsigned first : priority.drop_front()) {
    if (!getSharding(op->getOperand(first)))
      continue;
    SmallVector<unsigned> order = {first};
    llvm::append_range(order, llvm::make_filter_range(priority, [&](unsigned i) {
                         return i != first;
                       }));
    FactorSharding candidate =
        mergeOperandFactors(op, rule, order, mesh, /*conflicts=*/nullptr);
    std::optional<int64_t> moved = getElementsMoved(op, rule, candidate, mesh);
    if (moved && *moved < *fewest) {
      fewest = moved;
      chosen = std::move(candidate);
    }
  }
  return chosen;
}

FailureOr<SmallVector<ShardingAttr>> mlir::fuser::projectOperandShardings(
    ShardingRuleOpInterface op, SmallVectorImpl<ProjectionConflict> &conflicts,
    std::string &why) {
  ShardingRule rule = op.getShardingRule();
  Operation *operation = op.getOperation();
  SmallVector<ShardingAttr> results(operation->getNumResults());
  SmallVector<unsigned> priority = operandPriority(op);
  MeshAttr mesh;
  for (unsigned index : priority)
    if (ShardingAttr sharding = getSharding(operation->getOperand(index))) {
      mesh = sharding.getMesh();
      break;
    }
  if (!mesh)
    return results;
  FactorSharding factors =
      chooseOperandFactors(op, rule, priority, mesh, conflicts);

  // A view of a partial value is partial too (moving data is linear), except
  // one that repeats the data (broadcast, expand): its result is resolved,
  // so that decomposition resolves the operand, which is smaller, rather
  // than the repeated copy or what a consumer makes of it.
  SmallVector<int64_t> partialAxes;
  ReductionKind partialKind = ReductionKind::Sum;
  if (isa<ViewOpInterface>(operation) && !rule.repeatsOperandData())
    if (ShardingAttr source = getSharding(operation->getOperand(0));
        source && source.getMesh() == mesh) {
      llvm::append_range(partialAxes, source.getPartialAxes());
      partialKind = source.getPartialKind();
    }
  for (auto [index, factor] : llvm::enumerate(rule.getFactors())) {
    if (factor.kind != FactorKind::Reduction || factors.axes[index].empty())
      continue;
    llvm::append_range(partialAxes, factors.axes[index]);
    partialKind = factor.reduction;
  }
  for (auto [index, result] : llvm::enumerate(operation->getResults())) {
    FailureOr<SmallVector<SmallVector<int64_t>>> dims =
        dimAxesOf(rule, rule.results[index], factors, mesh,
                  "result #" + Twine(index), why);
    if (failed(dims) ||
        failed(checkAxesUsedOnce(*dims, partialAxes, "result #" + Twine(index),
                                 why)))
      return failure();
    auto type = cast<RankedTensorType>(result.getType());
    ShardingAttr sharding =
        ShardingAttr::get(mesh, *dims).withPartial(partialAxes, partialKind);
    // Keep the stream split only where it divides the result's local dim.
    if (auto stream = streamSplitOf(rule.results[index], factors)) {
      ShardingAttr streamed = sharding.withStream(stream->first, stream->second,
                                                  /*chunked=*/false);
      if (streamed.checkShape(type.getShape()).empty())
        sharding = streamed;
    }
    results[index] = sharding;
  }
  return results;
}

bool mlir::fuser::hasRequiredPlacements(Operation *op,
                                        ArrayRef<ShardingAttr> required) {
  return llvm::all_of(
      llvm::zip_equal(op->getOperands(), required), [](auto pair) {
        auto [operand, sharding] = pair;
        ShardingAttr actual = getSharding(operand);
        return !sharding || (actual && actual.hasSamePlacement(sharding));
      });
}

bool mlir::fuser::isResharding(ShardingRuleOpInterface op) {
  if (isUnsharded(op))
    return false;
  std::string why;
  FailureOr<SmallVector<ShardingAttr>> required =
      getRequiredOperandShardings(op, why);
  return failed(required) || !hasRequiredPlacements(op, *required);
}
