//===- GPUKernelSchedules.h - choosing how GPU kernels map to threads -*- C++ -*-===//
//
// A kernel function (linalg on tensors) gets its #fuser.gpu_schedule from
// an analysis of its shapes and layouts and a description of the target;
// choosing creates no IR. fuser-choose-gpu-kernel-schedules records the
// choice; fuser-emit-gpu-kernels checks it fits and emits it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_CONVERSION_LINALGTOGPU_GPUKERNELSCHEDULES_H
#define FUSER_CONVERSION_LINALGTOGPU_GPUKERNELSCHEDULES_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuser {

/// What schedules depend on in a GPU. No schedule depends on the
/// multiprocessor count: grids cover their kernel's elements (or rows, or
/// tiles) once, and the hardware fills the machine with them.
struct GPUTarget {
  int64_t warpSize = 32;
  /// The widest access one thread makes.
  int64_t vectorBytes = 16;
  /// Shared memory a block may use without opting in.
  int64_t sharedMemoryPerBlock = 48 * 1024;
  int64_t maxThreadsPerBlock = 1024;
  /// Blocks a grid may hold along x.
  int64_t maxBlocksPerGrid = (int64_t{1} << 31) - 1;

  /// NVIDIA chip `chip` (sm_90: H100 and H200), or failure for a chip not
  /// known here.
  static FailureOr<GPUTarget> forChip(StringRef chip);
  /// The chips forChip knows, comma-separated, for diagnostics.
  static std::string knownChips();
  /// What the passes' `chip` option describes; a diagnostic on `op` for a
  /// chip forChip does not know.
  static FailureOr<GPUTarget> fromOptions(Operation *op, StringRef chip);
};

/// The schedule `kernel` gets on `target`; a diagnostic on the op that
/// stops it from being computed on GPUs otherwise.
FailureOr<GPUScheduleAttr> chooseGPUSchedule(func::FuncOp kernel,
                                             const GPUTarget &target);

/// Whether `schedule` computes `kernel` correctly on `target`; a diagnostic
/// saying why not otherwise.
LogicalResult verifyGPUSchedule(func::FuncOp kernel, GPUScheduleAttr schedule,
                                const GPUTarget &target);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_LINALGTOGPU_GPUKERNELSCHEDULES_H
