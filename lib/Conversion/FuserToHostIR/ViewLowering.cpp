//===- ViewLowering.cpp - fuser view ops as buffer views -----------------===//
//
// A view op that segmentation left as a view (no copy), fuser's or an
// upstream tensor view (expand_shape, collapse_shape, extract_slice),
// becomes a view of its operand's buffer: a memref.subview for a slice, a
// memref.reinterpret_cast with the result's strides otherwise. Strides are
// computed from the operand's, static or read at run time
// (memref.extract_strided_metadata).
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Computes strides of a view from those of its source, folding what is
/// static and emitting arith for the rest.
class ViewStrides {
public:
  ViewStrides(OpBuilder &builder, Location loc) : builder(builder), loc(loc) {}

  OpFoldResult multiply(OpFoldResult stride, int64_t factor) {
    if (std::optional<int64_t> known = getConstantIntValue(stride))
      return builder.getIndexAttr(*known * factor);
    if (factor == 1)
      return stride;
    return arith::MulIOp::create(
               builder, loc, cast<Value>(stride),
               arith::ConstantIndexOp::create(builder, loc, factor))
        .getResult();
  }
  OpFoldResult zero() { return builder.getIndexAttr(0); }

  /// Strides of the reshape of a buffer of `shape` and `strides` into
  /// `resultShape`. Each group of source dims that reshapes into a group of
  /// result dims must be one strided line (each non-unit dim's stride is
  /// the next one's times its size); then the result dims split the line.
  /// Fails when a group is not a line, or cannot be shown to be one
  /// because its strides are only known at run time.
  FailureOr<SmallVector<OpFoldResult>>
  reshape(ArrayRef<int64_t> shape, ArrayRef<OpFoldResult> strides,
          ArrayRef<int64_t> resultShape) {
    SmallVector<OpFoldResult> result(resultShape.size());
    size_t source = 0, target = 0;
    while (source < shape.size() || target < resultShape.size()) {
      // The next groups with equal element counts, one dim of each side
      // (where left) and as few more as that takes.
      size_t sourceEnd = source, targetEnd = target;
      int64_t sourceCount = 1, targetCount = 1;
      if (sourceEnd < shape.size())
        sourceCount *= shape[sourceEnd++];
      if (targetEnd < resultShape.size())
        targetCount *= resultShape[targetEnd++];
      while (sourceCount != targetCount) {
        if (sourceCount < targetCount && sourceEnd < shape.size())
          sourceCount *= shape[sourceEnd++];
        else if (sourceCount > targetCount && targetEnd < resultShape.size())
          targetCount *= resultShape[targetEnd++];
        else
          return failure();
      }
      FailureOr<OpFoldResult> line =
          getLineStride(shape.slice(source, sourceEnd - source),
                        strides.slice(source, sourceEnd - source));
      if (failed(line))
        return failure();
      OpFoldResult stride = *line;
      int64_t step = 1;
      for (size_t dim = targetEnd; dim-- > target;) {
        result[dim] = multiply(stride, step);
        step *= resultShape[dim];
      }
      source = sourceEnd;
      target = targetEnd;
    }
    return result;
  }

private:
  /// The stride of the innermost element of dims that form one line.
  FailureOr<OpFoldResult> getLineStride(ArrayRef<int64_t> shape,
                                        ArrayRef<OpFoldResult> strides) {
    SmallVector<size_t> counted;
    for (size_t dim = 0; dim < shape.size(); ++dim)
      if (shape[dim] != 1)
        counted.push_back(dim);
    if (counted.empty())
      return OpFoldResult(builder.getIndexAttr(1));
    for (size_t next = 1; next < counted.size(); ++next) {
      std::optional<int64_t> outer =
          getConstantIntValue(strides[counted[next - 1]]);
      std::optional<int64_t> inner = getConstantIntValue(strides[counted[next]]);
      if (!outer || !inner || *outer != *inner * shape[counted[next]])
        return failure();
    }
    return strides[counted.back()];
  }

  OpBuilder &builder;
  Location loc;
};
} // namespace

/// The strides of `op`'s result as a view of a buffer of `shape` and
/// `strides` (repeated data gets stride 0), or failure when the view op has
/// no such form.
static FailureOr<SmallVector<OpFoldResult>>
getViewStrides(ViewStrides &views, Operation *op, ArrayRef<int64_t> shape,
               ArrayRef<OpFoldResult> strides, ArrayRef<int64_t> resultShape) {
  using Strides = FailureOr<SmallVector<OpFoldResult>>;
  return TypeSwitch<Operation *, Strides>(op)
      .Case([&](PermuteOp permute) -> Strides {
        return llvm::map_to_vector(permute.getPerm(),
                                   [&](int64_t dim) { return strides[dim]; });
      })
      .Case([&](SqueezeOp squeeze) -> Strides {
        SmallVector<OpFoldResult> result;
        for (auto [dim, stride] : llvm::enumerate(strides))
          if (!llvm::is_contained(squeeze.getDims(), dim))
            result.push_back(stride);
        return result;
      })
      .Case([&](ExpandOp) -> Strides {
        SmallVector<OpFoldResult> result(strides);
        for (auto [dim, size] : llvm::enumerate(shape))
          if (size == 1 && resultShape[dim] != 1)
            result[dim] = views.zero();
        return result;
      })
      .Case([&](BroadcastOp broadcast) -> Strides {
        SmallVector<OpFoldResult> result(resultShape.size(), views.zero());
        for (auto [from, to] : llvm::enumerate(broadcast.getDims()))
          if (!(shape[from] == 1 && resultShape[to] != 1))
            result[to] = strides[from];
        return result;
      })
      .Case<ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
          [&](Operation *) {
            return views.reshape(shape, strides, resultShape);
          })
      .Case<SetOp, SegmentSetOp>([&](Operation *) -> Strides {
        return SmallVector<OpFoldResult>(strides);
      })
      .Default([&](Operation *) -> Strides { return failure(); });
}

/// `wanted` with the offset and strides that `view` knows only at run time
/// dynamic too: a cast to a static value would take it for that value.
static MemRefType keepingDynamicLayout(MemRefType wanted, MemRefType view) {
  auto [wantedStrides, wantedOffset] = wanted.getStridesAndOffset();
  auto [viewStrides, viewOffset] = view.getStridesAndOffset();
  SmallVector<int64_t> strides(wantedStrides);
  for (auto [stride, known] : llvm::zip_equal(strides, viewStrides))
    if (ShapedType::isDynamic(known))
      stride = ShapedType::kDynamic;
  // A slice starts inside its operand's buffer, which the result's layout
  // does not state: an offset the view has is its own.
  int64_t offset =
      viewOffset == wantedOffset ? wantedOffset : ShapedType::kDynamic;
  if (offset == wantedOffset && strides == wantedStrides)
    return wanted;
  return MemRefType::get(
      wanted.getShape(), wanted.getElementType(),
      StridedLayoutAttr::get(wanted.getContext(), offset, strides));
}

/// `strides` and `offset` (of `buffer`'s type, or restating them) as index
/// values: the static ones as constants, the dynamic ones read from the
/// buffer (one memref.extract_strided_metadata, where any is dynamic).
static std::pair<SmallVector<OpFoldResult>, OpFoldResult>
getMixedStridesAndOffset(OpBuilder &builder, Location loc, Value buffer,
                         ArrayRef<int64_t> strides, int64_t offset) {
  memref::ExtractStridedMetadataOp metadata;
  auto readMetadata = [&] {
    if (!metadata)
      metadata = memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
    return metadata;
  };
  SmallVector<OpFoldResult> mixedStrides;
  for (auto [dim, stride] : llvm::enumerate(strides))
    mixedStrides.push_back(ShapedType::isDynamic(stride)
                               ? OpFoldResult(readMetadata().getStrides()[dim])
                               : OpFoldResult(builder.getIndexAttr(stride)));
  OpFoldResult mixedOffset = ShapedType::isDynamic(offset)
                                 ? OpFoldResult(readMetadata().getOffset())
                                 : OpFoldResult(builder.getIndexAttr(offset));
  return {mixedStrides, mixedOffset};
}

/// `view` with the strides `wanted` states for its unit dims, where they
/// differ: a unit dim's stride addresses no element, but a cast takes
/// strides as they are written.
static Value withUnitDimStrides(OpBuilder &builder, Location loc, Value view,
                                MemRefType wanted) {
  auto type = cast<MemRefType>(view.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  SmallVector<int64_t> wantedStrides = wanted.getStridesAndOffset().first;
  bool differs = false;
  for (auto [size, stride, wantedStride] :
       llvm::zip_equal(type.getShape(), strides, wantedStrides)) {
    if (size != 1 || stride == wantedStride ||
        ShapedType::isDynamic(wantedStride))
      continue;
    stride = wantedStride;
    differs = true;
  }
  if (!differs)
    return view;
  auto [newStrides, newOffset] =
      getMixedStridesAndOffset(builder, loc, view, strides, offset);
  auto resultType = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(builder.getContext(), offset, strides));
  return memref::ReinterpretCastOp::create(
      builder, loc, resultType, view, newOffset,
      getAsIndexOpFoldResult(builder.getContext(), type.getShape()),
      newStrides);
}

/// The view of `source`, the buffer of `op`'s operand, that holds `op`'s
/// result.
static FailureOr<Value> lowerView(OpBuilder &builder, Operation *op,
                                  Value source) {
  Location loc = op->getLoc();
  MemRefType wanted =
      getLocalBufferType(cast<RankedTensorType>(op->getResult(0).getType()));
  if (source.getType() == wanted)
    return source;
  auto sourceType = cast<MemRefType>(source.getType());
  if (!sourceType.hasStaticShape() || !wanted.hasStaticShape())
    return op->emitError("lowering of a view of a buffer with a dynamic shape "
                         "is not implemented yet");
  Value view;
  // Sliced dims are never split, so the global window is the local one.
  if (auto slice = dyn_cast<SliceOp>(op)) {
    view = memref::SubViewOp::create(builder, loc, source, slice.getStarts(),
                                     wanted.getShape(), slice.getSteps());
  } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    if (!slice.getOffsets().empty() || !slice.getStrides().empty() ||
        slice.getDroppedDims().any())
      return op->emitError("lowering of a slice with dynamic offsets or "
                           "strides, or that drops dims, is not implemented "
                           "yet");
    view = memref::SubViewOp::create(
        builder, loc, source, slice.getStaticOffsets(), wanted.getShape(),
        slice.getStaticStrides());
  } else {
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    (void)sourceType.getStridesAndOffset(staticStrides, staticOffset);
    auto [strides, offset] = getMixedStridesAndOffset(
        builder, loc, source, staticStrides, staticOffset);
    ViewStrides views(builder, loc);
    FailureOr<SmallVector<OpFoldResult>> viewStrides = getViewStrides(
        views, op, sourceType.getShape(), strides, wanted.getShape());
    if (failed(viewStrides) &&
        !isa<ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      return op->emitError("no buffer view lowers this view op");
    if (failed(viewStrides))
      return op->emitError("this reshape is not a view of its operand's "
                           "buffer: the dims it merges are not one strided "
                           "line in memory (or their strides are only known "
                           "at run time); it needs a copy");
    SmallVector<int64_t> resultStrides;
    SmallVector<Value> dynamicStrides;
    dispatchIndexOpFoldResults(*viewStrides, dynamicStrides, resultStrides);
    auto type = MemRefType::get(
        wanted.getShape(), wanted.getElementType(),
        StridedLayoutAttr::get(builder.getContext(), staticOffset,
                               resultStrides));
    view = memref::ReinterpretCastOp::create(
        builder, loc, type, source, offset,
        getAsIndexOpFoldResult(builder.getContext(), wanted.getShape()),
        *viewStrides);
  }
  // The view's exact strides are the ones the result's type states, or a
  // more precise (static) version of them.
  if (view.getType() != wanted) {
    view = withUnitDimStrides(builder, loc, view, wanted);
    MemRefType target =
        keepingDynamicLayout(wanted, cast<MemRefType>(view.getType()));
    if (!memref::CastOp::areCastCompatible(view.getType(), target))
      return op->emitError("the buffer view ")
             << view.getType() << " does not match the result's layout "
             << wanted;
    if (view.getType() != target)
      view = memref::CastOp::create(builder, loc, target, view);
  }
  return view;
}

namespace {
/// Views -> memref views of their operand's buffer.
struct ViewLowering : public HostLoweringPattern {
  ViewLowering(MLIRContext *context, const HostProgram &program)
      : HostLoweringPattern(program, MatchInterfaceOpTypeTag(),
                            TypeID::get<ViewOpInterface>(), /*benefit=*/1,
                            context) {}

  LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                      HostBuilder &host) const override {
    FailureOr<Value> buffer = lowerView(host.rewriter, op, operands.front());
    if (failed(buffer))
      return failure();
    host.rewriter.replaceOp(op, *buffer);
    return success();
  }
};
} // namespace

void mlir::fuser::populateViewLoweringPatterns(RewritePatternSet &patterns,
                                               const HostProgram &program) {
  patterns.add<ViewLowering>(patterns.getContext(), program);
}
