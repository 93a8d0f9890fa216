//===- ConvertLinalgToFuser.cpp - upstream tensor compute as fuser ops ----===//
//
// Sharding propagation and decomposition run on upstream ops through their
// external models, but segmentation, host lowering and kernel generation
// read fuser ops. This pass raises the upstream ops that have a fuser
// equivalent, pattern family by pattern family, and leaves the others.
//
//===----------------------------------------------------------------------===//

#include "PatternFamilies.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTLINALGTOFUSER
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
struct ConvertLinalgToFuserPass
    : public mlir::fuser::impl::ConvertLinalgToFuserBase<
          ConvertLinalgToFuserPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateContractionRaisingPatterns(patterns);
    populateElementwiseRaisingPatterns(patterns);
    populateShapeRaisingPatterns(patterns);
    populateCreationRaisingPatterns(patterns);
    // Only raise: ops that stay upstream ops are not folded, and constants
    // stay where they are. The driver still erases what raising leaves
    // dead, such as a dropped accumulator.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
