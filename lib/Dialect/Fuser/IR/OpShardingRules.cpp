//===- OpShardingRules.cpp - ShardingRuleOpInterface of fuser ops ---------===//
//
// Pointwise ops, copies and creation ops use the interface's default rule
// (every dim its own factor, shared by all operands and results); the ops
// below relate dims differently.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

using namespace mlir;
using namespace mlir::fuser;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// Reduced dims of the input become reduction factors of `kind`; the others
/// are shared with the result(s). Kept (size-1) result dims have no factor.
static ShardingRule reductionRule(Operation *op, ArrayRef<int64_t> reducedDims,
                                  FactorKind reducedKind, ReductionKind kind) {
  ArrayRef<int64_t> shape = shapeOf(op->getOperand(0));
  ShardingRule rule;
  DimFactors input(shape.size());
  DimFactors result(shapeOf(op->getResult(0)).size());
  int64_t resultDim = 0;
  bool keepdim = shape.size() == result.size();
  for (auto [dim, size] : llvm::enumerate(shape)) {
    bool reduced = llvm::is_contained(reducedDims, dim);
    if (reduced) {
      if (size != 1)
        input[dim].push_back(rule.addFactor(size, reducedKind, kind));
      if (keepdim)
        ++resultDim;
      continue;
    }
    if (size != 1) {
      int64_t factor = rule.addFactor(size);
      input[dim].push_back(factor);
      result[resultDim].push_back(factor);
    }
    ++resultDim;
  }
  rule.operands.push_back(std::move(input));
  rule.results.assign(op->getNumResults(), result);
  return rule;
}

ShardingRule SumOp::getShardingRule() {
  return reductionRule(*this, getDims(), FactorKind::Reduction,
                       ReductionKind::Sum);
}
ShardingRule MaxOp::getShardingRule() {
  return reductionRule(*this, getDims(), FactorKind::Reduction,
                       ReductionKind::Max);
}
ShardingRule MinOp::getShardingRule() {
  return reductionRule(*this, getDims(), FactorKind::Reduction,
                       ReductionKind::Min);
}
// Equal-sized shards: the mean of the per-rank means is the global mean.
ShardingRule MeanOp::getShardingRule() {
  return reductionRule(*this, getDims(), FactorKind::Reduction,
                       ReductionKind::Avg);
}
// Per-rank variances do not combine into the global one by a reduction.
ShardingRule VarMeanOp::getShardingRule() {
  return reductionRule(*this, getDims(), FactorKind::Blocked,
                       ReductionKind::Sum);
}

ShardingRule BroadcastOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  // A size-1 dim expanded to a larger one is new data in the result.
  for (auto [inputDim, resultDim] : llvm::enumerate(getDims()))
    if (in[inputDim] == out[resultDim])
      mapping.emplace_back(inputDim, resultDim);
  return ShardingRule::pairedDims(in, out, mapping);
}

ShardingRule ExpandOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  for (int64_t dim = 0, rank = in.size(); dim < rank; ++dim)
    if (in[dim] == out[dim])
      mapping.emplace_back(dim, dim);
  return ShardingRule::pairedDims(in, out, mapping);
}

ShardingRule SqueezeOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  int64_t resultDim = 0;
  for (int64_t dim = 0, rank = in.size(); dim < rank; ++dim)
    if (!llvm::is_contained(getDims(), dim))
      mapping.emplace_back(dim, resultDim++);
  return ShardingRule::pairedDims(in, out, mapping);
}

ShardingRule ReshapeOp::getShardingRule() {
  return ShardingRule::reshape(shapeOf(getInput()), shapeOf(getResult()));
}

ShardingRule PermuteOp::getShardingRule() {
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  for (auto [resultDim, inputDim] : llvm::enumerate(getPerm()))
    mapping.emplace_back(inputDim, resultDim);
  return ShardingRule::pairedDims(shapeOf(getInput()), shapeOf(getResult()),
                                  mapping);
}

ShardingRule SliceOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  return ShardingRule::keepingUnchangedDims(
      in, shapeOf(getResult()), [&](int64_t dim) {
        return getStarts()[dim] != 0 || getLimits()[dim] != in[dim] ||
               getSteps()[dim] != 1;
      });
}

ShardingRule PadOp::getShardingRule() {
  return ShardingRule::keepingUnchangedDims(
      shapeOf(getInput()), shapeOf(getResult()),
      [&](int64_t dim) { return getLow()[dim] != 0 || getHigh()[dim] != 0; });
}

ShardingRule SelectOp::getShardingRule() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  int64_t resultDim = 0;
  for (int64_t dim = 0, rank = in.size(); dim < rank; ++dim)
    if (dim != static_cast<int64_t>(getDim()))
      mapping.emplace_back(dim, resultDim++);
  return ShardingRule::pairedDims(in, shapeOf(getResult()), mapping,
                                  FactorKind::Blocked);
}

ShardingRule CatOp::getShardingRule() {
  SmallVector<ArrayRef<int64_t>> inputs =
      llvm::map_to_vector(getInputs(), shapeOf);
  return ShardingRule::concatenation(inputs, shapeOf(getResult()), getDim());
}

ShardingRule MatmulOp::getShardingRule() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  int64_t rank = lhs.size(), rhsRank = rhs.size();
  // A matrix rhs (shared by every batch entry) has no batch dims.
  bool sharedRhs = rhsRank != rank;
  ShardingRule rule;
  DimFactors a(rank), b(rhsRank), c(rank);
  for (int64_t dim = 0; dim < rank - 2; ++dim) {
    if (lhs[dim] == 1)
      continue;
    int64_t batch = rule.addFactor(lhs[dim]);
    a[dim].push_back(batch);
    if (!sharedRhs)
      b[dim].push_back(batch);
    c[dim].push_back(batch);
  }
  if (lhs[rank - 2] != 1) {
    int64_t m = rule.addFactor(lhs[rank - 2]);
    a[rank - 2].push_back(m);
    c[rank - 2].push_back(m);
  }
  if (rhs[rhsRank - 1] != 1) {
    int64_t n = rule.addFactor(rhs[rhsRank - 1]);
    b[rhsRank - 1].push_back(n);
    c[rank - 1].push_back(n);
  }
  if (lhs[rank - 1] != 1) {
    int64_t k = rule.addFactor(lhs[rank - 1], FactorKind::Reduction);
    a[rank - 1].push_back(k);
    b[rhsRank - 2].push_back(k);
  }
  rule.operands = {std::move(a), std::move(b)};
  rule.results.push_back(std::move(c));
  return rule;
}

// Keep the right-hand side (usually a weight) where it is.
SmallVector<unsigned> MatmulOp::getPreferredOperands() { return {1, 0}; }

ShardingRule LinearOp::getShardingRule() {
  ArrayRef<int64_t> x = shapeOf(getInput()), w = shapeOf(getWeight());
  int64_t rank = x.size();
  ShardingRule rule;
  DimFactors input(rank), weight(w.size()), result(shapeOf(getResult()).size());
  for (int64_t dim = 0; dim < rank - 1; ++dim) {
    if (x[dim] == 1)
      continue;
    int64_t factor = rule.addFactor(x[dim]);
    input[dim].push_back(factor);
    result[dim].push_back(factor);
  }
  if (x[rank - 1] != 1) {
    int64_t k = rule.addFactor(x[rank - 1], FactorKind::Reduction);
    input[rank - 1].push_back(k);
    weight[w.size() - 1].push_back(k);
  }
  std::optional<int64_t> n;
  if (w.size() == 2 && w[0] != 1) {
    n = rule.addFactor(w[0]);
    weight[0].push_back(*n);
    result[rank - 1].push_back(*n);
  }
  rule.operands = {std::move(input), std::move(weight)};
  if (getBias()) {
    // The bias is [N] for a weight [N, K] and a scalar for a weight [K].
    DimFactors bias(shapeOf(getBias()).size());
    if (n)
      bias[0].push_back(*n);
    rule.operands.push_back(std::move(bias));
  }
  rule.results.push_back(std::move(result));
  return rule;
}

// The weight first, then the bias: weights are never redistributed.
SmallVector<unsigned> LinearOp::getPreferredOperands() {
  if (getBias())
    return {1, 2, 0};
  return {1, 0};
}
