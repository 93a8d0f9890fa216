//===- Layout.cpp - allocation order and contiguity of local buffers ------===//

#include "fuser/Dialect/Fuser/IR/Layout.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
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

Layout mlir::fuser::communicationLayout(const Layout &current,
                                       std::optional<int64_t> outerDim) {
  Layout layout;
  if (outerDim)
    layout.order.push_back(*outerDim);
  for (int64_t dim : current.order)
    if (dim != outerDim)
      layout.order.push_back(dim);
  layout.contiguity.assign(layout.order.size(), true);
  return layout;
}

bool mlir::fuser::servesCommunication(const Layout &current,
                                      ArrayRef<int64_t> localShape,
                                      std::optional<int64_t> outerDim) {
  if (!current.isContiguous())
    return false;
  if (!outerDim)
    return true;
  for (int64_t dim : current.order) {
    if (dim == *outerDim)
      return true;
    if (localShape[dim] != 1)
      return false;
  }
  return true;
}

bool mlir::fuser::servesChunkwiseCommunication(const Layout &current,
                                               ArrayRef<int64_t> localShape,
                                               int64_t streamDim,
                                               int64_t chunks,
                                               std::optional<int64_t> outerDim) {
  SmallVector<int64_t> chunk(localShape);
  chunk[streamDim] /= chunks;
  return servesCommunication(current, localShape, streamDim) &&
         servesCommunication(current, chunk, outerDim);
}

MemRefType mlir::fuser::getLocalBufferType(RankedTensorType type) {
  ShardingAttr sharding = getSharding(type);
  SmallVector<int64_t> shape(type.getShape());
  Layout layout = Layout::rowMajor(type.getRank());
  if (sharding) {
    shape = sharding.getLocalShape(type.getShape());
    layout = Layout::of(sharding);
  }
  if (layout.isRowMajor())
    return MemRefType::get(shape, type.getElementType());
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  int64_t next = 1;
  bool known = true;
  for (int64_t position = layout.order.size() - 1; position >= 0; --position) {
    int64_t dim = layout.order[position];
    known = known && layout.contiguity[position];
    if (known)
      strides[dim] = next;
    if (ShapedType::isDynamic(shape[dim]) || !known)
      known = false;
    else
      next *= shape[dim];
  }
  int64_t offset = layout.isContiguous() ? 0 : ShapedType::kDynamic;
  return MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), offset, strides));
}

bool mlir::fuser::hasUnstatedLayout(Value value) {
  ShardingAttr sharding = getSharding(value);
  if (!sharding || sharding.statesLayout())
    return false;
  auto argument = dyn_cast<BlockArgument>(value);
  return !argument ||
         !isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
}

bool mlir::fuser::hasFreeLayout(Value value) {
  return hasUnstatedLayout(value) &&
         llvm::none_of(value.getUsers(), [](Operation *user) {
           return user->hasTrait<mlir::OpTrait::ReturnLike>();
         });
}
