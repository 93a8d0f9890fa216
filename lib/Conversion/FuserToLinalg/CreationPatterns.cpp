//===- CreationPatterns.cpp - creation ops as linalg ---------------------===//
//
// full fills a tensor.empty; iota and the random draws are indexed
// all-parallel linalg.generics computing each element from its global
// coordinates: its local indices plus the piece's offsets, where the op
// has any.
//
//===----------------------------------------------------------------------===//

#include "GenericBuilder.h"
#include "PatternFamilies.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::fuser;

/// The element's global index along `dim`, as an i64.
static Value getGlobalIndex(ScalarBuilder &s, ValueRange indices,
                            ValueRange offsets, int64_t dim) {
  Value index =
      offsets.empty() ? indices[dim] : s.add(indices[dim], offsets[dim]);
  return arith::IndexCastOp::create(s.builder, s.loc, s.builder.getI64Type(),
                                    index);
}

static Value buildDraw(ScalarBuilder &s, UniformOp uniform, Value state) {
  return s.uniform(state, uniform.getLow().convertToDouble(),
                   uniform.getHigh().convertToDouble());
}
static Value buildDraw(ScalarBuilder &s, NormalOp normal, Value state) {
  return s.normal(state, normal.getMean().convertToDouble(),
                  normal.getStd().convertToDouble());
}

namespace {
struct FullLowering : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FullOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildFull(rewriter, op.getLoc(),
                                     cast<RankedTensorType>(op.getType()),
                                     op.getValue().convertToDouble()));
    return success();
  }
};

/// start + step * the global index along dim, computed in f64.
struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t dim = op.getDimAttr().getInt();
    double start = op.getStart().convertToDouble();
    double step = op.getStep().convertToDouble();
    ValueRange offsets = adaptor.getOffsets();
    Value result = buildPointwiseGeneric(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()), {},
        [&](ScalarBuilder &s, ValueRange, ValueRange indices) {
          Type f64 = s.builder.getF64Type();
          Value position =
              s.convert(getGlobalIndex(s, indices, offsets, dim), f64);
          return s.add(s.constant(f64, start),
                       s.mul(s.constant(f64, step), position));
        },
        /*indexed=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// uniform and normal: an f64 drawn from a state keyed by the seed and the
/// element's global coordinates, so every piece of a sharded tensor draws
/// what the unsharded one holds.
template <typename RandomOp>
struct RandomLowering : OpConversionPattern<RandomOp> {
  using OpConversionPattern<RandomOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomOp op, typename RandomOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto seed = static_cast<int64_t>(op.getSeed());
    ValueRange offsets = adaptor.getOffsets();
    Value result = buildPointwiseGeneric(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()), {},
        [&](ScalarBuilder &s, ValueRange, ValueRange indices) {
          Value state = s.constantI64(seed);
          for (int64_t dim = 0, rank = indices.size(); dim < rank; ++dim)
            state = s.mix(state, getGlobalIndex(s, indices, offsets, dim));
          return buildDraw(s, op, state);
        },
        /*indexed=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::fuser::populateCreationPatterns(RewritePatternSet &patterns) {
  patterns.add<FullLowering, IotaLowering, RandomLowering<UniformOp>,
               RandomLowering<NormalOp>>(patterns.getContext());
}
