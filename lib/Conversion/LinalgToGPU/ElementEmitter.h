//===- ElementEmitter.h - a kernel's values, one element at a time -*- C++ -*-===//
//
// GPU schedules decide which elements each thread computes; the emitter
// computes them. An element's index is a list of affine expressions over
// coordinates (SSA index values the schedule binds, such as the thread's
// row or column), and any value of the kernel's tensor program is computed
// at such an index by following its producers back to the kernel's input
// buffers: linalg bodies are cloned, views become index arithmetic, and
// reductions are asked of the schedule (or folded by a loop).
//
// Coordinate 0 is the lane: schedules that move several consecutive
// elements per thread compute lane by lane, and the emitter reads and
// writes the lanes of one access with one vector transfer where the
// buffer's layout allows it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_LINALGTOGPU_ELEMENTEMITTER_H
#define FUSER_LIB_CONVERSION_LINALGTOGPU_ELEMENTEMITTER_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::fuser::gpu_schedule {

/// How a reduction's result is obtained at an index of it: from what the
/// schedule computed cooperatively, or a failure when the index is not one
/// the schedule computed.
using ReductionProvider =
    std::function<FailureOr<Value>(linalg::GenericOp, ArrayRef<AffineExpr>)>;

class ElementEmitter {
public:
  /// `kernelValues` maps the kernel function's buffers and scalars to the
  /// gpu.func's. `vectorWidth` lanes move together (1: no vectors).
  ElementEmitter(OpBuilder &builder, Location loc,
                 const IRMapping &kernelValues, int64_t vectorWidth);

  OpBuilder &builder() { return build; }
  Location location() const { return loc; }
  int64_t vectorWidth() const { return width; }

  /// Binds a new coordinate to `value`; returns its expression.
  AffineExpr bind(Value value);
  /// The lane coordinate (0 .. vectorWidth - 1).
  AffineExpr lane() const;
  /// `linear` (an index into dims of `sizes`, row-major) split into one
  /// index per dim, keeping the lane in the innermost where a group of
  /// lanes cannot cross it.
  SmallVector<AffineExpr> delinearizeLanes(AffineExpr linear,
                                           ArrayRef<int64_t> sizes) const;
  /// Computes lane `lane` from now on.
  void setLane(int64_t lane) { currentLane = lane; }
  /// The lane being computed.
  int64_t laneNumber() const { return currentLane; }

  /// The value at `index` of `tensor` (a value of the kernel function).
  FailureOr<Value> element(Value tensor, ArrayRef<AffineExpr> index);
  /// Every lane's value at `index` of `tensor`, lane 0 current afterwards.
  FailureOr<SmallVector<Value>> lanes(Value tensor, ArrayRef<AffineExpr> index);
  /// Stores `lanes` (one value per lane) at `index` (of lane-dependent
  /// expressions) of the kernel buffer `buffer`, as one vector store where
  /// the layout allows.
  LogicalResult storeLanes(Value buffer, ArrayRef<AffineExpr> index,
                           ArrayRef<Value> lanes);
  /// The index value of `expr` for the current lane.
  Value materialize(AffineExpr expr);
  /// Index of `expr` for the current lane with lane-independent parts
  /// simplified: what memoization and comparisons key on.
  AffineExpr atLane(AffineExpr expr) const;

  /// Reductions are computed by `provider`; unset, each element folds its
  /// reduced dims in a loop.
  void setReductionProvider(ReductionProvider provider) {
    reductions = std::move(provider);
  }
  /// The body of `generic` at `iteration`: its inputs' elements there,
  /// `accumulator` for its output argument (null where unused), its
  /// linalg.index ops the iteration's indices; returns the yielded value.
  FailureOr<Value> applyBody(linalg::GenericOp generic,
                             ArrayRef<AffineExpr> iteration, Value accumulator);
  /// The gpu.func value of a kernel function scalar or buffer.
  Value kernelValue(Value value) const { return kernelValues.lookupOrNull(value); }

  /// Kernel buffers (gpu.func values) read or written with vectors: the
  /// schedule checks their alignment at run time.
  ArrayRef<Value> vectorBuffers() const { return vectorized.getArrayRef(); }

private:
  FailureOr<Value> compute(Operation *producer, OpResult result,
                           ArrayRef<AffineExpr> index);
  FailureOr<Value> load(Value buffer, ArrayRef<AffineExpr> index);
  FailureOr<Value> parallelElement(linalg::GenericOp generic,
                                   ArrayRef<AffineExpr> index);
  FailureOr<Value> foldReduction(linalg::GenericOp generic,
                                 ArrayRef<AffineExpr> index);
  FailureOr<Value> insertedElement(Operation *insert,
                                   ArrayRef<AffineExpr> index);
  /// The lane-0 index of a vector access of `buffer` at `index`, when the
  /// lanes are consecutive elements of its last dim, aligned to the width.
  std::optional<SmallVector<AffineExpr>>
  vectorBase(MemRefType type, ArrayRef<AffineExpr> index) const;
  bool visible(Value value) const;
  AffineMap key(ArrayRef<AffineExpr> index) const;

  OpBuilder &build;
  Location loc;
  const IRMapping &kernelValues;
  int64_t width;
  int64_t currentLane = 0;
  SmallVector<Value> coordinates;
  ReductionProvider reductions;
  DenseMap<std::pair<Value, AffineMap>, Value> elements;
  DenseMap<std::pair<Value, AffineMap>, Value> vectors;
  llvm::SetVector<Value> vectorized;
};

} // namespace mlir::fuser::gpu_schedule

#endif // FUSER_LIB_CONVERSION_LINALGTOGPU_ELEMENTEMITTER_H
