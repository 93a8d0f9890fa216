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

ShardingRule ShardingRule::reshape(ArrayRef<int64_t> from,
                                   ArrayRef<int64_t> to) {
  ShardingRule rule;
  DimFactors in(from.size()), out(to.size());
  // Walk both shapes row-major. While the remaining sizes of the current
  // dims divide one another, the smaller is a factor of both; once they do
  // not (or a size is dynamic and the sizes differ), the dims from there on
  // cannot share factors.
  size_t i = 0, o = 0;
  int64_t restIn = 0, restOut = 0;
  auto nextIn = [&] {
    while (i < from.size() && from[i] == 1)
      ++i;
    restIn = i < from.size() ? from[i] : 0;
  };
  auto nextOut = [&] {
    while (o < to.size() && to[o] == 1)
      ++o;
    restOut = o < to.size() ? to[o] : 0;
  };
  nextIn();
  nextOut();
  while (i < from.size() && o < to.size()) {
    bool dynamic = ShapedType::isDynamic(restIn) || ShapedType::isDynamic(restOut);
    int64_t size;
    if (restIn == restOut)
      size = restIn;
    else if (!dynamic && restIn % restOut == 0)
      size = restOut;
    else if (!dynamic && restOut % restIn == 0)
      size = restIn;
    else
      break;
    int64_t factor = rule.addFactor(size);
    in[i].push_back(factor);
    out[o].push_back(factor);
    if (restIn == size) {
      ++i;
      nextIn();
    } else {
      restIn /= size;
    }
    if (restOut == size) {
      ++o;
      nextOut();
    } else {
      restOut /= size;
    }
  }
  // What is left could not be matched: those dims may not be split.
  if (i < from.size())
    rule.addOwnFactor(in, i, restIn, FactorKind::Blocked);
  for (size_t d = i + 1; d < from.size(); ++d)
    rule.addOwnFactor(in, d, from[d], FactorKind::Blocked);
  if (o < to.size())
    rule.addOwnFactor(out, o, restOut, FactorKind::Blocked);
  for (size_t d = o + 1; d < to.size(); ++d)
    rule.addOwnFactor(out, d, to[d], FactorKind::Blocked);
  rule.operands.push_back(std::move(in));
  rule.results.push_back(std::move(out));
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
