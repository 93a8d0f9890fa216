//===- ScheduleSupport.cpp - what the GPU schedules share -----------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

/// The widest access one thread makes.
static constexpr int64_t kVectorBytes = 16;

int64_t mlir::fuser::gpu_schedule::vectorWidth(Kernel &kernel,
                                               int64_t extent) {
  int64_t narrowest = kVectorBytes;
  for (Type type : kernel.function.getArgumentTypes()) {
    auto buffer = dyn_cast<MemRefType>(type);
    if (!buffer)
      continue;
    // Vectors of i1 are packed bits, not the bytes memrefs of i1 hold, and
    // index elements have no width before lowering: such kernels move one
    // element at a time.
    Type element = buffer.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return 1;
    narrowest =
        std::min<int64_t>(narrowest, element.getIntOrFloatBitWidth() / 8);
  }
  int64_t width = kVectorBytes / narrowest;
  while (width > 1 && extent % width != 0)
    width /= 2;
  return width;
}

ArrayRef<int64_t> mlir::fuser::gpu_schedule::bufferShape(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getShape();
}

LogicalResult mlir::fuser::gpu_schedule::emitVectorOrScalar(
    OpBuilder &builder, Location loc, int64_t width,
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
  // Every buffer accessed with vectors starts on a 16-byte boundary (the
  // schedules keep lane groups aligned relative to it).
  builder.setInsertionPoint(paths);
  Value aligned;
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value alignment = arith::ConstantIndexOp::create(builder, loc, kVectorBytes);
  for (Value buffer : *vectorized) {
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value offset = arith::RemUIOp::create(builder, loc, address, alignment);
    Value check = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        offset, zero);
    aligned = aligned ? arith::AndIOp::create(builder, loc, aligned, check)
                            .getResult()
                      : check;
  }
  paths->setOperand(0, aligned);
  placeholder.getDefiningOp()->erase();
  return success();
}

FailureOr<Combiner>
mlir::fuser::gpu_schedule::matchCombiner(linalg::GenericOp reduction) {
  Block *body = reduction.getBody();
  Value accumulator = body->getArguments().back();
  // Warps combine by shuffling integers and floats of a known width; an
  // index has none.
  if (!accumulator.getType().isIntOrFloat())
    return failure();
  Operation *op = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!op || op->getNumOperands() != 2 ||
      !llvm::is_contained(op->getOperands(), accumulator) ||
      op->getBlock() != body)
    return failure();
  std::optional<gpu::AllReduceOperation> kind =
      TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(op)
          .Case<arith::AddFOp, arith::AddIOp>(
              [](auto) { return gpu::AllReduceOperation::ADD; })
          .Case<arith::MulFOp, arith::MulIOp>(
              [](auto) { return gpu::AllReduceOperation::MUL; })
          .Case([](arith::MaximumFOp) {
            return gpu::AllReduceOperation::MAXIMUMF;
          })
          .Case([](arith::MinimumFOp) {
            return gpu::AllReduceOperation::MINIMUMF;
          })
          .Case([](arith::MaxSIOp) { return gpu::AllReduceOperation::MAXSI; })
          .Case([](arith::MinSIOp) { return gpu::AllReduceOperation::MINSI; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return failure();
  return Combiner{op, *kind};
}

Value Combiner::combine(OpBuilder &builder, Value accumulator,
                        Value value) const {
  IRMapping mapping;
  mapping.map(op->getOperand(0), accumulator);
  mapping.map(op->getOperand(1), value);
  return builder.clone(*op, mapping)->getResult(0);
}

Value Combiner::identity(OpBuilder &builder, Location loc, Type type) const {
  bool isFloat = isa<FloatType>(type);
  arith::AtomicRMWKind rmw;
  switch (kind) {
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
