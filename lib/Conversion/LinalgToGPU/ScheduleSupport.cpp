//===- ScheduleSupport.cpp - what the GPU schedules share -----------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

LogicalResult mlir::fuser::gpu_schedule::emitVectorOrScalar(
    OpBuilder &builder, Location loc, int64_t width, int64_t vectorBytes,
    function_ref<FailureOr<SmallVector<Value>>(int64_t width)> body) {
  if (width == 1)
    return success(succeeded(body(1)));
  Value placeholder = arith::ConstantIntOp::create(builder, loc, 1, 1);
  auto paths = scf::IfOp::create(builder, loc, TypeRange{}, placeholder,
                                 /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(paths.thenBlock()->getTerminator());
  FailureOr<SmallVector<Value>> vectorized = body(width);
  if (failed(vectorized))
    return failure();
  if (vectorized->empty()) {
    // Nothing used vectors: one path, no check.
    Block *then = paths.thenBlock();
    then->getTerminator()->erase();
    paths->getBlock()->getOperations().splice(paths->getIterator(),
                                              then->getOperations());
    paths.erase();
    placeholder.getDefiningOp()->erase();
    return success();
  }
  builder.setInsertionPoint(paths.elseBlock()->getTerminator());
  if (failed(body(1)))
    return failure();
  // Every buffer accessed with vectors starts on a vector boundary, and
  // its strides known only at run time are whole lane groups (the schedules
  // keep lane groups aligned relative to the start).
  builder.setInsertionPoint(paths);
  Value aligned;
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto require = [&](Value value, int64_t multiple) {
    Value remainder = arith::RemUIOp::create(
        builder, loc, value,
        arith::ConstantIndexOp::create(builder, loc, multiple));
    Value check = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        remainder, zero);
    aligned = aligned ? arith::AndIOp::create(builder, loc, aligned, check)
                            .getResult()
                      : check;
  };
  for (Value buffer : *vectorized) {
    require(memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer),
            vectorBytes);
    auto type = cast<MemRefType>(buffer.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    if (llvm::none_of(strides, ShapedType::isDynamic))
      continue;
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
    for (auto [dim, stride] : llvm::enumerate(strides))
      if (ShapedType::isDynamic(stride))
        require(metadata.getStrides()[dim], width);
  }
  paths->setOperand(0, aligned);
  placeholder.getDefiningOp()->erase();
  return success();
}

Value mlir::fuser::gpu_schedule::combine(OpBuilder &builder,
                                         const Combiner &combiner,
                                         Value accumulator, Value value) {
  IRMapping mapping;
  mapping.map(combiner.op->getOperand(0), accumulator);
  mapping.map(combiner.op->getOperand(1), value);
  return builder.clone(*combiner.op, mapping)->getResult(0);
}

Value mlir::fuser::gpu_schedule::combinerIdentity(OpBuilder &builder,
                                                  Location loc,
                                                  const Combiner &combiner,
                                                  Type type) {
  bool isFloat = isa<FloatType>(type);
  arith::AtomicRMWKind rmw;
  switch (combiner.kind) {
  case gpu::AllReduceOperation::ADD:
    rmw = isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
    break;
  case gpu::AllReduceOperation::MUL:
    rmw = isFloat ? arith::AtomicRMWKind::mulf : arith::AtomicRMWKind::muli;
    break;
  case gpu::AllReduceOperation::MAXIMUMF:
    rmw = arith::AtomicRMWKind::maximumf;
    break;
  case gpu::AllReduceOperation::MINIMUMF:
    rmw = arith::AtomicRMWKind::minimumf;
    break;
  case gpu::AllReduceOperation::MAXSI:
    rmw = arith::AtomicRMWKind::maxs;
    break;
  default:
    rmw = arith::AtomicRMWKind::mins;
    break;
  }
  return arith::getIdentityValue(rmw, type, builder, loc);
}
