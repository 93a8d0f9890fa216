//===- ViewIndexing.cpp - an element as its source's or its iteration's ---===//

#include "ViewIndexing.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

bool mlir::fuser::gpu_schedule::isIndexView(Operation *op) {
  return isa<linalg::TransposeOp, tensor::ExtractSliceOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp>(op);
}

FailureOr<SourceElement>
mlir::fuser::gpu_schedule::sourceElement(Operation *view,
                                         ArrayRef<AffineExpr> index,
                                         Delinearizer delinearize) {
  MLIRContext *context = view->getContext();
  return TypeSwitch<Operation *, FailureOr<SourceElement>>(view)
      .Case([&](linalg::TransposeOp op) -> FailureOr<SourceElement> {
        SmallVector<AffineExpr> source(index.size());
        for (auto [dim, from] : llvm::enumerate(op.getPermutation()))
          source[from] = index[dim];
        return SourceElement{op.getInput(), source};
      })
      .Case([&](tensor::ExtractSliceOp op) -> FailureOr<SourceElement> {
        if (ShapedType::isDynamicShape(op.getStaticOffsets()) ||
            ShapedType::isDynamicShape(op.getStaticStrides()))
          return failure();
        llvm::SmallBitVector dropped = op.getDroppedDims();
        // Dims the slice drops are read at their offset.
        SmallVector<AffineExpr> source;
        int64_t next = 0;
        for (auto [dim, offset, stride] :
             llvm::enumerate(op.getStaticOffsets(), op.getStaticStrides())) {
          AffineExpr position =
              dropped[dim] ? getAffineConstantExpr(0, context) : index[next++];
          source.push_back(position * stride + offset);
        }
        return SourceElement{op.getSource(), source};
      })
      .Case([&](tensor::ExpandShapeOp op) -> FailureOr<SourceElement> {
        ArrayRef<int64_t> shape = op.getResultType().getShape();
        SmallVector<AffineExpr> source;
        for (ReassociationIndices group : op.getReassociationIndices()) {
          AffineExpr linear = getAffineConstantExpr(0, context);
          for (int64_t dim : group)
            linear = linear * shape[dim] + index[dim];
          source.push_back(linear);
        }
        return SourceElement{op.getSrc(), source};
      })
      .Case([&](tensor::CollapseShapeOp op) -> FailureOr<SourceElement> {
        ArrayRef<int64_t> shape = op.getSrcType().getShape();
        SmallVector<AffineExpr> source(shape.size());
        for (auto [position, group] :
             llvm::enumerate(op.getReassociationIndices())) {
          SmallVector<int64_t> sizes;
          for (int64_t dim : group)
            sizes.push_back(shape[dim]);
          for (auto [dim, expr] :
               llvm::zip(group, delinearize(index[position], sizes)))
            source[dim] = expr;
        }
        return SourceElement{op.getSrc(), source};
      })
      .Default([](Operation *) { return failure(); });
}

SmallVector<AffineExpr>
mlir::fuser::gpu_schedule::resultIteration(linalg::GenericOp generic,
                                           ArrayRef<AffineExpr> index) {
  SmallVector<AffineExpr> iteration(generic.getNumLoops());
  for (auto [position, expr] :
       llvm::enumerate(generic.getIndexingMapsArray().back().getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      iteration[dim.getPosition()] = index[position];
  return iteration;
}
