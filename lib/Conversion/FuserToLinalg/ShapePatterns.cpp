//===- ShapePatterns.cpp - broadcasts and views as linalg and tensor ops -===//
//
// Broadcasts become all-parallel linalg.generics reading the input through
// constant-0 exprs where a dim repeats; the views become tensor slices and
// reshapes and linalg.transpose; cat and pad insert their inputs into a new
// tensor; embedding lookups extract table elements in an indexed generic.
//
//===----------------------------------------------------------------------===//

#include "GenericBuilder.h"
#include "PatternFamilies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::fuser;

/// The result dim each input dim of a broadcast becomes.
static SmallVector<int64_t> getResultDims(BroadcastOp broadcast) {
  return SmallVector<int64_t>(broadcast.getDims());
}
static SmallVector<int64_t> getResultDims(ExpandOp expand) {
  int64_t rank = cast<RankedTensorType>(expand.getType()).getRank();
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// The reassociation that collapses all `rank` dims into one (none for a
/// rank-0 tensor).
static SmallVector<ReassociationIndices> getSingleGroup(int64_t rank) {
  if (rank == 0)
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
}

namespace {
/// A static window of an input: extract_slice's offsets, sizes, strides.
struct Window {
  SmallVector<int64_t> offsets, sizes, strides;
};
} // namespace

static Window getWindow(SliceOp slice, RankedTensorType resultType) {
  return {SmallVector<int64_t>(slice.getStarts()),
          SmallVector<int64_t>(resultType.getShape()),
          SmallVector<int64_t>(slice.getSteps())};
}
/// The selected index with the dim's size 1; the result drops that dim.
static Window getWindow(SelectOp select, RankedTensorType) {
  auto inputType = cast<RankedTensorType>(select.getInput().getType());
  int64_t dim = select.getDimAttr().getInt();
  Window window{SmallVector<int64_t>(inputType.getRank(), 0),
                SmallVector<int64_t>(inputType.getShape()),
                SmallVector<int64_t>(inputType.getRank(), 1)};
  window.offsets[dim] = select.getIndexAttr().getInt();
  window.sizes[dim] = 1;
  return window;
}

/// `into` with all of `input` inserted at `offsets`.
static Value insertAt(OpBuilder &builder, Location loc, Value input, Value into,
                      ArrayRef<int64_t> offsets) {
  auto inputType = cast<RankedTensorType>(input.getType());
  return tensor::InsertSliceOp::create(
      builder, loc, input, into, ValueRange(), ValueRange(), ValueRange(),
      offsets, inputType.getShape(),
      SmallVector<int64_t>(inputType.getRank(), 1));
}

namespace {
/// broadcast and expand: input dims of size 1 that the result expands read
/// index 0.
template <typename BroadcastingOp>
struct BroadcastLowering : OpConversionPattern<BroadcastingOp> {
  using OpConversionPattern<BroadcastingOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastingOp op, typename BroadcastingOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> dimFor;
    for (auto [from, to] : llvm::enumerate(getResultDims(op)))
      dimFor.push_back(
          inputType.getDimSize(from) == 1 && type.getDimSize(to) != 1 ? -1
                                                                      : to);
    rewriter.replaceOp(
        op, buildParallelGeneric(
                rewriter, op.getLoc(), type, input,
                getBroadcastMap(op.getContext(), dimFor, type.getRank()),
                copyElement));
    return success();
  }
};

/// squeeze and reshape: the same elements in row-major order, through one
/// flat dim.
template <typename ReshapingOp>
struct ReshapeLowering : OpConversionPattern<ReshapingOp> {
  using OpConversionPattern<ReshapingOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapingOp op, typename ReshapingOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto type = cast<RankedTensorType>(op.getType());
    // Through one flat line, a result's dims must all be known: an
    // expand_shape of a dynamic line takes its sizes as values.
    if (!inputType.hasStaticShape() || !type.hasStaticShape())
      return op.emitOpError("in a kernel needs static shapes: reshaping ")
             << inputType << " into " << type << " is not implemented yet";
    auto flatType = RankedTensorType::get({inputType.getNumElements()},
                                          inputType.getElementType());
    // A rank-0 tensor expands into the flat one rather than collapsing.
    SmallVector<ReassociationIndices> fromInput =
        getSingleGroup(inputType.getRank());
    Value flat = inputType.getRank() == 0
                     ? tensor::ExpandShapeOp::create(rewriter, loc, flatType,
                                                     input, fromInput)
                           .getResult()
                     : tensor::CollapseShapeOp::create(rewriter, loc, flatType,
                                                       input, fromInput)
                           .getResult();
    SmallVector<ReassociationIndices> toResult = getSingleGroup(type.getRank());
    Value result =
        type.getRank() == 0
            ? tensor::CollapseShapeOp::create(rewriter, loc, type, flat,
                                              toResult)
                  .getResult()
            : tensor::ExpandShapeOp::create(rewriter, loc, type, flat, toResult)
                  .getResult();
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PermuteLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, op.getLoc(), type.getShape(), type.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(),
                                                       empty, op.getPerm())
                               .getResult());
    return success();
  }
};

/// slice and select: a tensor.extract_slice of their window.
template <typename WindowOp>
struct WindowLowering : OpConversionPattern<WindowOp> {
  using OpConversionPattern<WindowOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WindowOp op, typename WindowOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Window window = getWindow(op, type);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(), ValueRange(), ValueRange(), ValueRange(),
        window.offsets, window.sizes, window.strides);
    return success();
  }
};

/// Each input inserted after the previous ones along dim.
struct CatLowering : OpConversionPattern<CatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDimAttr().getInt();
    Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           type.getElementType());
    SmallVector<int64_t> offsets(type.getRank(), 0);
    for (Value input : adaptor.getInputs()) {
      result = insertAt(rewriter, loc, input, result, offsets);
      offsets[dim] += cast<RankedTensorType>(input.getType()).getDimSize(dim);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The input inserted at its low offsets into a tensor full of the value.
struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value filled =
        buildFull(rewriter, loc, cast<RankedTensorType>(op.getType()),
                  op.getValue().convertToDouble());
    rewriter.replaceOp(
        op, insertAt(rewriter, loc, adaptor.getInput(), filled, op.getLow()));
    return success();
  }
};
/// result[i..., e] = table[clamp(indices[i...], 0, V - 1), e]: an indexed
/// generic over the result that reads the indices and extracts from the
/// table.
struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    int64_t rows = cast<RankedTensorType>(op.getTable().getType()).getDimSize(0);
    Value table = adaptor.getTable();
    AffineMap indicesMap = AffineMap::getMultiDimIdentityMap(
        rank, rewriter.getContext()).getMajorSubMap(rank - 1);
    Value result = buildParallelGeneric(
        rewriter, op.getLoc(), type, adaptor.getIndices(), indicesMap,
        [&](ScalarBuilder &s, ValueRange inputs, ValueRange indices) {
          Type indexType = s.builder.getIndexType();
          Value row = arith::IndexCastOp::create(s.builder, s.loc, indexType,
                                                 inputs[0]);
          Value first = arith::ConstantIndexOp::create(s.builder, s.loc, 0);
          Value last = arith::ConstantIndexOp::create(s.builder, s.loc, rows - 1);
          row = arith::MinSIOp::create(
              s.builder, s.loc,
              arith::MaxSIOp::create(s.builder, s.loc, row, first), last);
          return tensor::ExtractOp::create(s.builder, s.loc, table,
                                           ValueRange{row, indices.back()})
              .getResult();
        },
        /*indexed=*/true);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::fuser::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<BroadcastLowering<BroadcastOp>, BroadcastLowering<ExpandOp>,
               ReshapeLowering<SqueezeOp>, ReshapeLowering<ReshapeOp>,
               PermuteLowering, WindowLowering<SliceOp>,
               WindowLowering<SelectOp>, CatLowering, PadLowering,
               EmbeddingLowering>(
      patterns.getContext());
}
