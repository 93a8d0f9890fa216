//===- CacheAllocations.cpp - buffers that outlive one execution ----------===//
//
// Each cached allocation gets memory that lives across executions; buffers
// whose spans in the program do not overlap take turns in the same memory,
// so that a program holds about the most its live buffers need at once
// rather than the sum of all of them.
//
//===----------------------------------------------------------------------===//

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
/// The ops of a function's body that a buffer is in use from and to, both
/// included, by their program order.
struct Span {
  unsigned first;
  unsigned last;
};

/// Cached memory and the allocations that take turns in it, in program
/// order.
struct Storage {
  MemoryKind memory;
  Attribute memorySpace;
  int64_t bytes = 0;
  SmallVector<AllocateOp> turns;
  /// Where the last turn's span ends.
  unsigned busyUntil = 0;
};
} // namespace

/// The span of `allocation`'s buffer in `body`: from the first op that uses a value referring to it to the last one (a
/// wait names the buffers its communication still uses). Work issued after
/// the last one is ordered after all work on the buffer: on the current
/// stream, which joins the worker streams right after a pipeline, and on
/// worker streams, which wait for the current one before a pipeline. None
/// where it cannot take turns with others: it is not allocated in the body
/// itself (a loop would hand each iteration the same memory), peers reach
/// it through IPC (their accesses are not ordered by this rank's program),
/// or its type cannot view storage.
static std::optional<Span>
getSpan(AllocateOp allocation, const BufferLifetimes &lifetimes, Block &body) {
  MemRefType type = allocation.getBuffer().getType();
  if (allocation->getBlock() != &body ||
      allocation.getMemory() == MemoryKind::Symmetric ||
      !canViewStorage(type))
    return std::nullopt;
  unsigned position = lifetimes.getProgramOrder(allocation);
  Span span{~0u, position};
  auto extendTo = [&](Operation *op) {
    unsigned at = lifetimes.getProgramOrder(body.findAncestorOpInBlock(*op));
    span.first = std::min(span.first, at);
    span.last = std::max(span.last, at);
  };
  for (Value alias : lifetimes.getAliases(allocation.getBuffer())) {
    if (Operation *view = alias.getDefiningOp(); view && view != allocation)
      extendTo(view);
    for (Operation *user : alias.getUsers()) {
      if (isa<IpcShareOp>(user))
        return std::nullopt;
      if (!isa<DeallocateOp>(user))
        extendTo(user);
    }
  }
  if (span.first == ~0u)
    span.first = position;
  return span;
}

/// Where `allocation` of `bytes` over `span` takes its turn: of the
/// storages of its memory free before the span, the smallest that holds
/// it, else the largest (which grows); a new one when none is free.
static Storage &pickStorage(SmallVectorImpl<Storage> &storages,
                            AllocateOp allocation, int64_t bytes, Span span) {
  MemoryKind memory = allocation.getMemory();
  Attribute memorySpace = allocation.getBuffer().getType().getMemorySpace();
  Storage *fitting = nullptr, *largest = nullptr;
  for (Storage &storage : storages) {
    if (storage.memory != memory || storage.memorySpace != memorySpace ||
        storage.busyUntil >= span.first)
      continue;
    if (storage.bytes >= bytes && (!fitting || storage.bytes < fitting->bytes))
      fitting = &storage;
    if (!largest || storage.bytes > largest->bytes)
      largest = &storage;
  }
  if (Storage *picked = fitting ? fitting : largest)
    return *picked;
  storages.push_back(Storage{memory, memorySpace});
  return storages.back();
}

/// Replaces `allocation` (and the deallocations of its buffer) by the
/// buffer of the cached declaration `name`.
static void replaceByCached(AllocateOp allocation, StringRef name) {
  OpBuilder builder(allocation);
  Value buffer = GetCachedBufferOp::create(builder, allocation.getLoc(),
                                           allocation.getBuffer().getType(),
                                           name);
  for (Operation *user :
       llvm::make_early_inc_range(allocation.getBuffer().getUsers()))
    if (isa<DeallocateOp>(user))
      user->erase();
  allocation.getBuffer().replaceAllUsesWith(buffer);
  allocation.erase();
}

namespace {
struct CacheAllocationsPass
    : public mlir::hostir::impl::CacheAllocationsBase<CacheAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (func::FuncOp function : module.getOps<func::FuncOp>()) {
      if (function.isDeclaration())
        continue;
      Block &body = function.getBody().front();
      BufferLifetimes lifetimes(function);
      // Allocations in program order; those that cannot take turns keep
      // memory of their own.
      SmallVector<std::pair<AllocateOp, Span>> turns;
      SmallVector<AllocateOp> alone;
      function.walk([&](AllocateOp allocation) {
        if (!allocation.getBuffer().getType().hasStaticShape() ||
            allocation.getZeroed() || escapes(allocation, lifetimes))
          return;
        if (std::optional<Span> span =
                getSpan(allocation, lifetimes, body))
          turns.push_back({allocation, *span});
        else
          alone.push_back(allocation);
      });
      llvm::stable_sort(turns, [](const auto &a, const auto &b) {
        return a.second.first < b.second.first;
      });
      SmallVector<Storage> storages;
      for (auto [allocation, span] : turns) {
        int64_t bytes = getBufferBytes(allocation.getBuffer().getType());
        Storage &storage = pickStorage(storages, allocation, bytes, span);
        storage.bytes = std::max(storage.bytes, bytes);
        storage.turns.push_back(allocation);
        storage.busyUntil = span.last;
      }

      OpBuilder builder(module.getBodyRegion());
      builder.setInsertionPoint(function);
      auto declare = [&](AllocateOp allocation, MemRefType type,
                         bool storage) {
        auto cached = CachedBufferOp::create(
            builder, allocation.getLoc(),
            (function.getSymName() + "_buffer").str(), type,
            allocation.getMemory(), storage);
        // Unique the name (buffer, buffer_0, ...) in the module.
        symbols.insert(cached);
        return cached.getSymName();
      };
      for (Storage &storage : storages) {
        AllocateOp first = storage.turns.front();
        // One buffer alone keeps its type.
        StringRef name =
            storage.turns.size() == 1
                ? declare(first, first.getBuffer().getType(), false)
                : declare(first,
                          MemRefType::get({storage.bytes},
                                          builder.getIntegerType(8), nullptr,
                                          storage.memorySpace),
                          true);
        for (AllocateOp allocation : storage.turns)
          replaceByCached(allocation, name);
      }
      for (AllocateOp allocation : alone)
        replaceByCached(allocation,
                        declare(allocation, allocation.getBuffer().getType(),
                                false));
    }
  }
};
} // namespace
