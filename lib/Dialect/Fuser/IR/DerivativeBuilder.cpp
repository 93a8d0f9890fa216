//===- DerivativeBuilder.cpp - ops that derivative rules build ------------===//

#include "DerivativeBuilder.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::fuser;

RankedTensorType mlir::fuser::getGlobalType(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return RankedTensorType::get(type.getShape(), type.getElementType());
}

Value DerivativeBuilder::constant(double value, RankedTensorType type) {
  return FullOp::create(builder, loc, type, builder.getF64FloatAttr(value));
}

Value DerivativeBuilder::constant(double value, Value like) {
  return constant(value, getGlobalType(like));
}

Value DerivativeBuilder::add(Value lhs, Value rhs) {
  return AddOp::create(builder, loc, lhs, rhs);
}

Value DerivativeBuilder::sub(Value lhs, Value rhs) {
  return SubOp::create(builder, loc, lhs, rhs);
}

Value DerivativeBuilder::mul(Value lhs, Value rhs) {
  return MulOp::create(builder, loc, lhs, rhs);
}

Value DerivativeBuilder::div(Value lhs, Value rhs) {
  return DivOp::create(builder, loc, lhs, rhs);
}

Value DerivativeBuilder::neg(Value value) {
  return NegOp::create(builder, loc, value);
}

Value DerivativeBuilder::scale(Value value, double factor) {
  return mul(value, constant(factor, value));
}

Value DerivativeBuilder::compare(CompareKind kind, Value lhs, Value rhs) {
  return CompareOp::create(builder, loc, kind, lhs, rhs);
}

Value DerivativeBuilder::keepWhere(Value condition, Value value) {
  return WhereOp::create(builder, loc, condition, value, constant(0.0, value));
}

Value DerivativeBuilder::dropWhere(Value condition, Value value) {
  return WhereOp::create(builder, loc, condition, constant(0.0, value), value);
}

Value DerivativeBuilder::cast(Value value, Type elementType) {
  RankedTensorType type = getGlobalType(value);
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(builder, loc, type.clone(elementType), value);
}

Value DerivativeBuilder::exp(Value value) {
  return ExpOp::create(builder, loc, value);
}

Value DerivativeBuilder::log(Value value) {
  return LogOp::create(builder, loc, value);
}

Value DerivativeBuilder::tanh(Value value) {
  return TanhOp::create(builder, loc, value);
}

Value DerivativeBuilder::sigmoid(Value value) {
  return SigmoidOp::create(builder, loc, value);
}

Value DerivativeBuilder::erf(Value value) {
  return ErfOp::create(builder, loc, value);
}

Value DerivativeBuilder::sin(Value value) {
  return SinOp::create(builder, loc, value);
}

Value DerivativeBuilder::cos(Value value) {
  return CosOp::create(builder, loc, value);
}

Value DerivativeBuilder::pow(Value base, Value exponent) {
  return PowOp::create(builder, loc, base, exponent);
}

Value DerivativeBuilder::widen(Value value) {
  Type element = getGlobalType(value).getElementType();
  if (element.isF16() || element.isBF16())
    return cast(value, builder.getF32Type());
  return value;
}

Value DerivativeBuilder::castLike(Value value, Value like) {
  return cast(value, getGlobalType(like).getElementType());
}

Value DerivativeBuilder::reshape(Value value, ArrayRef<int64_t> shape) {
  RankedTensorType type = getGlobalType(value);
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(builder, loc, type.clone(shape), value);
}

Value DerivativeBuilder::permute(Value value, ArrayRef<int64_t> perm) {
  return PermuteOp::create(builder, loc, value, perm);
}

Value DerivativeBuilder::transpose(Value value) {
  int64_t rank = getGlobalType(value).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 2], perm[rank - 1]);
  return permute(value, perm);
}

Value DerivativeBuilder::sum(Value value, ArrayRef<int64_t> dims,
                             bool keepdim) {
  if (dims.empty())
    return value;
  return SumOp::create(builder, loc, value, dims, keepdim);
}

Value DerivativeBuilder::broadcast(Value value, ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> dims) {
  RankedTensorType type = getGlobalType(value);
  if (type.getShape() == shape)
    return value;
  return BroadcastOp::create(builder, loc, type.clone(shape), value, dims);
}

Value DerivativeBuilder::expand(Value value, ArrayRef<int64_t> shape) {
  RankedTensorType type = getGlobalType(value);
  if (type.getShape() == shape)
    return value;
  return ExpandOp::create(builder, loc, type.clone(shape), value);
}

Value DerivativeBuilder::matmul(Value lhs, Value rhs) {
  return MatmulOp::create(builder, loc, lhs, rhs, ActivationAttr());
}

Value DerivativeBuilder::pad(Value value, ArrayRef<int64_t> low,
                             ArrayRef<int64_t> high) {
  if (llvm::all_of(low, [](int64_t n) { return n == 0; }) &&
      llvm::all_of(high, [](int64_t n) { return n == 0; }))
    return value;
  return PadOp::create(builder, loc, value, builder.getDenseI64ArrayAttr(low),
                       builder.getDenseI64ArrayAttr(high),
                       builder.getF64FloatAttr(0.0));
}

Value DerivativeBuilder::slice(Value value, ArrayRef<int64_t> starts,
                               ArrayRef<int64_t> limits) {
  RankedTensorType type = getGlobalType(value);
  bool whole = llvm::all_of(llvm::seq<int64_t>(0, type.getRank()), [&](int64_t d) {
    return starts[d] == 0 && limits[d] == type.getDimSize(d);
  });
  if (whole)
    return value;
  SmallVector<int64_t> steps(type.getRank(), 1);
  return SliceOp::create(builder, loc, value, starts, limits, steps);
}

Value DerivativeBuilder::unreduce(Value reduced, RankedTensorType inputType,
                                  ArrayRef<int64_t> dims, bool keepdim) {
  ArrayRef<int64_t> shape = inputType.getShape();
  if (keepdim)
    return expand(reduced, shape);
  SmallVector<int64_t> kept;
  for (int64_t dim : llvm::seq<int64_t>(0, inputType.getRank()))
    if (!llvm::is_contained(dims, dim))
      kept.push_back(dim);
  return broadcast(reduced, shape, kept);
}

Value DerivativeBuilder::sumToShape(Value cotangent, RankedTensorType inputType,
                                    ArrayRef<int64_t> dims) {
  ArrayRef<int64_t> resultShape = getGlobalType(cotangent).getShape();
  // Input dims of size 1 repeated along their result dim: summed, kept.
  SmallVector<int64_t> repeated;
  for (auto [inputDim, resultDim] : llvm::enumerate(dims))
    if (inputType.getDimSize(inputDim) != resultShape[resultDim])
      repeated.push_back(resultDim);
  Value summed = sum(cotangent, repeated, /*keepdim=*/true);
  // Result dims no input dim maps to: summed away.
  SmallVector<int64_t> added;
  for (int64_t dim : llvm::seq<int64_t>(0, resultShape.size()))
    if (!llvm::is_contained(dims, dim))
      added.push_back(dim);
  return sum(summed, added);
}
