//===- ReductionPatterns.cpp - reductions as linalg.generic --------------===//
//
// A reduction accumulates in the compute type: tensor.empty, linalg.fill of
// the combiner's identity, then a linalg.generic with reduction iterators
// whose body converts the element and combines it with one op; a pointwise
// generic converts the sums to the result (dividing them, for mean).
//
//===----------------------------------------------------------------------===//

#include "GenericBuilder.h"
#include "PatternFamilies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// The op a reduction combines elements with, by the compute type.
struct Combiner {
  arith::AtomicRMWKind onFloats, onIntegers;
};
} // namespace

static constexpr Combiner kSum{arith::AtomicRMWKind::addf,
                               arith::AtomicRMWKind::addi};
static constexpr Combiner kMax{arith::AtomicRMWKind::maximumf,
                               arith::AtomicRMWKind::maxs};
static constexpr Combiner kMin{arith::AtomicRMWKind::minimumf,
                               arith::AtomicRMWKind::mins};

/// `kind`'s identity in `type`. Upstream's extremes ask the type for its bit
/// width, which an index does not have: its extremes are those of the 64-bit
/// integers the host and the kernels store indices in.
static Value buildIdentity(OpBuilder &builder, Location loc,
                           arith::AtomicRMWKind kind, Type type) {
  if (type.isIndex() && (kind == arith::AtomicRMWKind::maxs ||
                         kind == arith::AtomicRMWKind::mins))
    return arith::ConstantIndexOp::create(
        builder, loc,
        kind == arith::AtomicRMWKind::mins
            ? std::numeric_limits<int64_t>::max()
            : std::numeric_limits<int64_t>::min());
  return arith::getIdentityValue(kind, type, builder, loc);
}

/// `input` (in its compute type) divided by `count`, into `type`.
static Value buildDivided(OpBuilder &builder, Location loc,
                          RankedTensorType type, Value input, double count) {
  return buildPointwiseGeneric(
      builder, loc, type, input,
      [&](ScalarBuilder &s, ValueRange inputs, ValueRange) {
        return s.divide(inputs[0], s.constant(inputs[0].getType(), count));
      });
}

/// `input` reduced over `dims` into `type`, reduced dims kept with size 1
/// when `keepdim`: accumulated by `combiner` from its identity in the
/// compute type, then converted to `type`'s element type, divided by the
/// number of elements reduced when `average`.
static Value reduce(OpBuilder &builder, Location loc, Value input,
                    ArrayRef<int64_t> dims, bool keepdim, RankedTensorType type,
                    Combiner combiner, bool average) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type compute = getComputeType(type.getElementType());
  arith::AtomicRMWKind kind =
      isa<FloatType>(compute) ? combiner.onFloats : combiner.onIntegers;
  auto accumulatorType = RankedTensorType::get(type.getShape(), compute);
  Value identity = buildIdentity(builder, loc, kind, compute);
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(), compute);
  Value filled =
      linalg::FillOp::create(builder, loc, identity, empty).getResult(0);
  SmallVector<AffineExpr> outputExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim) {
    bool reduced = llvm::is_contained(dims, dim);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      outputExprs.push_back(builder.getAffineDimExpr(dim));
    else if (keepdim)
      outputExprs.push_back(builder.getAffineConstantExpr(0));
  }
  SmallVector<AffineMap> maps{
      builder.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outputExprs, builder.getContext())};
  Value accumulated =
      linalg::GenericOp::create(
          builder, loc, accumulatorType, input, filled, maps, iterators,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange arguments) {
            ScalarBuilder scalars(nested, nestedLoc);
            Value element = scalars.convert(arguments[0], compute);
            Value accumulator = arguments[1];
            linalg::YieldOp::create(
                nested, nestedLoc,
                arith::getReductionOp(kind, nested, nestedLoc, accumulator,
                                      element));
          })
          .getResult(0);
  if (!average)
    return buildPointwiseGeneric(builder, loc, type, accumulated, copyElement);
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= inputType.getDimSize(dim);
  return buildDivided(builder, loc, type, accumulated,
                      static_cast<double>(count));
}

namespace {
/// sum, max, min and mean.
template <typename ReductionOp>
struct ReductionLowering : OpConversionPattern<ReductionOp> {
  ReductionLowering(MLIRContext *context, Combiner combiner, bool average)
      : OpConversionPattern<ReductionOp>(context), combiner(combiner),
        average(average) {}

  LogicalResult
  matchAndRewrite(ReductionOp op, typename ReductionOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reduce(rewriter, op.getLoc(), adaptor.getInput(),
                                  op.getDims(), op.getKeepdim(),
                                  cast<RankedTensorType>(op.getType()),
                                  combiner, average));
    return success();
  }

  Combiner combiner;
  bool average;
};

/// Variance and mean in the compute type: the mean (sum / N) read back
/// over the input, the squared differences summed and divided by
/// N - correction; each result read out of the keepdim form.
struct VarMeanLowering : OpConversionPattern<VarMeanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(VarMeanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = op.getContext();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t rank = inputType.getRank();
    ArrayRef<int64_t> dims = op.getDims();
    Type compute = getComputeType(inputType.getElementType());
    SmallVector<int64_t> keptShape(inputType.getShape());
    int64_t count = 1;
    for (int64_t dim : dims) {
      count *= keptShape[dim];
      keptShape[dim] = 1;
    }
    auto keptType = RankedTensorType::get(keptShape, compute);
    // Reduced dims read index 0 of the keepdim form.
    SmallVector<int64_t> fromKept;
    for (int64_t dim = 0; dim < rank; ++dim)
      fromKept.push_back(llvm::is_contained(dims, dim) ? -1 : dim);
    AffineMap keptMap = getBroadcastMap(context, fromKept, rank);
    auto sum = [&](Value values) {
      return reduce(rewriter, loc, values, dims, /*keepdim=*/true, keptType,
                    kSum, /*average=*/false);
    };
    Value mean = buildDivided(rewriter, loc, keptType, sum(input),
                              static_cast<double>(count));
    auto squaresType = RankedTensorType::get(inputType.getShape(), compute);
    Value squares = buildParallelGeneric(
        rewriter, loc, squaresType, {input, mean},
        {rewriter.getMultiDimIdentityMap(rank), keptMap},
        [](ScalarBuilder &s, ValueRange inputs, ValueRange) {
          Value difference = s.sub(inputs[0], inputs[1]);
          return s.mul(difference, difference);
        });
    Value variance =
        buildDivided(rewriter, loc, keptType, sum(squares),
                     static_cast<double>(count - op.getCorrection()));
    // Out of the keepdim form into each result's shape and element type.
    SmallVector<int64_t> keptDimFor;
    for (int64_t dim = 0, next = 0; dim < rank; ++dim)
      keptDimFor.push_back(
          !llvm::is_contained(dims, dim) || op.getKeepdim() ? next++ : -1);
    auto readOut = [&](Value kept, Type resultType) {
      auto type = cast<RankedTensorType>(resultType);
      return buildParallelGeneric(
          rewriter, loc, type, kept,
          getBroadcastMap(context, keptDimFor, type.getRank()), copyElement);
    };
    rewriter.replaceOp(op, {readOut(variance, op.getVariance().getType()),
                            readOut(mean, op.getMean().getType())});
    return success();
  }
};
} // namespace

void mlir::fuser::populateReductionPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ReductionLowering<SumOp>>(context, kSum, /*average=*/false);
  patterns.add<ReductionLowering<MaxOp>>(context, kMax, /*average=*/false);
  patterns.add<ReductionLowering<MinOp>>(context, kMin, /*average=*/false);
  patterns.add<ReductionLowering<MeanOp>>(context, kSum, /*average=*/true);
  patterns.add<VarMeanLowering>(context);
}
