//===- FinalizeLayouts.cpp - last layout decisions and their checks -------===//

#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FINALIZELAYOUTS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// Whether `user` splits the data of `value` into the same stream chunks in
/// all its results, so that each pipeline step only needs `value`'s chunk.
static bool consumesChunkwise(Operation *user, OpOperand &use,
                              ShardingAttr sharding) {
  auto sameStream = [&](Value result) {
    ShardingAttr other = getSharding(result);
    return other && other.getStreamDim() == sharding.getStreamDim() &&
           other.getStreamChunks() == sharding.getStreamChunks();
  };
  if (isa<CommunicationOpInterface>(user))
    return llvm::all_of(user->getResults(), sameStream);
  auto ruled = dyn_cast<ShardingRuleOpInterface>(user);
  if (!ruled)
    return false;
  ShardingRule rule = ruled.getShardingRule();
  SmallVector<FactorMismatch> ignored;
  FactorSharding factors = projectToFactors(
      rule, rule.operands[use.getOperandNumber()], sharding, ignored);
  if (!factors.streamFactor)
    return false;
  for (auto [index, result] : llvm::enumerate(user->getResults())) {
    ShardingAttr other = getSharding(result);
    if (!other || !other.getStreamDim() ||
        other.getStreamChunks() != sharding.getStreamChunks())
      return false;
    const SmallVector<int64_t, 2> &dimFactors =
        rule.results[index][*other.getStreamDim()];
    if (dimFactors.empty() || dimFactors.front() != *factors.streamFactor)
      return false;
  }
  return true;
}

/// Intermediates whose every consumer works chunk by chunk are allocated
/// per chunk; arguments and returned values are allocated whole.
static void decideStreamAllocation(func::FuncOp function) {
  function.walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      ShardingAttr sharding = getSharding(result);
      if (!sharding || !sharding.getStreamDim() || sharding.getStreamChunked() ||
          result.use_empty())
        continue;
      bool chunked = llvm::all_of(result.getUses(), [&](OpOperand &use) {
        Operation *user = use.getOwner();
        return !user->hasTrait<mlir::OpTrait::ReturnLike>() &&
               consumesChunkwise(user, use, sharding);
      });
      if (!chunked)
        continue;
      result.setType(cast<RankedTensorType>(result.getType())
                         .cloneWithEncoding(sharding.withStream(
                             sharding.getStreamDim(),
                             sharding.getStreamChunks(), /*chunked=*/true)));
    }
  });
}

namespace {
struct FinalizeLayoutsPass
    : public mlir::fuser::impl::FinalizeLayoutsBase<FinalizeLayoutsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    // Local shapes exist only when every value is placed (or none is).
    FailureOr<bool> sharded = verifyPropagatedStage(function);
    if (failed(sharded))
      return signalPassFailure();
    if (!*sharded)
      return;
    if (failed(verifyLaidOutStage(function)))
      return signalPassFailure();
    decideStreamAllocation(function);
  }
};
} // namespace
