//===- PointwiseOps.cpp - pointwise op inference and verifiers ------------===//

#include "TypeInference.h"

using namespace mlir;
using namespace mlir::fuser;

FailureOr<RankedTensorType> mlir::fuser::getTensorOperand(OptionalLoc loc,
                                                          Value operand,
                                                          StringRef name) {
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  if (!type)
    return emitOptionalError(loc, "operand '", name,
                             "' must be a ranked tensor, got ",
                             operand.getType());
  return type;
}

/// Checks that two shapes are equal dim by dim (a dynamic dim matches any
/// size) and returns the more static of the two.
static FailureOr<SmallVector<int64_t>>
matchShapes(OptionalLoc loc, ArrayRef<int64_t> first, StringRef firstName,
            ArrayRef<int64_t> second, StringRef secondName) {
  if (first.size() != second.size())
    return emitOptionalError(loc, "operand '", firstName, "' has rank ",
                             first.size(), " but '", secondName, "' has rank ",
                             second.size(),
                             "; broadcasting is explicit (fuser.broadcast)");
  SmallVector<int64_t> merged(first);
  for (auto [dim, sizes] : llvm::enumerate(llvm::zip_equal(first, second))) {
    auto [a, b] = sizes;
    if (ShapedType::isDynamic(a)) {
      merged[dim] = b;
      continue;
    }
    if (!ShapedType::isDynamic(b) && a != b)
      return emitOptionalError(
          loc, "operand shapes differ at dim ", dim, ": '", firstName,
          "' has size ", a, " and '", secondName, "' has size ", b,
          "; broadcasting is explicit (fuser.broadcast, fuser.expand)");
  }
  return merged;
}

LogicalResult mlir::fuser::inferPointwise(OptionalLoc loc, ValueRange operands,
                                          ArrayRef<StringRef> names,
                                          Type resultElementType,
                                          InferredTypes &types) {
  FailureOr<RankedTensorType> first = getTensorOperand(loc, operands[0], names[0]);
  if (failed(first))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  for (unsigned i = 1; i < operands.size(); ++i) {
    FailureOr<RankedTensorType> other =
        getTensorOperand(loc, operands[i], names[i]);
    if (failed(other))
      return failure();
    FailureOr<SmallVector<int64_t>> merged =
        matchShapes(loc, shape, names[0], other->getShape(), names[i]);
    if (failed(merged))
      return failure();
    shape = std::move(*merged);
    if (other->getElementType() != first->getElementType())
      return emitOptionalError(loc, "operand '", names[0], "' has element type ",
                               first->getElementType(), " but '", names[i],
                               "' has ", other->getElementType(),
                               "; convert one with fuser.cast");
  }
  types.push_back(RankedTensorType::get(
      shape, resultElementType ? resultElementType : first->getElementType()));
  return success();
}

LogicalResult mlir::fuser::inferWhereType(OptionalLoc loc, Value condition,
                                          Value onTrue, Value onFalse,
                                          InferredTypes &types) {
  SmallVector<Type, 1> branchTypes;
  if (failed(inferPointwise(loc, {onTrue, onFalse}, {"on_true", "on_false"},
                            Type(), branchTypes)))
    return failure();
  FailureOr<RankedTensorType> conditionType =
      getTensorOperand(loc, condition, "condition");
  if (failed(conditionType))
    return failure();
  auto branchType = cast<RankedTensorType>(branchTypes.front());
  FailureOr<SmallVector<int64_t>> shape =
      matchShapes(loc, conditionType->getShape(), "condition",
                  branchType.getShape(), "on_true");
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, branchType.getElementType()));
  return success();
}

LogicalResult CastOp::verify() {
  auto inputType = getInput().getType();
  auto resultType = getResult().getType();
  if (inputType.getShape() != resultType.getShape())
    return emitOpError("changes the shape from ")
           << inputType.dropEncoding() << " to " << resultType.dropEncoding()
           << "; a cast converts element types only";
  return success();
}
