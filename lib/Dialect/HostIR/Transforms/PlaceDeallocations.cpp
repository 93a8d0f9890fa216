//===- PlaceDeallocations.cpp - free buffers after their last use ---------===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_PLACEDEALLOCATIONS
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

/// Whether `op` only makes streams wait for one another (setting the current
/// stream, synchronizing, or a loop of that, with its constant bounds): the
/// join of a pipeline.
static bool isStreamJoin(Operation *op) {
  if (isa<SetCurrentStreamOp, SynchronizeStreamOp>(op) ||
      op->hasTrait<mlir::OpTrait::ConstantLike>())
    return true;
  if (op->getNumRegions() == 0)
    return false;
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == op || nested->hasTrait<mlir::OpTrait::IsTerminator>() ||
        isa<StreamFromPoolOp, SetCurrentStreamOp, SynchronizeStreamOp>(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

static void placeDeallocation(AllocateOp allocation) {
  Block *block = allocation->getBlock();
  Operation *last = allocation;
  auto extendTo = [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (ancestor && last->isBeforeInBlock(ancestor))
      last = ancestor;
    return ancestor;
  };
  for (Value value : getBufferAndViews(allocation.getBuffer()))
    for (Operation *user : value.getUsers()) {
      // Freed already, or the caller's.
      if (isa<DeallocateOp>(user) ||
          user->hasTrait<mlir::OpTrait::ReturnLike>())
        return;
      Operation *ancestor = extendTo(user);
      // A posted communication uses its buffers until it is waited on.
      for (Operation *poster : {user, ancestor}) {
        if (!poster)
          continue;
        for (Value result : poster->getResults())
          if (isa<WorkType>(result.getType()))
            for (Operation *wait : result.getUsers())
              extendTo(wait);
      }
    }
  // A buffer used on worker streams is freed once they joined the current
  // stream, so the stream-ordered free follows all their work.
  while (last->getNextNode() && isStreamJoin(last->getNextNode()))
    last = last->getNextNode();
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
