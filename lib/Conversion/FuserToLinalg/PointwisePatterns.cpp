//===- PointwisePatterns.cpp - elementwise ops as linalg.generic ---------===//
//
// Every pointwise op becomes one all-parallel linalg.generic over its
// operands read through identity maps; the ops differ only in the scalar
// code of one element, given here per op.
//
//===----------------------------------------------------------------------===//

#include "GenericBuilder.h"
#include "PatternFamilies.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fuser;

// Unary ops.
static Value buildElement(ScalarBuilder &s, NegOp, ValueRange x) {
  return s.negate(x[0]);
}
static Value buildElement(ScalarBuilder &s, AbsOp, ValueRange x) {
  return s.absolute(x[0]);
}
static Value buildElement(ScalarBuilder &s, ReluOp, ValueRange x) {
  return s.maximum(x[0], s.constant(x[0].getType(), 0));
}
static Value buildElement(ScalarBuilder &s, ExpOp, ValueRange x) {
  return math::ExpOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, LogOp, ValueRange x) {
  return math::LogOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, SqrtOp, ValueRange x) {
  return math::SqrtOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, RsqrtOp, ValueRange x) {
  return s.rsqrt(x[0]);
}
static Value buildElement(ScalarBuilder &s, TanhOp, ValueRange x) {
  return math::TanhOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, SinOp, ValueRange x) {
  return math::SinOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, CosOp, ValueRange x) {
  return math::CosOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, ErfOp, ValueRange x) {
  return math::ErfOp::create(s.builder, s.loc, x[0]);
}
static Value buildElement(ScalarBuilder &s, SigmoidOp, ValueRange x) {
  return s.sigmoid(x[0]);
}
static Value buildElement(ScalarBuilder &s, GeluOp gelu, ValueRange x) {
  return s.gelu(x[0], gelu.getApproximation());
}

// Binary ops.
static Value buildElement(ScalarBuilder &s, AddOp, ValueRange x) {
  return s.add(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, SubOp, ValueRange x) {
  return s.sub(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, MulOp, ValueRange x) {
  return s.mul(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, DivOp, ValueRange x) {
  return s.divide(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, MaximumOp, ValueRange x) {
  return s.maximum(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, MinimumOp, ValueRange x) {
  return s.minimum(x[0], x[1]);
}
static Value buildElement(ScalarBuilder &s, PowOp, ValueRange x) {
  return math::PowFOp::create(s.builder, s.loc, x[0], x[1]);
}

static Value buildElement(ScalarBuilder &s, CompareOp compare, ValueRange x) {
  return s.compare(compare.getKind(), x[0], x[1]);
}

static Value buildElement(ScalarBuilder &s, WhereOp, ValueRange x) {
  return s.select(x[0], x[1], x[2]);
}

// Copies: the generic converts the element to the result's type.
template <typename CopyOp, typename = std::enable_if_t<llvm::is_one_of<
                               CopyOp, CastOp, SetOp, SegmentSetOp>::value>>
static Value buildElement(ScalarBuilder &s, CopyOp, ValueRange x) {
  return copyElement(s, x, {});
}

namespace {
/// One all-parallel generic over the op's operands, each element computed
/// by the op's buildElement.
template <typename PointwiseOp>
struct PointwiseLowering : OpConversionPattern<PointwiseOp> {
  using OpConversionPattern<PointwiseOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PointwiseOp op, typename PointwiseOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = buildPointwiseGeneric(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()),
        adaptor.getOperands(),
        [&](ScalarBuilder &s, ValueRange inputs, ValueRange) {
          return buildElement(s, op, inputs);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

template <typename... PointwiseOps>
static void addPointwiseLowerings(RewritePatternSet &patterns) {
  patterns.add<PointwiseLowering<PointwiseOps>...>(patterns.getContext());
}

void mlir::fuser::populatePointwisePatterns(RewritePatternSet &patterns) {
  addPointwiseLowerings<NegOp, AbsOp, ReluOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
                        TanhOp, SinOp, CosOp, ErfOp, SigmoidOp, GeluOp>(
      patterns);
  addPointwiseLowerings<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp,
                        PowOp>(patterns);
  addPointwiseLowerings<CompareOp, WhereOp>(patterns);
  addPointwiseLowerings<CastOp, SetOp, SegmentSetOp>(patterns);
}
