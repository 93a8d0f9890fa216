//===- VerifyHostProgram.cpp - the hostir stage contract ------------------===//

#include "fuser/Dialect/HostIR/Transforms/BufferLifetimes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_VERIFYHOSTPROGRAM
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

namespace {
struct VerifyHostProgramPass
    : public mlir::hostir::impl::VerifyHostProgramBase<VerifyHostProgramPass> {
  void runOnOperation() override {
    bool ok = true;
    auto fail = [&](Operation *op, const Twine &message) {
      op->emitError(message + " (stage 'hostir')");
      ok = false;
    };
    getOperation().walk([&](Operation *op) {
      if (isa<mlir::fuser::FuserDialect>(op->getDialect()))
        fail(op, "fuser op left in a host program");
    });
    BufferLifetimes lifetimes(getOperation());
    getOperation().walk([&](AllocateOp allocation) {
      Operation *through = nullptr;
      Value owner = lifetimes.getOwner(allocation, through);
      if (!owner)
        return fail(allocation, "buffer flows through '" +
                                    through->getName().getStringRef() +
                                    "', which may also hold a buffer "
                                    "allocated elsewhere");
      SmallVector<Value> aliases = lifetimes.getAliases(allocation.getBuffer());
      SmallVector<DeallocateOp> frees =
          BufferLifetimes::getDeallocations(aliases);
      if (frees.empty() && !BufferLifetimes::isReturned(aliases))
        fail(allocation, "buffer is never freed, cached or returned");
      if (frees.empty())
        return;
      // Use lists are unordered: the first free in program order counts.
      llvm::sort(frees, [&](DeallocateOp a, DeallocateOp b) {
        return lifetimes.getProgramOrder(a) < lifetimes.getProgramOrder(b);
      });
      for (DeallocateOp again : llvm::drop_begin(frees))
        fail(again, "frees a buffer that is freed already");
      Operation *free = frees.front();
      if (frees.front().getBuffer() != owner)
        fail(free, "frees a buffer through a value that does not own it (a "
                   "view, or a buffer a branch yields)");
      // Uses after the free, in the free's block and the ops nested there.
      for (Value alias : aliases)
        for (Operation *user : alias.getUsers()) {
          if (isa<DeallocateOp>(user))
            continue;
          Operation *ancestor = free->getBlock()->findAncestorOpInBlock(*user);
          if (ancestor && ancestor != free && free->isBeforeInBlock(ancestor))
            fail(user, "uses a buffer after it was freed");
        }
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
