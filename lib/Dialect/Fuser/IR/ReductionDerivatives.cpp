//===- ReductionDerivatives.cpp - derivative rules of reductions ----------===//
//
// The cotangent of a reduction's result is repeated along the reduced dims
// (a broadcast, or an expand with keepdim): every element a sum reads
// receives it, a mean's a share, an extremum's only the elements equal to
// the result.
//
//===----------------------------------------------------------------------===//

#include "DerivativeBuilder.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The number of elements each result element of a reduction over `dims`
/// of `input` reads.
int64_t reducedCount(Value input, ArrayRef<int64_t> dims) {
  RankedTensorType type = getGlobalType(input);
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= type.getDimSize(dim);
  return count;
}

/// The cotangent of max or min: to the elements equal to the result (each
/// of several equal ones receives all of it).
template <typename Op>
LogicalResult extremumRule(Op op, OpBuilder &builder, Value g,
                           SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, op.getLoc());
  RankedTensorType inputType = getGlobalType(op.getInput());
  Value extremum =
      d.unreduce(op.getResult(), inputType, op.getDims(), op.getKeepdim());
  Value isExtremum = d.compare(CompareKind::EQ, op.getInput(), extremum);
  Value repeated = d.unreduce(g, inputType, op.getDims(), op.getKeepdim());
  operandCotangents.assign({d.keepWhere(isExtremum, repeated)});
  return success();
}

} // namespace

LogicalResult SumOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign({d.unreduce(
      cotangents[0], getGlobalType(getInput()), getDims(), getKeepdim())});
  return success();
}

LogicalResult MeanOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value share =
      d.scale(cotangents[0], 1.0 / reducedCount(getInput(), getDims()));
  operandCotangents.assign(
      {d.unreduce(share, getGlobalType(getInput()), getDims(), getKeepdim())});
  return success();
}

LogicalResult MaxOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return extremumRule(*this, builder, cotangents[0], operandCotangents);
}

LogicalResult MinOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return extremumRule(*this, builder, cotangents[0], operandCotangents);
}

LogicalResult VarMeanOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  // mean = sum(x) / N: each x receives g_mean / N;
  // var = sum((x - mean)^2) / (N - correction): each x receives
  // g_var * 2 (x - mean) / (N - correction) (the mean's own dependence on x
  // sums to zero over the reduced elements).
  DerivativeBuilder d(builder, getLoc());
  Value x = d.widen(getInput());
  RankedTensorType inputType = getGlobalType(x);
  int64_t count = reducedCount(getInput(), getDims());
  Value gradient;
  if (Value gVar = cotangents[0]) {
    Value centered = d.sub(x, d.unreduce(d.widen(getMean()), inputType,
                                         getDims(), getKeepdim()));
    Value repeated =
        d.unreduce(d.widen(gVar), inputType, getDims(), getKeepdim());
    double factor = 2.0 / static_cast<double>(count - getCorrection());
    gradient = d.mul(d.scale(repeated, factor), centered);
  }
  if (Value gMean = cotangents[1]) {
    Value share = d.unreduce(d.scale(d.widen(gMean), 1.0 / count), inputType,
                             getDims(), getKeepdim());
    gradient = gradient ? d.add(gradient, share) : share;
  }
  operandCotangents.assign({d.castLike(gradient, getInput())});
  return success();
}
