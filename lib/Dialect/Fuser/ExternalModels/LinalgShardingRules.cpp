//===- LinalgShardingRules.cpp - linalg structured ops --------------------===//
//
// A structured op's loops are its factors. A parallel loop is shared by
// every operand and result whose indexing map names it; a reduction loop
// appears only in operands, and splitting it makes the results partial
// with the kind of the body's combiner (arith.addf: sum, arith.maximumf:
// max, ...), as a matmul's K. Each init is bound to its result: the op
// computes the result into it, and their types must be equal, so a partial
// result accumulates into a partial init. Loops of an op whose maps are not
// all projected permutations (convolutions), and reduction loops whose
// combiner is no known reduction, stay whole.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/ExternalModels/UpstreamShardingRules.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

/// The reduction kind of `combiner`, an op of the body that folds the
/// yielded value into an output's block argument.
static std::optional<ReductionKind> getReductionKind(Operation *combiner) {
  return TypeSwitch<Operation *, std::optional<ReductionKind>>(combiner)
      .Case<arith::AddFOp, arith::AddIOp>(
          [](auto) { return ReductionKind::Sum; })
      .Case<arith::MulFOp, arith::MulIOp>(
          [](auto) { return ReductionKind::Prod; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(
          [](auto) { return ReductionKind::Max; })
      .Case<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(
          [](auto) { return ReductionKind::Min; })
      .Default([](Operation *) { return std::nullopt; });
}

/// How partial results combine when a reduction loop is split: the kind all
/// outputs' combiners share, each folding what the body computes into its
/// output's block argument and nothing else reading that argument.
static std::optional<ReductionKind> getCombinerKind(linalg::LinalgOp op) {
  Operation *yield = op.getBlock()->getTerminator();
  std::optional<ReductionKind> kind;
  for (auto [output, yielded] :
       llvm::zip_equal(op.getRegionOutputArgs(), yield->getOperands())) {
    Operation *combiner = yielded.getDefiningOp();
    if (!combiner || combiner->getNumOperands() != 2 || !output.hasOneUse() ||
        !llvm::is_contained(combiner->getOperands(), output))
      return std::nullopt;
    std::optional<ReductionKind> combined = getReductionKind(combiner);
    if (!combined || (kind && kind != combined))
      return std::nullopt;
    kind = combined;
  }
  return kind;
}

/// Operand dims of an op whose maps are not all projected permutations: a
/// blocked factor of its own each, so that the op runs on whole operands.
static void addBlockedOperands(linalg::LinalgOp op, ShardingRule &rule) {
  for (Value operand : op->getOperands()) {
    DimFactors &dims = rule.operands.emplace_back();
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type)
      continue;
    dims.resize(type.getRank());
    for (auto [dim, size] : llvm::enumerate(type.getShape()))
      rule.addOwnFactor(dims, dim, size, FactorKind::Blocked);
  }
}

/// Operand dims of an op whose maps are projected permutations: the factor
/// of the loop each names.
static void addLoopOperands(linalg::LinalgOp op, ShardingRule &rule) {
  // Each loop's size, from the first tensor dim that names it statically.
  SmallVector<int64_t> loopSizes(op.getNumLoops(), ShapedType::kDynamic);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, size] : llvm::enumerate(type.getShape())) {
      int64_t &loopSize = loopSizes[map.getDimPosition(dim)];
      if (ShapedType::isDynamic(loopSize))
        loopSize = size;
    }
  }

  std::optional<ReductionKind> combiner;
  if (op.getNumReductionLoops() > 0)
    combiner = getCombinerKind(op);
  SmallVector<std::optional<int64_t>> loopFactors;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (loopSizes[loop] == 1) {
      loopFactors.push_back(std::nullopt);
      continue;
    }
    FactorKind kind = FactorKind::Parallel;
    if (iterator == utils::IteratorType::reduction)
      kind = combiner ? FactorKind::Reduction : FactorKind::Blocked;
    loopFactors.push_back(rule.addFactor(
        loopSizes[loop], kind, combiner.value_or(ReductionKind::Sum)));
  }

  for (OpOperand &operand : op->getOpOperands()) {
    DimFactors &dims = rule.operands.emplace_back();
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    dims.resize(type.getRank());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [dim, size] : llvm::enumerate(type.getShape()))
      if (std::optional<int64_t> factor = loopFactors[map.getDimPosition(dim)];
          factor && size != 1)
        dims[dim].push_back(*factor);
  }
}

/// A fill holds the same value on every rank, which is a partial value of
/// max, min and avg as it is, of sum when it is zero and of prod when one.
static SmallVector<ReductionKind> getNeutralKinds(linalg::FillOp fill) {
  SmallVector<ReductionKind> kinds = {ReductionKind::Max, ReductionKind::Min,
                                      ReductionKind::Avg};
  Value value = fill.getInputs().front();
  if (matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero()))
    kinds.push_back(ReductionKind::Sum);
  if (matchPattern(value, m_OneFloat()) || matchPattern(value, m_One()))
    kinds.push_back(ReductionKind::Prod);
  return kinds;
}

static ShardingRule getStructuredOpRule(linalg::LinalgOp op) {
  ShardingRule rule;
  if (op.hasOnlyProjectedPermutations())
    addLoopOperands(op, rule);
  else
    addBlockedOperands(op, rule);
  rule.boundResults.resize(op->getNumOperands());
  for (OpResult result : op->getResults()) {
    OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
    rule.results.push_back(rule.operands[init->getOperandNumber()]);
    rule.boundResults[init->getOperandNumber()] = result.getResultNumber();
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
    rule.neutralFor = getNeutralKinds(fill);
  return rule;
}

namespace {
template <typename OpT>
struct StructuredOpShardingRule : public ShardingRuleOpInterface::ExternalModel<
                                      StructuredOpShardingRule<OpT>, OpT> {
  ShardingRule getShardingRule(Operation *op) const {
    return getStructuredOpRule(cast<linalg::LinalgOp>(op));
  }

  // A contraction keeps its right-hand side (usually a weight) where it is,
  // as fuser.matmul does.
  SmallVector<unsigned> getPreferredOperands(Operation *op) const {
    if (linalg::isaContractionOpInterface(cast<linalg::LinalgOp>(op)))
      return {1, 0};
    return {};
  }
};
} // namespace

template <typename... OpTs>
static void attachToStructuredOps(MLIRContext *context) {
  (OpTs::template attachInterface<StructuredOpShardingRule<OpTs>>(*context),
   ...);
}

void mlir::fuser::registerLinalgShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachToStructuredOps<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
  });
}
