//===- ViewDerivatives.cpp - derivative rules of shape ops ----------------===//
//
// A shape op moves elements without computing: its adjoint moves the
// cotangent back. Repetition (broadcast, expand) sums what it repeated;
// windows (slice, select, cat's pieces) place the cotangent in zeros;
// padding drops what it added.
//
//===----------------------------------------------------------------------===//

#include "DerivativeBuilder.h"

using namespace mlir;
using namespace mlir::fuser;

LogicalResult BroadcastOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> cotangents,
                                    SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign(
      {d.sumToShape(cotangents[0], getGlobalType(getInput()), getDims())});
  return success();
}

LogicalResult ExpandOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                                 SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  RankedTensorType inputType = getGlobalType(getInput());
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
  operandCotangents.assign({d.sumToShape(cotangents[0], inputType, dims)});
  return success();
}

namespace {

/// The adjoint of a view that keeps the elements in order (reshape,
/// squeeze): the cotangent in the input's shape. Placed as the input where
/// the program placed it: a split the reshape cannot carry then stops no
/// propagation, and decomposition moves the data as in the forward.
LogicalResult reshapeBack(Operation *op, OpBuilder &builder, Value g,
                          SmallVectorImpl<Value> &operandCotangents) {
  Value input = op->getOperand(0);
  if (!getSharding(input) || haveSameGlobalTypes(g.getType(), input.getType())) {
    DerivativeBuilder d(builder, op->getLoc());
    operandCotangents.assign(
        {d.reshape(g, getGlobalType(input).getShape())});
    return success();
  }
  operandCotangents.assign(
      {ReshapeOp::create(builder, op->getLoc(), input.getType(), g)});
  return success();
}

} // namespace

LogicalResult SqueezeOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  return reshapeBack(*this, builder, cotangents[0], operandCotangents);
}

LogicalResult ReshapeOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  return reshapeBack(*this, builder, cotangents[0], operandCotangents);
}

LogicalResult PermuteOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [resultDim, inputDim] : llvm::enumerate(perm))
    inverse[inputDim] = resultDim;
  operandCotangents.assign({d.permute(cotangents[0], inverse)});
  return success();
}

LogicalResult SliceOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                                SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  ArrayRef<int64_t> inputShape = getGlobalType(getInput()).getShape();
  int64_t rank = inputShape.size();
  Value g = cotangents[0];
  // A strided dim first spreads its elements `step` apart: each becomes a
  // row of `step` (itself, then zeros), and the rows merge back into one dim.
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t step = getSteps()[dim];
    if (step == 1)
      continue;
    SmallVector<int64_t> shape(getGlobalType(g).getShape());
    SmallVector<int64_t> rows(shape);
    rows.insert(rows.begin() + dim + 1, 1);
    SmallVector<int64_t> low(rank + 1, 0), high(rank + 1, 0);
    high[dim + 1] = step - 1;
    Value spread = d.pad(d.reshape(g, rows), low, high);
    shape[dim] *= step;
    g = d.reshape(spread, shape);
  }
  // Then the window is placed among zeros; a spread dim may run past the
  // input's end by up to step - 1 zeros, which are cut.
  SmallVector<int64_t> shape(getGlobalType(g).getShape());
  SmallVector<int64_t> limits(shape);
  SmallVector<int64_t> low(rank), high(rank);
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t start = getStarts()[dim];
    limits[dim] = std::min(shape[dim], inputShape[dim] - start);
    low[dim] = start;
    high[dim] = inputShape[dim] - start - limits[dim];
  }
  Value window = d.slice(g, SmallVector<int64_t>(rank, 0), limits);
  operandCotangents.assign({d.pad(window, low, high)});
  return success();
}

LogicalResult CatOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  int64_t dim = getDim();
  SmallVector<int64_t> limits(getGlobalType(getResult()).getShape());
  SmallVector<int64_t> starts(limits.size(), 0);
  operandCotangents.clear();
  for (Value input : getInputs()) {
    limits[dim] = starts[dim] + getGlobalType(input).getDimSize(dim);
    operandCotangents.push_back(d.slice(cotangents[0], starts, limits));
    starts[dim] = limits[dim];
  }
  return success();
}

LogicalResult PadOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  ArrayRef<int64_t> inputShape = getGlobalType(getInput()).getShape();
  SmallVector<int64_t> limits;
  for (auto [low, size] : llvm::zip_equal(getLow(), inputShape))
    limits.push_back(low + size);
  operandCotangents.assign({d.slice(cotangents[0], getLow(), limits)});
  return success();
}

LogicalResult SelectOp::buildVjp(OpBuilder &builder,
                                 ArrayRef<Value> cotangents,
                                 SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  ArrayRef<int64_t> inputShape = getGlobalType(getInput()).getShape();
  int64_t dim = getDim();
  SmallVector<int64_t> withDim(inputShape);
  withDim[dim] = 1;
  SmallVector<int64_t> low(inputShape.size(), 0), high(inputShape.size(), 0);
  low[dim] = getIndex();
  high[dim] = inputShape[dim] - 1 - getIndex();
  operandCotangents.assign(
      {d.pad(d.reshape(cotangents[0], withDim), low, high)});
  return success();
}
