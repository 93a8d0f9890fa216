//===- Schedules.h - emitting a kernel as its schedule describes -*- C++ -*-===//

#ifndef FUSER_LIB_CONVERSION_LINALGTOGPU_SCHEDULES_H
#define FUSER_LIB_CONVERSION_LINALGTOGPU_SCHEDULES_H

#include "ElementEmitter.h"
#include "KernelAnalysis.h"

#include "fuser/Conversion/LinalgToGPU/GPUKernelSchedules.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fuser::gpu_schedule {

/// A kernel function (linalg on tensors), the schedule checked for it, and
/// the gpu.func the schedule fills.
struct Kernel : KernelStructure {
  GPUScheduleAttr schedule;
  GPUTarget target;
  gpu::GPUFuncOp gpuFunction;
  /// The kernel function's buffers and scalars as the gpu.func's values.
  IRMapping values;
};

/// verifyGPUSchedule of a kernel function analyzed as `kernel`.
LogicalResult verifyScheduleFits(func::FuncOp function,
                                 const KernelStructure &kernel,
                                 GPUScheduleAttr schedule,
                                 const GPUTarget &target);

/// Each emitter fills the gpu.func's body at the builder's insertion point
/// with the mapping of its schedule, which verifyGPUSchedule found to fit
/// the kernel; a failure means the kernel analysis accepted a value the
/// element emitter cannot compute.
LogicalResult emitRowSchedule(Kernel &kernel, OpBuilder &builder);
LogicalResult emitOuterReductionSchedule(Kernel &kernel, OpBuilder &builder);
LogicalResult emitTransposeSchedule(Kernel &kernel, OpBuilder &builder);
LogicalResult emitPointwiseSchedule(Kernel &kernel, OpBuilder &builder);

//===----------------------------------------------------------------------===//
// What the emitters share
//===----------------------------------------------------------------------===//

/// Emits `body(width)` for buffers found aligned to `vectorBytes` at run
/// time, and `body(1)` otherwise; `body` returns the buffers it accessed
/// with vectors (none: no check, one path).
LogicalResult emitVectorOrScalar(
    OpBuilder &builder, Location loc, int64_t width, int64_t vectorBytes,
    function_ref<FailureOr<SmallVector<Value>>(int64_t width)> body);

/// The combiner applied to `accumulator` and `value`.
Value combine(OpBuilder &builder, const Combiner &combiner, Value accumulator,
              Value value);
/// The combiner's identity in `type`.
Value combinerIdentity(OpBuilder &builder, Location loc,
                       const Combiner &combiner, Type type);

} // namespace mlir::fuser::gpu_schedule

#endif // FUSER_LIB_CONVERSION_LINALGTOGPU_SCHEDULES_H
