//===- BufferLifetimes.cpp - what refers to a buffer and what frees it ----===//

#include "fuser/Dialect/HostIR/Transforms/BufferLifetimes.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::hostir;

BufferLifetimes::BufferLifetimes(Operation *program) : flow(program) {
  program->walk<WalkOrder::PreOrder>(
      [&](Operation *op) { order.try_emplace(op, order.size()); });
}

SmallVector<Value> BufferLifetimes::inProgramOrder(
    const BufferViewFlowAnalysis::ValueSetT &values) const {
  auto key = [&](Value value) {
    if (auto argument = dyn_cast<BlockArgument>(value))
      return std::make_pair(getProgramOrder(argument.getOwner()->getParentOp()),
                            argument.getArgNumber());
    return std::make_pair(getProgramOrder(value.getDefiningOp()),
                          cast<OpResult>(value).getResultNumber());
  };
  SmallVector<Value> sorted = llvm::to_vector(values);
  llvm::sort(sorted, [&](Value a, Value b) { return key(a) < key(b); });
  return sorted;
}

SmallVector<Value> BufferLifetimes::getAliases(Value buffer) const {
  SmallVector<Value> aliases = inProgramOrder(flow.resolve(buffer));
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

/// The terminator of `block` that passes values to its parent op, if any.
static Operation *getYield(Block &block) {
  if (block.empty() || !isa<RegionBranchTerminatorOpInterface>(block.back()))
    return nullptr;
  return &block.back();
}

static bool isOwnBuffer(Value value, Region &branch);

/// Whether result `position` of `branches` is a buffer of its own on every
/// path: each branch yields there a buffer it owns. Loops also pass their
/// initial values on, which are not theirs.
static bool yieldsOwnBuffers(RegionBranchOpInterface branches,
                             unsigned position) {
  if (branches.hasLoop() || position >= branches->getNumResults())
    return false;
  for (Region &branch : branches->getRegions())
    for (Block &block : branch) {
      Operation *yield = getYield(block);
      if (!yield || yield->getNumOperands() != branches->getNumResults() ||
          !isOwnBuffer(yield->getOperand(position), branch))
        return false;
    }
  return true;
}

/// Whether `value`, yielded by a branch of its parent op, is that branch's
/// own: a buffer allocated there, or the result of a branch op there that
/// yields such buffers on every path.
static bool isOwnBuffer(Value value, Region &branch) {
  Operation *definition = value.getDefiningOp();
  if (!definition || definition->getParentRegion() != &branch)
    return false;
  if (isa<AllocateOp>(definition))
    return true;
  auto branches = dyn_cast<RegionBranchOpInterface>(definition);
  return branches &&
         yieldsOwnBuffers(branches, cast<OpResult>(value).getResultNumber());
}

Value BufferLifetimes::getYieldedAs(Value owner) const {
  Operation *definition = owner.getDefiningOp();
  auto branches =
      dyn_cast_or_null<RegionBranchOpInterface>(definition->getParentOp());
  Operation *yield = getYield(*definition->getBlock());
  if (!branches || !yield)
    return {};
  // Yielded once: at two positions, two results would own it.
  SmallVector<unsigned> positions;
  for (OpOperand &use : owner.getUses())
    if (use.getOwner() == yield)
      positions.push_back(use.getOperandNumber());
  if (positions.size() != 1)
    return {};
  if (!yieldsOwnBuffers(branches, positions.front()))
    return {};
  return branches->getResult(positions.front());
}

Value BufferLifetimes::getOwner(AllocateOp allocation,
                                Operation *&through) const {
  Value owner = allocation.getBuffer();
  while (true) {
    SmallVector<Value> joins = llvm::filter_to_vector(
        inProgramOrder(flow.resolve(owner)),
        [&](Value alias) { return alias != owner && isJoin(alias); });
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

SmallVector<DeallocateOp>
BufferLifetimes::getDeallocations(ArrayRef<Value> aliases) {
  SmallVector<DeallocateOp> frees;
  for (Value alias : aliases)
    for (Operation *user : alias.getUsers())
      if (auto free = dyn_cast<DeallocateOp>(user))
        frees.push_back(free);
  return frees;
}

bool BufferLifetimes::isReturned(ArrayRef<Value> aliases) {
  for (Value alias : aliases)
    for (Operation *user : alias.getUsers())
      if (user->hasTrait<OpTrait::ReturnLike>() &&
          isa<FunctionOpInterface>(user->getParentOp()))
        return true;
  return false;
}
