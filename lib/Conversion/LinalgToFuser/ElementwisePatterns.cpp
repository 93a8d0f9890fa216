//===- ElementwisePatterns.cpp - elementwise ops as fuser pointwise ops --===//
//
// The arith and math ops on ranked tensors and linalg's named elementwise
// ops compute what fuser's pointwise ops compute (integer division,
// maximum and minimum signed, float maximum and minimum propagating NaN,
// as convert-fuser-to-linalg lowers them back).
//
//===----------------------------------------------------------------------===//

#include "PatternFamilies.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// An arith or math op whose operands and result are ranked tensors (the
/// ops also take scalars and vectors, which have no fuser equivalent).
template <typename SourceOp, typename FuserOp>
struct RaiseTensorElementwise : OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    Type resultType = op->getResult(0).getType();
    if (!isa<RankedTensorType>(resultType) ||
        !llvm::all_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>))
      return rewriter.notifyMatchFailure(op, "not on ranked tensors");
    rewriter.replaceOpWithNewOp<FuserOp>(op, resultType, op->getOperands());
    return success();
  }
};

/// A linalg named elementwise op whose inputs have the result's shape and
/// element type, as fuser's pointwise ops require (linalg also accepts
/// dynamic sizes beside static ones). The destination is dropped; its
/// contents are overwritten.
template <typename LinalgOp, typename FuserOp>
struct RaiseNamedElementwise : OpRewritePattern<LinalgOp> {
  using OpRewritePattern<LinalgOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    for (Value input : op.getInputs()) {
      auto inputType = dyn_cast<RankedTensorType>(input.getType());
      if (!inputType || inputType.getShape() != resultType.getShape() ||
          inputType.getElementType() != resultType.getElementType())
        return rewriter.notifyMatchFailure(op, "input differs from result");
    }
    rewriter.replaceOpWithNewOp<FuserOp>(op, resultType, op.getInputs());
    return success();
  }
};
} // namespace

/// Adds `Pattern<Source, Target>` for each pair of source and fuser op.
template <template <typename, typename> class Pattern, typename... Pairs>
static void addRaisings(RewritePatternSet &patterns) {
  patterns
      .add<Pattern<typename Pairs::first_type, typename Pairs::second_type>...>(
          patterns.getContext());
}

void mlir::fuser::populateElementwiseRaisingPatterns(
    RewritePatternSet &patterns) {
  using std::pair;
  addRaisings<RaiseTensorElementwise, pair<arith::AddFOp, AddOp>,
              pair<arith::AddIOp, AddOp>, pair<arith::SubFOp, SubOp>,
              pair<arith::SubIOp, SubOp>, pair<arith::MulFOp, MulOp>,
              pair<arith::MulIOp, MulOp>, pair<arith::DivFOp, DivOp>,
              pair<arith::DivSIOp, DivOp>, pair<arith::MaximumFOp, MaximumOp>,
              pair<arith::MaxSIOp, MaximumOp>,
              pair<arith::MinimumFOp, MinimumOp>,
              pair<arith::MinSIOp, MinimumOp>, pair<math::PowFOp, PowOp>,
              pair<arith::NegFOp, NegOp>, pair<math::AbsFOp, AbsOp>,
              pair<math::AbsIOp, AbsOp>, pair<math::ExpOp, ExpOp>,
              pair<math::LogOp, LogOp>, pair<math::SqrtOp, SqrtOp>,
              pair<math::RsqrtOp, RsqrtOp>, pair<math::TanhOp, TanhOp>,
              pair<math::SinOp, SinOp>, pair<math::CosOp, CosOp>,
              pair<math::ErfOp, ErfOp>>(
      patterns);
  addRaisings<RaiseNamedElementwise, pair<linalg::AddOp, AddOp>,
              pair<linalg::SubOp, SubOp>, pair<linalg::MulOp, MulOp>,
              pair<linalg::DivOp, DivOp>, pair<linalg::MaxOp, MaximumOp>,
              pair<linalg::MinOp, MinimumOp>, pair<linalg::PowFOp, PowOp>,
              pair<linalg::NegFOp, NegOp>, pair<linalg::AbsOp, AbsOp>,
              pair<linalg::ExpOp, ExpOp>, pair<linalg::LogOp, LogOp>,
              pair<linalg::SqrtOp, SqrtOp>, pair<linalg::RsqrtOp, RsqrtOp>,
              pair<linalg::TanhOp, TanhOp>, pair<linalg::ErfOp, ErfOp>>(
      patterns);
}
