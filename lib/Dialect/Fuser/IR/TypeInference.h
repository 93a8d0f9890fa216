//===- TypeInference.h - result type inference of fuser ops -----*- C++ -*-===//
//
// The ODS-generated inferReturnTypes of each op forwards its adaptor to one
// of the templates below, which pick the operands and attributes and call a
// plain function that computes the global result type and reports bad
// operands (naming the operand and dim) at the op's location.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_DIALECT_FUSER_IR_TYPEINFERENCE_H
#define FUSER_LIB_DIALECT_FUSER_IR_TYPEINFERENCE_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

namespace mlir::fuser {

using InferredTypes = SmallVectorImpl<Type>;
using OptionalLoc = std::optional<Location>;

/// The operand's type as a ranked tensor, or an error naming `operandName`.
FailureOr<RankedTensorType> getTensorOperand(OptionalLoc loc, Value operand,
                                             StringRef operandName);

/// Every entry of `dims` (described as `what`, e.g. "reduction dim") is in
/// [0, rank) and appears once.
LogicalResult checkDimList(OptionalLoc loc, ArrayRef<int64_t> dims,
                           int64_t rank, StringRef what);

/// Operands of equal shapes and element types; the result has their shape
/// and `resultElementType`, or their element type when that is null.
LogicalResult inferPointwise(OptionalLoc loc, ValueRange operands,
                             ArrayRef<StringRef> operandNames,
                             Type resultElementType, InferredTypes &types);
LogicalResult inferWhereType(OptionalLoc loc, Value condition, Value onTrue,
                             Value onFalse, InferredTypes &types);
LogicalResult inferReductionTypes(OptionalLoc loc, Value input,
                                  ArrayRef<int64_t> dims, bool keepdim,
                                  unsigned numResults, InferredTypes &types);
LogicalResult inferSqueezeType(OptionalLoc loc, Value input,
                               ArrayRef<int64_t> dims, InferredTypes &types);
LogicalResult inferPermuteType(OptionalLoc loc, Value input,
                               ArrayRef<int64_t> perm, InferredTypes &types);
LogicalResult inferSliceType(OptionalLoc loc, Value input,
                             ArrayRef<int64_t> starts, ArrayRef<int64_t> limits,
                             ArrayRef<int64_t> steps, InferredTypes &types);
LogicalResult inferCatType(OptionalLoc loc, ValueRange inputs, int64_t dim,
                           InferredTypes &types);
LogicalResult inferPadType(OptionalLoc loc, Value input, ArrayRef<int64_t> low,
                           ArrayRef<int64_t> high, InferredTypes &types);
LogicalResult inferSelectType(OptionalLoc loc, Value input, int64_t dim,
                              int64_t index, InferredTypes &types);
LogicalResult inferMatmulType(OptionalLoc loc, Value lhs, Value rhs,
                              InferredTypes &types);
LogicalResult inferLinearType(OptionalLoc loc, Value input, Value weight,
                              Value bias, InferredTypes &types);
LogicalResult inferSameGlobalTypeOf(OptionalLoc loc, Value input,
                                    InferredTypes &types);
LogicalResult inferSdpaTypes(OptionalLoc loc, Value query, Value key,
                             Value value, InferredTypes &types);
/// `operands`: query, key, value, output, its gradient, log-sum-exp.
LogicalResult inferSdpaBackwardTypes(OptionalLoc loc, ValueRange operands,
                                     InferredTypes &types);
LogicalResult inferEmbeddingType(OptionalLoc loc, Value table, Value indices,
                                 InferredTypes &types);

template <typename Adaptor>
LogicalResult inferUnaryPointwise(OptionalLoc loc, Adaptor adaptor,
                                  InferredTypes &types) {
  return inferPointwise(loc, {adaptor.getInput()}, {"input"}, Type(), types);
}

template <typename Adaptor>
LogicalResult inferBinaryPointwise(OptionalLoc loc, Adaptor adaptor,
                                   InferredTypes &types) {
  return inferPointwise(loc, {adaptor.getLhs(), adaptor.getRhs()},
                        {"lhs", "rhs"}, Type(), types);
}

template <typename Adaptor>
LogicalResult inferCompare(OptionalLoc loc, Adaptor adaptor,
                           InferredTypes &types) {
  Value lhs = adaptor.getLhs();
  return inferPointwise(loc, {lhs, adaptor.getRhs()}, {"lhs", "rhs"},
                        IntegerType::get(lhs.getContext(), 1), types);
}

template <typename Adaptor>
LogicalResult inferWhere(OptionalLoc loc, Adaptor adaptor,
                         InferredTypes &types) {
  return inferWhereType(loc, adaptor.getCondition(), adaptor.getOnTrue(),
                        adaptor.getOnFalse(), types);
}

template <typename Adaptor>
LogicalResult inferReduction(OptionalLoc loc, Adaptor adaptor,
                             InferredTypes &types) {
  constexpr unsigned numResults =
      std::is_same_v<Adaptor, VarMeanOp::Adaptor> ? 2 : 1;
  return inferReductionTypes(loc, adaptor.getInput(), adaptor.getDims(),
                             adaptor.getKeepdim(), numResults, types);
}

template <typename Adaptor>
LogicalResult inferSqueeze(OptionalLoc loc, Adaptor adaptor,
                           InferredTypes &types) {
  return inferSqueezeType(loc, adaptor.getInput(), adaptor.getDims(), types);
}

template <typename Adaptor>
LogicalResult inferPermute(OptionalLoc loc, Adaptor adaptor,
                           InferredTypes &types) {
  return inferPermuteType(loc, adaptor.getInput(), adaptor.getPerm(), types);
}

template <typename Adaptor>
LogicalResult inferSlice(OptionalLoc loc, Adaptor adaptor,
                         InferredTypes &types) {
  return inferSliceType(loc, adaptor.getInput(), adaptor.getStarts(),
                        adaptor.getLimits(), adaptor.getSteps(), types);
}

template <typename Adaptor>
LogicalResult inferCat(OptionalLoc loc, Adaptor adaptor, InferredTypes &types) {
  return inferCatType(loc, adaptor.getInputs(), adaptor.getDim(), types);
}

template <typename Adaptor>
LogicalResult inferPad(OptionalLoc loc, Adaptor adaptor, InferredTypes &types) {
  return inferPadType(loc, adaptor.getInput(), adaptor.getLow(),
                      adaptor.getHigh(), types);
}

template <typename Adaptor>
LogicalResult inferSelect(OptionalLoc loc, Adaptor adaptor,
                          InferredTypes &types) {
  return inferSelectType(loc, adaptor.getInput(), adaptor.getDim(),
                         adaptor.getIndex(), types);
}

template <typename Adaptor>
LogicalResult inferMatmul(OptionalLoc loc, Adaptor adaptor,
                          InferredTypes &types) {
  return inferMatmulType(loc, adaptor.getLhs(), adaptor.getRhs(), types);
}

template <typename Adaptor>
LogicalResult inferLinear(OptionalLoc loc, Adaptor adaptor,
                          InferredTypes &types) {
  return inferLinearType(loc, adaptor.getInput(), adaptor.getWeight(),
                         adaptor.getBias(), types);
}

template <typename Adaptor>
LogicalResult inferSdpa(OptionalLoc loc, Adaptor adaptor,
                        InferredTypes &types) {
  return inferSdpaTypes(loc, adaptor.getQuery(), adaptor.getKey(),
                        adaptor.getValue(), types);
}

template <typename Adaptor>
LogicalResult inferSdpaBackward(OptionalLoc loc, Adaptor adaptor,
                                InferredTypes &types) {
  return inferSdpaBackwardTypes(
      loc,
      ValueRange{adaptor.getQuery(), adaptor.getKey(), adaptor.getValue(),
                 adaptor.getOutput(), adaptor.getGradOutput(),
                 adaptor.getLogsumexp()},
      types);
}

template <typename Adaptor>
LogicalResult inferEmbedding(OptionalLoc loc, Adaptor adaptor,
                             InferredTypes &types) {
  return inferEmbeddingType(loc, adaptor.getTable(), adaptor.getIndices(),
                            types);
}

template <typename Adaptor>
LogicalResult inferSameGlobalType(OptionalLoc loc, Adaptor adaptor,
                                  InferredTypes &types) {
  return inferSameGlobalTypeOf(loc, adaptor.getInput(), types);
}

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_IR_TYPEINFERENCE_H
