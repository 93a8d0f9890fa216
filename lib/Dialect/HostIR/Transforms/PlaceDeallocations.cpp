//===- PlaceDeallocations.cpp - free buffers after their last use ---------===//

#include "fuser/Dialect/HostIR/Transforms/BufferLifetimes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Analysis/Liveness.h"
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

/// Frees `owner` after the last op of its block that uses it or a value
/// referring to it (a wait names the buffers its communication still
/// uses, so that is the wait), and after the stream joins right after it,
/// so that the stream-ordered free follows the work of worker streams.
static LogicalResult placeDeallocation(Value owner, ArrayRef<Value> aliases,
                                       const Liveness &liveness) {
  Operation *last = owner.getDefiningOp();
  const LivenessBlockInfo *block = liveness.getLiveness(last->getBlock());
  for (Value alias : aliases)
    last = block->getEndOperation(alias, last);
  // Live past its block's end (the only way the terminator is the end).
  if (last->hasTrait<OpTrait::IsTerminator>())
    return owner.getDefiningOp()->emitError(
        "cannot place the deallocation of this buffer: it is used after "
        "the block that defines it ends");
  while (last->getNextNode() && isStreamJoin(last->getNextNode()))
    last = last->getNextNode();
  OpBuilder builder(last->getContext());
  builder.setInsertionPointAfter(last);
  DeallocateOp::create(builder, owner.getLoc(), owner);
  return success();
}

namespace {
struct PlaceDeallocationsPass
    : public mlir::hostir::impl::PlaceDeallocationsBase<PlaceDeallocationsPass> {
  void runOnOperation() override {
    BufferLifetimes lifetimes(getOperation());
    SetVector<Value> owners;
    bool ok = true;
    getOperation().walk([&](AllocateOp allocation) {
      Operation *through = nullptr;
      if (Value owner = lifetimes.getOwner(allocation, through)) {
        owners.insert(owner);
        return;
      }
      allocation.emitError("cannot place the deallocation of this buffer: it "
                           "flows through '")
          << through->getName()
          << "', which may also hold a buffer allocated elsewhere";
      ok = false;
    });
    if (!ok)
      return signalPassFailure();
    Liveness liveness(getOperation());
    for (Value owner : owners) {
      SmallVector<Value> aliases = lifetimes.getAliases(owner);
      if (BufferLifetimes::getDeallocations(aliases).empty() &&
          !BufferLifetimes::isReturned(aliases) &&
          failed(placeDeallocation(owner, aliases, liveness)))
        return signalPassFailure();
    }
  }
};
} // namespace
