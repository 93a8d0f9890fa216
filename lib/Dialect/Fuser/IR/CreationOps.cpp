//===- CreationOps.cpp - verifiers of ops without tensor operands ---------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

/// Creation ops have nothing to take a size from but their result type.
static LogicalResult verifyStaticResult(Operation *op, RankedTensorType type) {
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      return op->emitOpError("result dim ")
             << dim << " is dynamic; creation ops need a static shape";
  return success();
}

/// Positional creation ops take no offsets (global programs) or one per
/// dim (kernel functions).
static LogicalResult verifyOffsets(Operation *op, OperandRange offsets,
                                   RankedTensorType type) {
  if (!offsets.empty() &&
      static_cast<int64_t>(offsets.size()) != type.getRank())
    return op->emitOpError("has ")
           << offsets.size() << " offsets for a result of rank "
           << type.getRank() << "; give one per dim or none";
  return success();
}

/// The result's dims are its own factors; the offsets are scalars.
static ShardingRule getCreationRule(Operation *op) {
  ShardingRule rule = ShardingRule::pointwise(
      cast<ShapedType>(op->getResult(0).getType()).getShape(),
      /*numOperands=*/0, /*numResults=*/1);
  rule.operands.assign(op->getNumOperands(), DimFactors());
  return rule;
}

ShardingRule IotaOp::getShardingRule() { return getCreationRule(*this); }
ShardingRule UniformOp::getShardingRule() { return getCreationRule(*this); }
ShardingRule NormalOp::getShardingRule() { return getCreationRule(*this); }

LogicalResult FullOp::verify() {
  RankedTensorType type = getResult().getType();
  if (failed(verifyStaticResult(*this, type)))
    return failure();
  double value = getValue().convertToDouble();
  Type elementType = type.getElementType();
  if (elementType.isIntOrIndex() && value != std::trunc(value))
    return emitOpError("value ")
           << value << " is not an integer but the element type is "
           << elementType;
  if (elementType.isInteger(1) && value != 0.0 && value != 1.0)
    return emitOpError("value ") << value << " is not 0 or 1 for an i1 tensor";
  return success();
}

LogicalResult IotaOp::verify() {
  RankedTensorType type = getResult().getType();
  if (failed(verifyStaticResult(*this, type)) ||
      failed(verifyOffsets(*this, getOffsets(), type)))
    return failure();
  // The accessor is unsigned: read the attribute to see negative dims.
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= type.getRank())
    return emitOpError("dim ") << dim << " is out of range for rank "
                               << type.getRank();
  return success();
}

LogicalResult UniformOp::verify() {
  if (failed(verifyStaticResult(*this, getResult().getType())) ||
      failed(verifyOffsets(*this, getOffsets(), getResult().getType())))
    return failure();
  if (!(getLow().convertToDouble() < getHigh().convertToDouble()))
    return emitOpError("low ") << getLow().convertToDouble()
                               << " must be below high "
                               << getHigh().convertToDouble();
  return success();
}

LogicalResult NormalOp::verify() {
  if (failed(verifyStaticResult(*this, getResult().getType())) ||
      failed(verifyOffsets(*this, getOffsets(), getResult().getType())))
    return failure();
  if (!(getStd().convertToDouble() > 0.0))
    return emitOpError("std ") << getStd().convertToDouble()
                               << " must be positive";
  return success();
}
