//===- ContractionPatterns.cpp - linalg matmuls as fuser.matmul ----------===//
//
// A linalg contraction accumulates into its `outs`; fuser.matmul produces
// the product alone. An accumulator of zeros is dropped, any other is
// added to the product.
//
//===----------------------------------------------------------------------===//

#include "PatternFamilies.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::fuser;

/// Whether `accumulator` holds zeros, or nothing a product should keep
/// (a tensor.empty, as programs write for an init they do not read).
static bool holdsNoPartialProduct(Value accumulator) {
  if (accumulator.getDefiningOp<tensor::EmptyOp>())
    return true;
  Value zero = accumulator;
  if (auto fill = accumulator.getDefiningOp<linalg::FillOp>())
    zero = fill.getInputs().front();
  return matchPattern(zero, m_AnyZeroFloat()) || matchPattern(zero, m_Zero());
}

namespace {
/// linalg.matmul and linalg.batch_matmul with their default maps, which
/// are fuser.matmul's [..., M, K] x [..., K, N] with equal batch dims.
template <typename ContractionOp>
struct RaiseContraction : OpRewritePattern<ContractionOp> {
  using OpRewritePattern<ContractionOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ContractionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return rewriter.notifyMatchFailure(op, "not the default contraction");
    Value lhs = op.getInputs()[0];
    Value rhs = op.getInputs()[1];
    Value accumulator = op.getOutputs()[0];
    auto resultType = cast<RankedTensorType>(op.getResultTypes()[0]);
    // Mixed element types convert with the op's cast function, which
    // fuser.matmul has no equivalent of.
    Type elementType = resultType.getElementType();
    if (getElementTypeOrSelf(lhs) != elementType ||
        getElementTypeOrSelf(rhs) != elementType)
      return rewriter.notifyMatchFailure(op, "mixed element types");
    Value product = MatmulOp::create(rewriter, op.getLoc(), resultType, lhs,
                                     rhs, /*activation=*/nullptr);
    if (!holdsNoPartialProduct(accumulator))
      product = AddOp::create(rewriter, op.getLoc(), resultType, product,
                              accumulator);
    rewriter.replaceOp(op, product);
    return success();
  }
};
} // namespace

void mlir::fuser::populateContractionRaisingPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseContraction<linalg::MatmulOp>,
               RaiseContraction<linalg::BatchMatmulOp>>(patterns.getContext());
}
