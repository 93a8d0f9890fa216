//===- Schedules.h - how a kernel's elements map to GPU threads -*- C++ -*-===//

#ifndef FUSER_LIB_CONVERSION_KERNELSTOGPU_SCHEDULES_H
#define FUSER_LIB_CONVERSION_KERNELSTOGPU_SCHEDULES_H

#include "ElementEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser::gpu_schedule {

/// The grid and block of a one-dimensional launch.
struct LaunchShape {
  int64_t blocks = 1;
  int64_t threads = 1;
};

/// A kernel function (linalg on tensors) and the gpu.func its schedule
/// fills.
struct Kernel {
  func::FuncOp function;
  gpu::GPUFuncOp gpuFunction;
  /// The kernel function's buffers and scalars as the gpu.func's values.
  IRMapping values;
  /// Each computed tensor and the kernel buffer it is written to.
  SmallVector<std::pair<Value, Value>> outputs;
  /// The kernel's reductions, producers first.
  SmallVector<linalg::GenericOp> reductions;
};

/// Each schedule fills the gpu.func's body at the builder's insertion
/// point and returns its launch, or fails without a diagnostic when the
/// kernel does not have the shape it handles (the caller then empties the
/// body and tries the next).
FailureOr<LaunchShape> emitRowSchedule(Kernel &kernel, OpBuilder &builder);
FailureOr<LaunchShape> emitOuterReductionSchedule(Kernel &kernel,
                                                  OpBuilder &builder);
FailureOr<LaunchShape> emitTransposeSchedule(Kernel &kernel,
                                             OpBuilder &builder);
/// Handles every kernel the emitter can compute (reductions as loops).
FailureOr<LaunchShape> emitPointwiseSchedule(Kernel &kernel,
                                             OpBuilder &builder);

//===----------------------------------------------------------------------===//
// What the schedules share
//===----------------------------------------------------------------------===//

/// The widest lane count (16 bytes of the kernel's narrowest element type,
/// at most) that divides `extent`; 1 when a buffer holds elements that are
/// not whole bytes (i1) or have no width (index).
int64_t vectorWidth(Kernel &kernel, int64_t extent);

/// Emits `body(width)` for buffers found 16-byte aligned at run time, and
/// `body(1)` otherwise; `body` returns the buffers it accessed with
/// vectors (none: no check, one path).
LogicalResult emitVectorOrScalar(
    OpBuilder &builder, Location loc, int64_t width,
    function_ref<FailureOr<SmallVector<Value>>(int64_t width)> body);

/// The op of `reduction`'s body that combines the accumulator with an
/// element, and the gpu reduction it is.
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
  /// The combiner applied to `accumulator` and `value`.
  Value combine(OpBuilder &builder, Value accumulator, Value value) const;
  /// Its identity in `type`.
  Value identity(OpBuilder &builder, Location loc, Type type) const;
};
FailureOr<Combiner> matchCombiner(linalg::GenericOp reduction);

/// The kernel buffer's static shape.
ArrayRef<int64_t> bufferShape(Value buffer);

/// `value` ceil-divided by `by`.
inline int64_t ceilDiv(int64_t value, int64_t by) {
  return (value + by - 1) / by;
}

} // namespace mlir::fuser::gpu_schedule

#endif // FUSER_LIB_CONVERSION_KERNELSTOGPU_SCHEDULES_H
