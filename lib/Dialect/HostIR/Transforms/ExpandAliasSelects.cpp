//===- ExpandAliasSelects.cpp - chunk views as memref subviews ------------===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_EXPANDALIASSELECTS
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

/// The subview of chunk `index` of `dim`: offset index * chunk there, the
/// chunk's size, unit strides.
static void expand(IRRewriter &rewriter, AliasSelectOp select) {
  rewriter.setInsertionPoint(select);
  Location loc = select.getLoc();
  MemRefType type = select.getBuffer().getType();
  int64_t rank = type.getRank(), dim = select.getDim();
  int64_t chunk = type.getDimSize(dim) / select.getChunks();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  offsets[dim] = arith::MulIOp::create(
                     rewriter, loc, select.getIndex(),
                     arith::ConstantIndexOp::create(rewriter, loc, chunk))
                     .getResult();
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
  sizes[dim] = rewriter.getIndexAttr(chunk);
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  Value view = memref::SubViewOp::create(rewriter, loc, select.getBuffer(),
                                         offsets, sizes, strides);
  if (view.getType() != select.getType())
    view = memref::CastOp::create(rewriter, loc, select.getType(), view);
  rewriter.replaceOp(select, view);
}

namespace {
struct ExpandAliasSelectsPass
    : public mlir::hostir::impl::ExpandAliasSelectsBase<
          ExpandAliasSelectsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk(
        [&](AliasSelectOp select) { expand(rewriter, select); });
  }
};
} // namespace
