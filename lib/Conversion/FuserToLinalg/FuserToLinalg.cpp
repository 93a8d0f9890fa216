//===- FuserToLinalg.cpp - kernel bodies as linalg on tensors ------------===//
//
// Kernel functions compute on local tensors with fuser ops. This pass
// converts each op, with the patterns of populateFuserToLinalgPatterns,
// into upstream ops on the same tensors, so that upstream bufferization and
// lowering produce CPU code.
//
//===----------------------------------------------------------------------===//

#include "PatternFamilies.h"

#include "fuser/Conversion/FuserToLinalg/FuserToLinalg.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOLINALG
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

void mlir::fuser::populateFuserToLinalgPatterns(RewritePatternSet &patterns) {
  populatePointwisePatterns(patterns);
  populateReductionPatterns(patterns);
  populateCreationPatterns(patterns);
  populateShapePatterns(patterns);
}

/// Reports the first fuser op of `kernels` that no pattern converts, as an
/// op kernels cannot hold yet rather than as the conversion driver's
/// failure to legalize it.
static LogicalResult checkConvertible(ModuleOp kernels,
                                      const FrozenRewritePatternSet &patterns) {
  const auto &patternsByRoot = patterns.getOpSpecificNativePatterns();
  WalkResult walk = kernels.walk([&](Operation *op) {
    if (!isa<FuserDialect>(op->getDialect()) ||
        patternsByRoot.contains(op->getName()))
      return WalkResult::advance();
    op->emitError("the CPU code generator does not handle this op yet");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
struct ConvertFuserToLinalgPass
    : public mlir::fuser::impl::ConvertFuserToLinalgBase<
          ConvertFuserToLinalgPass> {
  void runOnOperation() override {
    ModuleOp kernels = lookupKernelModule(getOperation());
    if (!kernels)
      return;
    RewritePatternSet patternSet(&getContext());
    populateFuserToLinalgPatterns(patternSet);
    FrozenRewritePatternSet patterns(std::move(patternSet));
    if (failed(checkConvertible(kernels, patterns)))
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalDialect<FuserDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    ConversionConfig config;
    // Every op becomes its pattern's ops, as the code generators that
    // consume this form expect: no fuser folder (a set between equal types
    // folds away) runs first.
    config.foldingMode = DialectConversionFoldingMode::Never;
    if (failed(applyPartialConversion(kernels, target, patterns, config)))
      return signalPassFailure();
    // The host lowering has read which rank position each index argument
    // carries; code generation has no use for the marks, and LLVM's
    // translation would warn about each one it meets.
    for (auto function : kernels.getOps<func::FuncOp>())
      for (unsigned index = 0; index < function.getNumArguments(); ++index)
        function.removeArgAttr(index, FuserDialect::getMeshPositionAttrName());
  }
};
} // namespace
