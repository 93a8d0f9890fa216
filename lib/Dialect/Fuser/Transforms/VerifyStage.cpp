//===- VerifyStage.cpp - check a stage's contract -------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_VERIFYSTAGE
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// `propagated`: every tensor value has a sharding, or none has. Returns
/// whether any has.
static FailureOr<bool> verifyPropagated(func::FuncOp function) {
  SmallVector<Value> tensors;
  for (BlockArgument argument : function.getArguments())
    tensors.push_back(argument);
  function.walk([&](Operation *op) { llvm::append_range(tensors, op->getResults()); });
  llvm::erase_if(tensors, [](Value value) {
    return !isa<RankedTensorType>(value.getType());
  });
  if (llvm::none_of(tensors, [](Value value) { return getSharding(value); }))
    return false;
  bool ok = true;
  for (Value value : tensors) {
    if (getSharding(value))
      continue;
    emitError(value.getLoc())
        << "value has no sharding, but others in the function do (stage "
           "'propagated': all tensor values or none)";
    ok = false;
  }
  if (!ok)
    return failure();
  return true;
}

/// `decomposed`: no compute op reshards; placement changes are fuser.comm
/// ops, each verified to change one mesh axis.
static LogicalResult verifyDecomposed(func::FuncOp function) {
  bool ok = true;
  function.walk([&](ShardingRuleOpInterface op) {
    std::string why;
    FailureOr<SmallVector<ShardingAttr>> required =
        getRequiredOperandShardings(op, why);
    if (failed(required)) {
      op->emitError("reshards (stage 'decomposed'): ") << why;
      ok = false;
      return;
    }
    for (auto [index, operand, sharding] :
         llvm::enumerate(op->getOperands(), *required)) {
      ShardingAttr actual = getSharding(operand);
      if (!sharding || (actual && actual.hasSamePlacement(sharding)))
        continue;
      InFlightDiagnostic diag = op->emitError("reshards (stage 'decomposed'): operand #")
                                << index << " is placed as ";
      if (actual)
        diag << placementOf(actual);
      else
        diag << "nothing";
      diag << " but the results need " << sharding;
      ok = false;
    }
  });
  return success(ok);
}

namespace {
struct VerifyStagePass
    : public mlir::fuser::impl::VerifyStageBase<VerifyStagePass> {
  using VerifyStageBase::VerifyStageBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (stage != "propagated" && stage != "decomposed") {
      function.emitError("unknown stage '")
          << stage << "'; expected propagated or decomposed";
      return signalPassFailure();
    }
    FailureOr<bool> sharded = verifyPropagated(function);
    if (failed(sharded))
      return signalPassFailure();
    if (stage == "decomposed" && *sharded && failed(verifyDecomposed(function)))
      signalPassFailure();
  }
};
} // namespace
