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
    FailureOr<bool> sharded = verifyPropagatedStage(function);
    if (failed(sharded))
      return signalPassFailure();
    if (!*sharded || stage == CompilerStage::Propagated)
      return;
    if (failed(verifyDecomposedStage(function)))
      return signalPassFailure();
    if (stage == CompilerStage::Decomposed)
      return;
    if (failed(verifyLaidOutStage(function)))
      return signalPassFailure();
    if (stage == CompilerStage::Segmented &&
        failed(verifySegmentedStage(function)))
      signalPassFailure();
  }
};
} // namespace
