//===- CreationPatterns.cpp - tensors of one value as fuser.full ---------===//
//
// A tensor that is another op's accumulator (`outs`) stays as it is: a
// raised matmul drops it itself, and the sharding rules of the ops that
// stay upstream read a fill or splat of zeros as neutral for partial sums.
//
//===----------------------------------------------------------------------===//

#include "PatternFamilies.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::fuser;

/// The value of a scalar attribute as fuser.full holds it: a double, when
/// it is exactly one (integers of at most 53 bits of magnitude).
static std::optional<double> asExactDouble(Attribute attribute) {
  if (auto floatAttr = dyn_cast<FloatAttr>(attribute)) {
    // Widening to double is exact for every narrower float type.
    bool losesInfo = false;
    APFloat value = floatAttr.getValue();
    value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    if (losesInfo)
      return std::nullopt;
    return value.convertToDouble();
  }
  auto integerAttr = dyn_cast<IntegerAttr>(attribute);
  if (!integerAttr)
    return std::nullopt;
  APInt value = integerAttr.getValue();
  // An i1 true is 1, as fuser.full states it, not -1.
  if (value.getBitWidth() == 1)
    return value.getZExtValue();
  if (value.getSignificantBits() > 54)
    return std::nullopt;
  return static_cast<double>(value.getSExtValue());
}

static bool isAccumulator(Value tensor) {
  return llvm::any_of(tensor.getUses(), [](OpOperand &use) {
    auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    return user && user.isDpsInit(&use);
  });
}

/// Replaces `op`, whose result is a tensor of copies of `scalar`, by a
/// fuser.full of the same type.
static LogicalResult replaceByFull(Operation *op, Attribute scalar,
                                   PatternRewriter &rewriter) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrIndexOrFloat())
    return rewriter.notifyMatchFailure(op, "not a static numeric tensor");
  if (isAccumulator(op->getResult(0)))
    return rewriter.notifyMatchFailure(op, "an accumulator");
  std::optional<double> value = asExactDouble(scalar);
  if (!value)
    return rewriter.notifyMatchFailure(op, "value is not a double");
  rewriter.replaceOpWithNewOp<FullOp>(op, type,
                                      rewriter.getF64FloatAttr(*value));
  return success();
}

namespace {
struct RaiseSplatConstant : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return rewriter.notifyMatchFailure(op, "not a splat");
    return replaceByFull(op, splat.getSplatValue<Attribute>(), rewriter);
  }
};

struct RaiseConstantFill : OpRewritePattern<linalg::FillOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::FillOp op,
                                PatternRewriter &rewriter) const override {
    Attribute scalar;
    if (!op.hasPureTensorSemantics() ||
        !matchPattern(op.getInputs().front(), m_Constant(&scalar)))
      return rewriter.notifyMatchFailure(op, "not a fill with a constant");
    return replaceByFull(op, scalar, rewriter);
  }
};
} // namespace

void mlir::fuser::populateCreationRaisingPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseSplatConstant, RaiseConstantFill>(patterns.getContext());
}
