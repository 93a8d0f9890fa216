//===- ShardingRule.cpp - factors and their shardings ---------------------===//

#include "fuser/Dialect/Fuser/IR/ShardingRule.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser/Dialect/Fuser/Interfaces/FuserInterfaces.cpp.inc"

int64_t ShardingRule::addFactor(int64_t size, FactorKind kind,
                                ReductionKind reduction) {
  factors.push_back(Factor{size, kind, reduction});
  return factors.size() - 1;
}

void ShardingRule::addOwnFactor(DimFactors &tensor, int64_t dim, int64_t size,
                                FactorKind kind) {
  if (size != 1)
    tensor[dim].push_back(addFactor(size, kind));
}

bool ShardingRule::repeatsOperandData() const {
  DenseSet<int64_t> operandFactors;
  for (const DimFactors &operand : operands)
    for (const SmallVector<int64_t, 2> &dim : operand)
      operandFactors.insert(dim.begin(), dim.end());
  return llvm::any_of(results, [&](const DimFactors &result) {
    return llvm::any_of(result, [&](const SmallVector<int64_t, 2> &dim) {
      return llvm::any_of(dim, [&](int64_t factor) {
        return !operandFactors.contains(factor) &&
               factors[factor].kind == FactorKind::Parallel;
      });
    });
  });
}

ShardingRule ShardingRule::pointwise(ArrayRef<int64_t> shape,
                                     unsigned numOperands,
                                     unsigned numResults) {
  ShardingRule rule;
  DimFactors dims(shape.size());
  for (auto [dim, size] : llvm::enumerate(shape))
    rule.addOwnFactor(dims, dim, size);
  rule.operands.assign(numOperands, dims);
  rule.results.assign(numResults, dims);
  return rule;
}

namespace {
/// One side of a reshape, walked row-major: the current dim (unit dims are
/// skipped) and how much of it no factor covers yet.
struct ReshapeSide {
  explicit ReshapeSide(ArrayRef<int64_t> shape)
      : shape(shape), dims(shape.size()) {
    skipUnitDims();
  }
  bool done() const { return dim == shape.size(); }
  /// Gives the next `size` of the current dim to `factor`.
  void take(int64_t factor, int64_t size) {
    dims[dim].push_back(factor);
    if (rest != size) {
      rest /= size;
      return;
    }
    ++dim;
    skipUnitDims();
  }
  /// The dims from the current one on get blocked factors of their own.
  void blockRest(ShardingRule &rule) {
    if (done())
      return;
    rule.addOwnFactor(dims, dim, rest, FactorKind::Blocked);
    for (size_t later = dim + 1; later < shape.size(); ++later)
      rule.addOwnFactor(dims, later, shape[later], FactorKind::Blocked);
  }

  ArrayRef<int64_t> shape;
  DimFactors dims;
  size_t dim = 0;
  int64_t rest = 0;

private:
  void skipUnitDims() {
    while (dim < shape.size() && shape[dim] == 1)
      ++dim;
    rest = done() ? 0 : shape[dim];
  }
};
} // namespace

ShardingRule ShardingRule::reshape(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  ShardingRule rule;
  // Walk both shapes row-major. While the remaining sizes of the current
  // dims divide one another, the smaller is a factor of both; once they do
  // not (or a size is dynamic or 0 and the sizes differ), the dims from
  // there on cannot share factors.
  ReshapeSide in(from), out(to);
  while (!in.done() && !out.done()) {
    bool divisible = !ShapedType::isDynamic(in.rest) &&
                     !ShapedType::isDynamic(out.rest) && in.rest != 0 &&
                     out.rest != 0;
    int64_t size;
    if (in.rest == out.rest)
      size = in.rest;
    else if (divisible && in.rest % out.rest == 0)
      size = out.rest;
    else if (divisible && out.rest % in.rest == 0)
      size = in.rest;
    else
      break;
    int64_t factor = rule.addFactor(size);
    in.take(factor, size);
    out.take(factor, size);
  }
  // What is left could not be matched: those dims may not be split.
  in.blockRest(rule);
  out.blockRest(rule);
  rule.operands.push_back(std::move(in.dims));
  rule.results.push_back(std::move(out.dims));
  return rule;
}

ShardingRule ShardingRule::pairedDims(
    ArrayRef<int64_t> operandShape, ArrayRef<int64_t> resultShape,
    ArrayRef<std::pair<int64_t, int64_t>> mapping, FactorKind ownKind) {
  ShardingRule rule;
  DimFactors operand(operandShape.size()), result(resultShape.size());
  SmallVector<bool> operandPaired(operandShape.size()),
      resultPaired(resultShape.size());
  for (auto [from, to] : mapping) {
    operandPaired[from] = resultPaired[to] = true;
    if (operandShape[from] == 1)
      continue;
    int64_t factor = rule.addFactor(operandShape[from]);
    operand[from].push_back(factor);
    result[to].push_back(factor);
  }
  for (auto [dim, size] : llvm::enumerate(operandShape))
    if (!operandPaired[dim])
      rule.addOwnFactor(operand, dim, size, ownKind);
  for (auto [dim, size] : llvm::enumerate(resultShape))
    if (!resultPaired[dim])
      rule.addOwnFactor(result, dim, size, ownKind);
  rule.operands.push_back(std::move(operand));
  rule.results.push_back(std::move(result));
  return rule;
}

ShardingRule
ShardingRule::keepingUnchangedDims(ArrayRef<int64_t> operandShape,
                                   ArrayRef<int64_t> resultShape,
                                   function_ref<bool(int64_t)> changes) {
  SmallVector<std::pair<int64_t, int64_t>> mapping;
  for (int64_t dim = 0, rank = operandShape.size(); dim < rank; ++dim)
    if (!changes(dim))
      mapping.emplace_back(dim, dim);
  return pairedDims(operandShape, resultShape, mapping, FactorKind::Blocked);
}

ShardingRule
ShardingRule::concatenation(ArrayRef<ArrayRef<int64_t>> operandShapes,
                            ArrayRef<int64_t> resultShape, int64_t catDim) {
  ShardingRule rule;
  DimFactors result(resultShape.size());
  SmallVector<DimFactors> inputs(operandShapes.size(),
                                 DimFactors(resultShape.size()));
  for (int64_t dim = 0, rank = resultShape.size(); dim < rank; ++dim) {
    if (dim == catDim) {
      for (auto [shape, factors] : llvm::zip_equal(operandShapes, inputs))
        rule.addOwnFactor(factors, dim, shape[dim], FactorKind::Blocked);
      rule.addOwnFactor(result, dim, resultShape[dim], FactorKind::Blocked);
      continue;
    }
    if (resultShape[dim] == 1)
      continue;
    int64_t factor = rule.addFactor(resultShape[dim]);
    for (DimFactors &factors : inputs)
      factors[dim].push_back(factor);
    result[dim].push_back(factor);
  }
  rule.operands = std::move(inputs);
  rule.results.push_back(std::move(result));
  return rule;
}

SmallVector<int64_t> FactorSharding::usedAxes() const {
  SmallVector<int64_t> used;
  for (const SmallVector<int64_t> &factorAxes : axes)
    used.append(factorAxes.begin(), factorAxes.end());
  return used;
}

static std::string describeAxes(ArrayRef<int64_t> axes) {
  std::string text = "[";
  for (auto [index, axis] : llvm::enumerate(axes))
    text += (index ? ", " : "") + std::to_string(axis);
  return text + "]";
}

FactorSharding
mlir::fuser::projectToFactors(const ShardingRule &rule, const DimFactors &dims,
                              ShardingAttr sharding,
                              SmallVectorImpl<FactorMismatch> &mismatches) {
  FactorSharding result(rule.getNumFactors());
  MeshAttr mesh = sharding.getMesh();
  for (auto [dim, factors] : llvm::enumerate(dims)) {
    ArrayRef<int64_t> axes = sharding.getDimAxes(dim);
    size_t next = 0;
    int64_t rest = factors.empty() ? 1 : rule.getFactor(factors[0]).size;
    for (int64_t axis : axes) {
      int64_t parts = mesh.getAxisSize(axis);
      // A fully split factor hands the remaining axes to the next one.
      while (rest == 1 && next + 1 < factors.size())
        rest = rule.getFactor(factors[++next]).size;
      FactorMismatch mismatch{static_cast<int64_t>(dim), "", false};
      if (factors.empty() || rest == 1) {
        mismatch.reason = "mesh axis " + std::to_string(axis) +
                          " splits a dim that is already fully split";
      } else if (rule.getFactor(factors[next]).kind == FactorKind::Blocked) {
        mismatch.reason = "the op needs the dim whole, but mesh axes " +
                          describeAxes(axes) + " split it";
        mismatch.blocked = true;
      } else if (!ShapedType::isDynamic(rest) && rest % parts != 0) {
        mismatch.reason =
            "mesh axis " + std::to_string(axis) + " (size " +
            std::to_string(parts) +
            ") does not divide the outer factor of the dim (size " +
            std::to_string(rest) + "); the split would straddle factors";
      }
      if (!mismatch.reason.empty()) {
        mismatches.push_back(std::move(mismatch));
        break;
      }
      result.axes[factors[next]].push_back(axis);
      if (!ShapedType::isDynamic(rest))
        rest /= parts;
    }
  }
  if (std::optional<int64_t> streamDim = sharding.getStreamDim()) {
    const SmallVector<int64_t, 2> &factors = dims[*streamDim];
    if (!factors.empty() &&
        rule.getFactor(factors.front()).kind != FactorKind::Blocked) {
      result.streamFactor = factors.front();
      result.streamChunks = sharding.getStreamChunks();
    }
  }
  return result;
}

FailureOr<SmallVector<SmallVector<int64_t>>>
mlir::fuser::dimAxesFromFactors(const ShardingRule &rule,
                                const DimFactors &dims,
                                const FactorSharding &factors, MeshAttr mesh,
                                FactorMismatch &mismatch) {
  SmallVector<SmallVector<int64_t>> result(dims.size());
  for (auto [dim, dimFactors] : llvm::enumerate(dims)) {
    // Axes may continue into the next factor only when every factor before
    // it is fully split: nested outer splits of the dim.
    bool outerFullySplit = true;
    for (int64_t factor : dimFactors) {
      ArrayRef<int64_t> axes = factors.axes[factor];
      if (axes.empty()) {
        outerFullySplit = false;
        continue;
      }
      if (!outerFullySplit) {
        mismatch = {static_cast<int64_t>(dim),
                    "mesh axes " + describeAxes(axes) +
                        " would split an inner factor of the dim while an "
                        "outer factor is not fully split"};
        return failure();
      }
      result[dim].append(axes.begin(), axes.end());
      int64_t parts = 1;
      for (int64_t axis : axes)
        parts *= mesh.getAxisSize(axis);
      int64_t size = rule.getFactor(factor).size;
      outerFullySplit = !ShapedType::isDynamic(size) && parts == size;
    }
  }
  return result;
}

std::optional<std::pair<int64_t, int64_t>>
mlir::fuser::streamSplitOf(const DimFactors &dims,
                           const FactorSharding &factors) {
  if (!factors.streamFactor)
    return std::nullopt;
  for (auto [dim, dimFactors] : llvm::enumerate(dims))
    if (!dimFactors.empty() && dimFactors.front() == *factors.streamFactor)
      return std::make_pair(static_cast<int64_t>(dim), factors.streamChunks);
  return std::nullopt;
}

std::optional<ShardingRule> mlir::fuser::getShardingRule(Operation *op) {
  if (auto ruled = dyn_cast<ShardingRuleOpInterface>(op))
    return ruled.getShardingRule();
  return std::nullopt;
}
