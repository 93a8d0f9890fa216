//===- ViewLayout.cpp - layouts of results that are views -----------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

using namespace mlir;
using namespace mlir::fuser;

std::optional<Layout>
mlir::fuser::inferViewLayoutFromFactors(Operation *op,
                                        const Layout &operandLayout,
                                        std::string &whyNot) {
  auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruled || op->getNumResults() != 1) {
    whyNot = "the op has no single result with a sharding rule";
    return std::nullopt;
  }
  ShardingRule rule = ruled.getShardingRule();
  const DimFactors &operandDims = rule.operands.front();
  const DimFactors &resultDims = rule.results.front();

  // The operand's factors in memory order, each with whether it is
  // contiguous with the next inner one: within a dim they are; the dim's
  // innermost factor carries the dim's contiguity.
  DenseMap<int64_t, std::pair<size_t, bool>> placeOf;
  for (auto [position, dim] : llvm::enumerate(operandLayout.order)) {
    const SmallVector<int64_t, 2> &factors = operandDims[dim];
    for (auto [index, factor] : llvm::enumerate(factors)) {
      bool contiguous = index + 1 < factors.size() ||
                        operandLayout.contiguity[position];
      placeOf[factor] = {placeOf.size(), contiguous};
    }
  }

  // Each result dim sits where its outermost factor sits. Its factors must
  // follow one another in memory, each contiguous with the next; dims made
  // only of new factors repeat data (stride 0) and go outermost; size-1
  // dims go right after the dim before them.
  int64_t rank = resultDims.size();
  SmallVector<double> key(rank);
  SmallVector<bool> contiguity(rank, true);
  double previous = -1.0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    const SmallVector<int64_t, 2> &factors = resultDims[dim];
    if (factors.empty()) {
      key[dim] = previous + 0.5;
      previous = key[dim];
      continue;
    }
    bool repeated = llvm::none_of(
        factors, [&](int64_t factor) { return placeOf.contains(factor); });
    if (repeated) {
      key[dim] = -1.0 - static_cast<double>(rank - dim);
      contiguity[dim] = false;
      continue;
    }
    for (auto [index, factor] : llvm::enumerate(factors)) {
      auto it = placeOf.find(factor);
      if (it == placeOf.end() ||
          (index > 0 && it->second.first != placeOf[factors[index - 1]].first + 1)) {
        whyNot = "result dim " + std::to_string(dim) +
                 " merges data that is not adjacent in memory";
        return std::nullopt;
      }
      if (index + 1 < factors.size() && !it->second.second) {
        whyNot = "result dim " + std::to_string(dim) +
                 " merges dims that are not contiguous";
        return std::nullopt;
      }
    }
    key[dim] = placeOf[factors.front()].first;
    contiguity[dim] = placeOf[factors.back()].second;
    previous = key[dim];
  }
  for (const SmallVector<int64_t, 2> &factors : operandDims)
    for (int64_t factor : factors)
      if (llvm::none_of(resultDims, [&](const SmallVector<int64_t, 2> &dims) {
            return llvm::is_contained(dims, factor);
          })) {
        whyNot = "the result drops or reshapes data of the operand";
        return std::nullopt;
      }

  Layout layout;
  for (int64_t dim = 0; dim < rank; ++dim)
    layout.order.push_back(dim);
  llvm::stable_sort(layout.order,
                    [&](int64_t a, int64_t b) { return key[a] < key[b]; });
  for (int64_t dim : layout.order)
    layout.contiguity.push_back(contiguity[dim]);
  return layout;
}

/// A slice keeps the operand's memory order. A dim whose new extent times
/// its step differs from the old extent leaves a gap before the next outer
/// dim, which is then not contiguous; a step above 1 leaves gaps inside the
/// dim itself.
Layout mlir::fuser::inferSliceLayout(const Layout &operandLayout,
                                     ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> sliced,
                                     ArrayRef<int64_t> steps) {
  Layout layout = operandLayout;
  std::optional<size_t> outerNeighbour;
  for (auto [position, dim] : llvm::enumerate(layout.order)) {
    int64_t step = steps[dim];
    bool gap = ShapedType::isDynamic(shape[dim]) ||
               ShapedType::isDynamic(sliced[dim]) ||
               sliced[dim] * step != shape[dim];
    if (gap && outerNeighbour)
      layout.contiguity[*outerNeighbour] = false;
    if (step != 1)
      layout.contiguity[position] = false;
    if (shape[dim] != 1)
      outerNeighbour = position;
  }
  return layout;
}

std::optional<Layout> SliceOp::inferViewLayout(const Layout &operandLayout,
                                               std::string &) {
  return inferSliceLayout(operandLayout, getInput().getType().getShape(),
                          getResult().getType().getShape(), getSteps());
}
