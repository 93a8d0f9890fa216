//===- RecomputeAcrossRuns.cpp - cheap values again instead of through memory ===//
//
// A run's value that a later run reads is written to memory by the first
// kernel and read back by the second. When the value is computed
// pointwise from values that are in memory anyway (arguments, results of
// library calls, outputs of the run), the later run can compute it again
// from those, and often reads fewer bytes: the backward of the GPT layer
// widened its saved bf16 activations to f32 in one kernel and read the f32
// copies in the next (a 400 MB write and read at [s, 4e] where re-reading
// the 200 MB of bf16 would do).
//
//===----------------------------------------------------------------------===//

#include "Segmentation.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::fuser;

/// The longest chain computed again in another run: recomputing trades
/// memory traffic for arithmetic, and a longer chain's arithmetic can cost
/// more than the bytes it saves (a GELU derivative is about 30 ops).
static constexpr size_t kMaxRecomputedOps = 64;

static int64_t getBytes(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return type.getNumElements() * getElementBytes(type.getElementType());
}

/// Whether `op` is cheap to compute again wherever its operands are: an
/// element of its result reads the same element of each operand (every
/// factor of its rule parallel, operands of the result's shape), reads
/// nothing (creation ops; random draws are a function of seed and
/// position), or repeats a smaller operand (broadcast).
static bool isRecomputable(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || !result.hasStaticShape())
    return false;
  if (isa<BroadcastOp, IotaOp, UniformOp, NormalOp>(op))
    return true;
  auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruled || !isPure(op) || isa<ViewOpInterface>(op))
    return false;
  if (llvm::any_of(ruled.getShardingRule().getFactors(), [](const Factor &f) {
        return f.kind != FactorKind::Parallel;
      }))
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type type) {
    auto operand = dyn_cast<RankedTensorType>(type);
    return operand && operand.getShape() == result.getShape();
  });
}

namespace {
/// The ops of one run that compute a value, and the values they read.
struct Chain {
  SetVector<Operation *> ops;
  SetVector<Value> leaves;
};
} // namespace

/// The recomputable ops of `run` that `value` depends on, down to values
/// the run did not compute or that it writes out anyway (another op
/// outside the run reads them). Nullopt when the chain needs a value that
/// only the run has, or grows past kMaxRecomputedOps.
static std::optional<Chain>
findChain(Value value, function_ref<bool(Operation *)> inRun) {
  Chain chain;
  SmallVector<Value> worklist = {value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    if (!seen.insert(next).second)
      continue;
    Operation *producer = next.getDefiningOp();
    bool writtenOut = next != value && llvm::any_of(next.getUsers(),
                                                    [&](Operation *user) {
                                                      return !inRun(user);
                                                    });
    if (!producer || !inRun(producer) || writtenOut) {
      chain.leaves.insert(next);
      continue;
    }
    if (!isRecomputable(producer) || chain.ops.size() == kMaxRecomputedOps)
      return std::nullopt;
    chain.ops.insert(producer);
    llvm::append_range(worklist, producer->getOperands());
  }
  return chain;
}

void mlir::fuser::recomputeAcrossRuns(
    MutableArrayRef<SmallVector<Operation *>> runs) {
  DenseMap<Operation *, unsigned> runOf;
  for (auto [index, run] : llvm::enumerate(runs))
    for (Operation *op : run)
      runOf[op] = index;
  for (auto [index, run] : llvm::enumerate(runs)) {
    if (run.empty())
      continue;
    DenseSet<Operation *> inRun(run.begin(), run.end());
    // What the run reads from memory already, in program order (which
    // orders the recomputed ops: the output must not depend on pointers).
    SetVector<Value> read;
    for (Operation *op : run)
      for (Value operand : op->getOperands())
        if (!inRun.contains(operand.getDefiningOp()))
          read.insert(operand);
    SmallVector<Operation *> recomputed;
    IRMapping mapping;
    for (Value value : SmallVector<Value>(read.getArrayRef())) {
      Operation *producer = value.getDefiningOp();
      auto earlier = producer ? runOf.find(producer) : runOf.end();
      if (earlier == runOf.end() || earlier->second >= index ||
          !isa<RankedTensorType>(value.getType()))
        continue;
      unsigned sourceIndex = earlier->second;
      SmallVector<Operation *> &source = runs[sourceIndex];
      auto inSource = [&](Operation *op) {
        auto found = runOf.find(op);
        return found != runOf.end() && found->second == sourceIndex;
      };
      std::optional<Chain> chain = findChain(value, inSource);
      if (!chain)
        continue;
      int64_t added = 0;
      for (Value leaf : chain->leaves)
        if (!read.contains(leaf) && !mapping.contains(leaf))
          added += getBytes(leaf);
      // Read once more than it is computed here, and written by the
      // earlier kernel unless something else outside it reads it too.
      int64_t saved = getBytes(value);
      if (llvm::all_of(value.getUsers(), [&](Operation *user) {
            return inSource(user) || inRun.contains(user);
          }))
        saved += getBytes(value);
      if (added >= saved)
        continue;
      OpBuilder builder(run.front());
      for (Operation *op : source)
        if (chain->ops.contains(op) && !mapping.contains(op->getResult(0)))
          recomputed.push_back(builder.clone(*op, mapping));
      value.replaceUsesWithIf(mapping.lookup(value), [&](OpOperand &use) {
        return inRun.contains(use.getOwner());
      });
      for (Value leaf : chain->leaves)
        read.insert(leaf);
      // What only this run read is gone from the earlier one.
      DenseSet<Operation *> dead;
      for (Operation *op : llvm::reverse(source))
        if (chain->ops.contains(op) && op->use_empty()) {
          dead.insert(op);
          runOf.erase(op);
          op->erase();
        }
      llvm::erase_if(source, [&](Operation *op) { return dead.contains(op); });
    }
    run.insert(run.begin(), recomputed.begin(), recomputed.end());
    for (Operation *op : recomputed)
      runOf[op] = index;
  }
}
