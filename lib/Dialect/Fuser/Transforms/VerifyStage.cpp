//===- VerifyStage.cpp - check a stage's contract -------------------------===//

#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_VERIFYSTAGE
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
struct VerifyStagePass
    : public mlir::fuser::impl::VerifyStageBase<VerifyStagePass> {
  using VerifyStageBase::VerifyStageBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!llvm::is_contained({"propagated", "decomposed", "laid-out", "segmented"},
                            stage)) {
      function.emitError("unknown stage '")
          << stage << "'; expected propagated, decomposed, laid-out or segmented";
      return signalPassFailure();
    }
    FailureOr<bool> sharded = verifyPropagatedStage(function);
    if (failed(sharded))
      return signalPassFailure();
    if (!*sharded || stage == "propagated")
      return;
    if (failed(verifyDecomposedStage(function)))
      return signalPassFailure();
    if (stage == "decomposed")
      return;
    if (failed(verifyLaidOutStage(function)))
      return signalPassFailure();
    if (stage == "segmented" && failed(verifySegmentedStage(function)))
      signalPassFailure();
  }
};
} // namespace
