//===- FuseLibraryEpilogues.cpp - activations into library products -------===//
//
// A gelu (tanh approximation) or relu that is the only reader of a matmul
// or linear (directly, or through the reshape a pipeline adds) becomes the
// product's `activation`: the library applies it in its epilogue, while
// each tile of the product is still on chip, instead of a kernel that
// reads and writes the whole result once more.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_FUSELIBRARYEPILOGUES
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// `type` without its chunked allocation: a view allocates nothing of its
/// own (it is its source's), so views of one placement and layout compare
/// equal whether or not their type says chunked.
Type withoutChunkedAllocation(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  ShardingAttr sharding = getSharding(tensor);
  if (!sharding || !sharding.getStreamChunked())
    return type;
  return tensor.cloneWithEncoding(sharding.withStream(
      sharding.getStreamDim(), sharding.getStreamChunks(), false));
}

/// Folds `ActivationOp` into the product it reads, directly or through the
/// reshape a pipeline puts between a chunked product and its consumers
/// (gelu(reshape(p)) = reshape(gelu(p)): the activation is elementwise).
template <typename ActivationOp>
struct FoldIntoProduct : OpRewritePattern<ActivationOp> {
  FoldIntoProduct(MLIRContext *context, Activation activation)
      : OpRewritePattern<ActivationOp>(context), activation(activation) {}

  LogicalResult matchAndRewrite(ActivationOp op,
                                PatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<ActivationOp, GeluOp>)
      if (op.getApproximation() != GeluApproximation::Tanh)
        return rewriter.notifyMatchFailure(
            op, "the library's gelu is the tanh approximation");
    Value input = op.getInput();
    auto view = input.getDefiningOp<ReshapeOp>();
    Value product = view ? view.getInput() : input;
    Operation *producer = product.getDefiningOp();
    if (!producer || !isa<MatmulOp, LinearOp>(producer))
      return rewriter.notifyMatchFailure(op, "not the result of a product");
    if (producer->hasAttr("activation"))
      return rewriter.notifyMatchFailure(op, "the product has an activation");
    if (!product.hasOneUse() || !input.hasOneUse())
      return rewriter.notifyMatchFailure(op, "the product is read elsewhere");
    // The same placement and layout, so that the product (or its view)
    // writes the activation's buffer as it is.
    if (withoutChunkedAllocation(input.getType()) !=
        withoutChunkedAllocation(op.getResult().getType()))
      return rewriter.notifyMatchFailure(
          op, "the product is placed or laid out differently");
    // A partial sum is complete only after its reduction.
    ShardingAttr sharding = getSharding(product);
    if (sharding && sharding.isPartial())
      return rewriter.notifyMatchFailure(op, "the product is a partial sum");
    if (!isa<FloatType>(
            cast<RankedTensorType>(product.getType()).getElementType()))
      return rewriter.notifyMatchFailure(op, "not floating-point");
    rewriter.modifyOpInPlace(producer, [&] {
      producer->setAttr("activation",
                        ActivationAttr::get(rewriter.getContext(), activation));
    });
    if (!view) {
      rewriter.replaceOp(op, product);
      return success();
    }
    // A view of the activated product stands for the activation's result.
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getResult().getType(),
                                           product);
    rewriter.eraseOp(view);
    return success();
  }

  Activation activation;
};

struct FuseLibraryEpilogues
    : mlir::fuser::impl::FuseLibraryEpiloguesBase<FuseLibraryEpilogues> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FoldIntoProduct<GeluOp>>(context, Activation::GeluTanh);
    patterns.add<FoldIntoProduct<ReluOp>>(context, Activation::Relu);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
