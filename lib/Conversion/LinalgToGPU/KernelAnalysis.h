//===- KernelAnalysis.h - what decides a GPU kernel's schedule -*- C++ -*-===//
//
// Reads a kernel function (linalg on tensors) without creating IR: its
// outputs and reductions, the shapes its reductions share, and which
// elements computing a value reads, as affine expressions of the value's
// index (what ElementEmitter would compute, followed through the same
// producers). Schedules are chosen and checked from these facts.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_LINALGTOGPU_KERNELANALYSIS_H
#define FUSER_LIB_CONVERSION_LINALGTOGPU_KERNELANALYSIS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

namespace mlir::fuser::gpu_schedule {

/// A kernel function's outputs and reductions.
struct KernelStructure {
  func::FuncOp function;
  /// Each computed tensor and the kernel buffer (an argument) it is
  /// written to.
  SmallVector<std::pair<Value, Value>> outputs;
  /// The kernel's reductions, producers first.
  SmallVector<linalg::GenericOp> reductions;
};

/// The structure of `function`; a diagnostic when it has no body, takes a
/// buffer of dynamic shape, holds an op without GPU code generation, or
/// computes an output from something the emitter cannot compute.
FailureOr<KernelStructure> analyzeKernel(func::FuncOp function);

/// Scalar code at the top of a kernel (index arithmetic on its scalar
/// arguments, constants): cloned once into the gpu.func.
bool isScalarPrelude(Operation *op);

/// The op of `reduction`'s body that combines the accumulator with an
/// element, and the gpu reduction it is; none for other bodies, and for
/// accumulators warps cannot shuffle (an index has no width).
struct Combiner {
  Operation *op;
  gpu::AllReduceOperation kind;
};
std::optional<Combiner> matchCombiner(linalg::GenericOp reduction);

/// The iteration space every reduction of a rows kernel shares: outer
/// dims, then the row they fold.
struct RowShape {
  SmallVector<int64_t> outer, row;
  int64_t rows() const { return computeProduct(outer); }
  int64_t columns() const { return computeProduct(row); }
};
/// The row shape when every reduction folds the same trailing dims with a
/// combiner warps can shuffle, every output is the whole iteration space
/// or one value per row, and every value read of a reduction is at the
/// row its reader computes.
FailureOr<RowShape> matchRows(const KernelStructure &kernel);

/// The iteration space every reduction of an outer-reduction kernel
/// shares: the reduced dims, then the kept ones.
struct ColumnShape {
  SmallVector<int64_t> reduced, kept;
};
/// The shape when every reduction folds the same leading dims with a
/// combiner, every output is one value per kept element, and every value
/// read of a reduction after the fold is at its reader's kept element.
FailureOr<ColumnShape> matchColumns(const KernelStructure &kernel);

/// The two dims of the outputs' index space a transposing kernel's tiles
/// span.
struct TransposeDims {
  /// The dim some input reads fastest.
  int64_t load;
  /// The outputs' fastest dim.
  int64_t store;
};
/// The dims when the kernel has no reduction, its outputs share one
/// layout, and some input reads fastest along another dim than theirs.
FailureOr<TransposeDims> matchTranspose(const KernelStructure &kernel);

/// Outputs sharing one shape, and the order the pointwise schedule's loop
/// walks their dims.
struct OutputGroup {
  SmallVector<std::pair<Value, Value>> outputs;
  ArrayRef<int64_t> shape;
  /// Dims from slowest to fastest in the first output's buffer.
  SmallVector<int64_t> order;
  int64_t elements() const { return computeProduct(shape); }
  int64_t fastest() const { return order.empty() ? 1 : shape[order.back()]; }
};
SmallVector<OutputGroup> groupOutputs(const KernelStructure &kernel);

/// The widest lane count (`vectorBytes` of the kernel's narrowest element
/// type, at most) that divides `extent`; 1 when a buffer holds elements
/// that are not whole bytes (i1) or have no width (index).
int64_t vectorWidth(func::FuncOp function, int64_t extent,
                    int64_t vectorBytes);

/// The kernel buffer's static shape.
ArrayRef<int64_t> bufferShape(Value buffer);

} // namespace mlir::fuser::gpu_schedule

#endif // FUSER_LIB_CONVERSION_LINALGTOGPU_KERNELANALYSIS_H
