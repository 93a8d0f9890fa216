//===- ShapePatterns.cpp - transposes and reshapes as fuser views --------===//

#include "PatternFamilies.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// linalg.transpose's permutation is fuser.permute's: result dim i is input
/// dim perm[i]. The destination is dropped; its contents are overwritten.
struct RaiseTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    rewriter.replaceOpWithNewOp<PermuteOp>(op, op->getResult(0).getType(),
                                           op.getInput(), op.getPermutation());
    return success();
  }
};

/// Expanding and collapsing keep the row-major order of the elements, as
/// fuser.reshape does, which takes its shapes from the types alone.
template <typename ReshapeLikeOp>
struct RaiseStaticReshape : OpRewritePattern<ReshapeLikeOp> {
  using OpRewritePattern<ReshapeLikeOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeLikeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getResultType();
    if (!op.getSrcType().hasStaticShape() || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, resultType, op.getSrc());
    return success();
  }
};
} // namespace

void mlir::fuser::populateShapeRaisingPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseTranspose, RaiseStaticReshape<tensor::ExpandShapeOp>,
               RaiseStaticReshape<tensor::CollapseShapeOp>>(
      patterns.getContext());
}
