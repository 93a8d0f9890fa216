//===- CacheAllocations.cpp - buffers that outlive one execution ----------===//

#include "fuser/Dialect/HostIR/Transforms/BufferLifetimes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_CACHEALLOCATIONS
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

/// Whether `allocation`'s buffer outlives the execution or is freed
/// through another value: what a cached buffer, never freed, cannot be.
static bool escapes(AllocateOp allocation, const BufferLifetimes &lifetimes) {
  Operation *through = nullptr;
  Value buffer = allocation.getBuffer();
  return lifetimes.getOwner(allocation, through) != buffer ||
         BufferLifetimes::isReturned(lifetimes.getAliases(buffer));
}

namespace {
struct CacheAllocationsPass
    : public mlir::hostir::impl::CacheAllocationsBase<CacheAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp function : module.getOps<func::FuncOp>()) {
      BufferLifetimes lifetimes(function);
      SmallVector<AllocateOp> allocations;
      function.walk([&](AllocateOp allocation) {
        if (allocation.getBuffer().getType().hasStaticShape() &&
            !allocation.getZeroed() && !escapes(allocation, lifetimes))
          allocations.push_back(allocation);
      });
      for (AllocateOp allocation : allocations) {
        OpBuilder builder(module.getBodyRegion());
        builder.setInsertionPoint(function);
        auto cached = CachedBufferOp::create(
            builder, allocation.getLoc(),
            (function.getSymName() + "_buffer").str(),
            allocation.getBuffer().getType(), allocation.getMemory());
        // Unique the name (buffer, buffer_0, ...) in the module.
        symbols.insert(cached);
        builder.setInsertionPoint(allocation);
        Value buffer = GetCachedBufferOp::create(
            builder, allocation.getLoc(), allocation.getBuffer().getType(),
            cached.getSymName());
        for (Operation *user :
             llvm::make_early_inc_range(allocation.getBuffer().getUsers()))
          if (isa<DeallocateOp>(user))
            user->erase();
        allocation.getBuffer().replaceAllUsesWith(buffer);
        allocation.erase();
      }
    }
  }
};
} // namespace
