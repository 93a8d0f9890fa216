//===- BufferLifetimes.cpp - what refers to a buffer and what frees it ----===//

#include "fuser/Dialect/HostIR/Transforms/BufferLifetimes.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::hostir;

SmallVector<Value> BufferLifetimes::getAliases(Value buffer) const {
  SmallVector<Value> aliases = llvm::to_vector(flow.resolve(buffer));
  // Peers reach the buffer through its IPC handles: their signals, waits
  // and copies use it as well.
  for (size_t next = 0, views = aliases.size(); next < views; ++next)
    for (Operation *user : aliases[next].getUsers())
      if (auto share = dyn_cast<IpcShareOp>(user))
        aliases.push_back(share.getHandles());
  return aliases;
}

/// Whether `value` is where control flow joins buffers: a block argument
/// or the result of an op with regions that yield it.
static bool isJoin(Value value) {
  return isa<BlockArgument>(value) ||
         isa_and_nonnull<RegionBranchOpInterface>(value.getDefiningOp());
}

/// Whether `value`, yielded by a branch of its parent op, is that branch's
/// own: a buffer allocated there, or a join of such buffers.
static bool isOwnBuffer(Value value, Region &branch) {
  Operation *definition = value.getDefiningOp();
  return definition && definition->getParentRegion() == &branch &&
         (isa<AllocateOp>(definition) || isJoin(value));
}

/// The terminator of `block` that passes values to its parent op, if any.
static Operation *getYield(Block &block) {
  if (block.empty() || !isa<RegionBranchTerminatorOpInterface>(block.back()))
    return nullptr;
  return &block.back();
}

Value BufferLifetimes::getYieldedAs(Value owner) const {
  Operation *definition = owner.getDefiningOp();
  auto branches =
      dyn_cast_or_null<RegionBranchOpInterface>(definition->getParentOp());
  Operation *yield = getYield(*definition->getBlock());
  if (!branches || branches.hasLoop() || !yield)
    return {};
  // Yielded once: at two positions, two results would own it.
  SmallVector<unsigned> positions;
  for (OpOperand &use : owner.getUses())
    if (use.getOwner() == yield)
      positions.push_back(use.getOperandNumber());
  if (positions.size() != 1)
    return {};
  unsigned position = positions.front();
  if (position >= branches->getNumResults())
    return {};
  for (Region &branch : branches->getRegions())
    for (Block &block : branch) {
      Operation *terminator = getYield(block);
      if (!terminator ||
          terminator->getNumOperands() != branches->getNumResults() ||
          !isOwnBuffer(terminator->getOperand(position), branch))
        return {};
    }
  return branches->getResult(position);
}

Value BufferLifetimes::getOwner(AllocateOp allocation,
                                Operation *&through) const {
  Value owner = allocation.getBuffer();
  while (true) {
    SmallVector<Value> joins =
        llvm::filter_to_vector(flow.resolve(owner), [&](Value alias) {
          return alias != owner && isJoin(alias);
        });
    if (joins.empty())
      return owner;
    Value next = getYieldedAs(owner);
    if (next) {
      auto reached = flow.resolve(next);
      if (llvm::all_of(joins,
                       [&](Value join) { return reached.contains(join); })) {
        owner = next;
        continue;
      }
    }
    Value join = joins.front();
    through = isa<BlockArgument>(join)
                  ? cast<BlockArgument>(join).getOwner()->getParentOp()
                  : join.getDefiningOp();
    return {};
  }
}

bool BufferLifetimes::isReturned(Value buffer) const {
  for (Value alias : getAliases(buffer))
    for (Operation *user : alias.getUsers())
      if (user->hasTrait<OpTrait::ReturnLike>() &&
          isa<FunctionOpInterface>(user->getParentOp()))
        return true;
  return false;
}
