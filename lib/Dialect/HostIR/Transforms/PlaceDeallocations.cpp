//===- PlaceDeallocations.cpp - free buffers after their last use ---------===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_PLACEDEALLOCATIONS
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

/// The op of `block` that is or contains `op`.
static Operation *ancestorIn(Block *block, Operation *op) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

static void placeDeallocation(AllocateOp allocation) {
  Block *block = allocation->getBlock();
  Operation *last = allocation;
  for (Value value : getBufferAndViews(allocation.getBuffer()))
    for (Operation *user : value.getUsers()) {
      // Freed already, or the caller's.
      if (isa<DeallocateOp>(user) ||
          user->hasTrait<mlir::OpTrait::ReturnLike>())
        return;
      Operation *ancestor = ancestorIn(block, user);
      if (ancestor && last->isBeforeInBlock(ancestor))
        last = ancestor;
    }
  OpBuilder builder(allocation->getContext());
  builder.setInsertionPointAfter(last);
  DeallocateOp::create(builder, allocation.getLoc(), allocation.getBuffer());
}

namespace {
struct PlaceDeallocationsPass
    : public mlir::hostir::impl::PlaceDeallocationsBase<PlaceDeallocationsPass> {
  void runOnOperation() override {
    SmallVector<AllocateOp> allocations;
    getOperation().walk(
        [&](AllocateOp allocation) { allocations.push_back(allocation); });
    for (AllocateOp allocation : allocations)
      placeDeallocation(allocation);
  }
};
} // namespace
