//===- Layout.cpp - allocation order and contiguity of local buffers ------===//

#include "fuser/Dialect/Fuser/IR/Layout.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;

Layout Layout::rowMajor(int64_t rank) {
  Layout layout;
  for (int64_t dim = 0; dim < rank; ++dim)
    layout.order.push_back(dim);
  layout.contiguity.assign(rank, true);
  return layout;
}

Layout Layout::of(ShardingAttr sharding) {
  Layout layout = rowMajor(sharding.getRank());
  if (!sharding.getOrder().empty())
    layout.order.assign(sharding.getOrder().begin(), sharding.getOrder().end());
  if (!sharding.getContiguity().empty())
    layout.contiguity.assign(sharding.getContiguity().begin(),
                             sharding.getContiguity().end());
  return layout;
}

bool Layout::isRowMajor() const {
  for (auto [index, dim] : llvm::enumerate(order))
    if (dim != static_cast<int64_t>(index))
      return false;
  return isContiguous();
}

bool Layout::compliesWith(const Layout &required) const {
  if (order != required.order)
    return false;
  for (auto [have, want] : llvm::zip_equal(contiguity, required.contiguity))
    if (want && !have)
      return false;
  return true;
}

ShardingAttr mlir::fuser::withLayout(ShardingAttr sharding,
                                     const Layout &layout) {
  return ShardingAttr::get(sharding.getMesh(), sharding.getDimAxesList(),
                           sharding.getPartialAxes(), sharding.getPartialKind(),
                           sharding.getStreamDim(), sharding.getStreamChunks(),
                           layout.order, layout.contiguity);
}

bool mlir::fuser::hasFreeLayout(Value value) {
  ShardingAttr sharding = getSharding(value);
  if (!sharding || !sharding.getOrder().empty() ||
      !sharding.getContiguity().empty())
    return false;
  if (auto argument = dyn_cast<BlockArgument>(value))
    return !isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
  return true;
}
