//===- MatmulOps.cpp - matmul and linear shape rules and inference --------===//

#include "TypeInference.h"
#include "fuser/Dialect/Fuser/IR/ShapeRules.h"

using namespace mlir;
using namespace mlir::fuser;

static std::string sizeString(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

static bool sizesConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

FailureOr<SmallVector<int64_t>>
mlir::fuser::getMatmulShape(std::optional<Location> loc, ShapedType a,
                            ShapedType b) {
  int64_t rank = a.getRank();
  if (rank < 2 || b.getRank() < 2)
    return emitOptionalError(loc, "matmul operands need rank >= 2, got lhs rank ",
                             rank, " and rhs rank ", b.getRank());
  // A matrix rhs is shared by every batch entry, as in torch.matmul; other
  // batch dims are matched exactly.
  bool sharedRhs = b.getRank() == 2;
  if (!sharedRhs && b.getRank() != rank)
    return emitOptionalError(loc, "lhs has rank ", rank, " but rhs has rank ",
                             b.getRank(),
                             "; batch dims are matched exactly (broadcast "
                             "explicitly) unless rhs is a matrix");
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "lhs element type ", a.getElementType(),
                             " differs from rhs element type ",
                             b.getElementType());
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank - 2; ++dim) {
    if (sharedRhs) {
      shape.push_back(a.getDimSize(dim));
      continue;
    }
    if (sizesConflict(a.getDimSize(dim), b.getDimSize(dim)))
      return emitOptionalError(loc, "batch dim ", dim, " differs: lhs has ",
                               a.getDimSize(dim), ", rhs has ",
                               b.getDimSize(dim));
    shape.push_back(ShapedType::isDynamic(a.getDimSize(dim))
                        ? b.getDimSize(dim)
                        : a.getDimSize(dim));
  }
  int64_t rhsRank = b.getRank();
  int64_t lhsK = a.getDimSize(rank - 1), rhsK = b.getDimSize(rhsRank - 2);
  if (sizesConflict(lhsK, rhsK))
    return emitOptionalError(loc, "contracted sizes differ: lhs dim ", rank - 1,
                             " (K) is ", sizeString(lhsK), " but rhs dim ",
                             rhsRank - 2, " (K) is ", sizeString(rhsK));
  shape.push_back(a.getDimSize(rank - 2));
  shape.push_back(b.getDimSize(rhsRank - 1));
  return shape;
}

LogicalResult mlir::fuser::inferMatmulType(OptionalLoc loc, Value lhs,
                                           Value rhs, InferredTypes &types) {
  FailureOr<RankedTensorType> a = getTensorOperand(loc, lhs, "lhs");
  FailureOr<RankedTensorType> b = getTensorOperand(loc, rhs, "rhs");
  if (failed(a) || failed(b))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = getMatmulShape(loc, *a, *b);
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, a->getElementType()));
  return success();
}

FailureOr<SmallVector<int64_t>>
mlir::fuser::getLinearShape(std::optional<Location> loc, ShapedType x,
                            ShapedType w, ShapedType b) {
  if (x.getRank() < 1)
    return emitOptionalError(loc, "linear input needs rank >= 1");
  if (w.getRank() != 1 && w.getRank() != 2)
    return emitOptionalError(loc, "linear weight must be [N, K] or [K], got rank ",
                             w.getRank());
  Type elementType = x.getElementType();
  if (w.getElementType() != elementType)
    return emitOptionalError(loc, "weight element type ", w.getElementType(),
                             " differs from input element type ", elementType);
  int64_t inputK = x.getDimSize(x.getRank() - 1);
  int64_t weightK = w.getDimSize(w.getRank() - 1);
  if (sizesConflict(inputK, weightK))
    return emitOptionalError(loc, "contracted sizes differ: input dim ",
                             x.getRank() - 1, " (K) is ", sizeString(inputK),
                             " but weight dim ", w.getRank() - 1, " (K) is ",
                             sizeString(weightK));
  SmallVector<int64_t> shape(x.getShape().drop_back());
  if (w.getRank() == 2)
    shape.push_back(w.getDimSize(0));
  if (b) {
    if (b.getElementType() != elementType)
      return emitOptionalError(loc, "bias element type ", b.getElementType(),
                               " differs from input element type ",
                               elementType);
    int64_t expectedRank = w.getRank() - 1;
    if (b.getRank() != expectedRank)
      return emitOptionalError(loc, "bias must have rank ", expectedRank,
                               " for a weight of rank ", w.getRank(),
                               ", got rank ", b.getRank());
    if (expectedRank == 1 && sizesConflict(b.getDimSize(0), w.getDimSize(0)))
      return emitOptionalError(loc, "bias dim 0 is ", b.getDimSize(0),
                               " but the weight has N = ", w.getDimSize(0),
                               " output features");
  }
  return shape;
}

LogicalResult mlir::fuser::inferLinearType(OptionalLoc loc, Value input,
                                           Value weight, Value bias,
                                           InferredTypes &types) {
  FailureOr<RankedTensorType> x = getTensorOperand(loc, input, "input");
  FailureOr<RankedTensorType> w = getTensorOperand(loc, weight, "weight");
  if (failed(x) || failed(w))
    return failure();
  ShapedType b;
  if (bias) {
    FailureOr<RankedTensorType> biasType = getTensorOperand(loc, bias, "bias");
    if (failed(biasType))
      return failure();
    b = *biasType;
  }
  FailureOr<SmallVector<int64_t>> shape = getLinearShape(loc, *x, *w, b);
  if (failed(shape))
    return failure();
  types.push_back(RankedTensorType::get(*shape, x->getElementType()));
  return success();
}

LogicalResult mlir::fuser::verifyActivation(
    Operation *op, std::optional<Activation> activation, Type elementType) {
  if (activation && !isa<FloatType>(elementType))
    return op->emitOpError("activation ")
           << stringifyActivation(*activation)
           << " needs floating-point elements, got " << elementType;
  return success();
}

LogicalResult MatmulOp::verify() {
  return verifyActivation(*this, getActivation(),
                          getLhs().getType().getElementType());
}

LogicalResult LinearOp::verify() {
  return verifyActivation(*this, getActivation(),
                          getInput().getType().getElementType());
}
