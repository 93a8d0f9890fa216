//===- BufferLifetimes.h - aliases and owners of buffers --------*- C++ -*-===//
//
// The lifetimes of a host program's buffers, shared by deallocation
// placement, the allocation cache and the program checks.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_HOSTIR_TRANSFORMS_BUFFERLIFETIMES_H
#define FUSER_DIALECT_HOSTIR_TRANSFORMS_BUFFERLIFETIMES_H

#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"

namespace mlir::hostir {

/// Which values refer to a buffer's memory, from upstream's
/// BufferViewFlowAnalysis (views, and the values control flow passes it
/// on as) and the IPC handles peers reach it through; and which value a
/// deallocation frees it through.
class BufferLifetimes {
public:
  explicit BufferLifetimes(Operation *program);

  /// `buffer` and every value that may refer to its memory afterwards, in
  /// program order.
  SmallVector<Value> getAliases(Value buffer) const;

  /// Where `op` comes in a walk of the program, outer ops before the ops
  /// nested in them: program order within a block, and a fixed order
  /// across blocks.
  unsigned getProgramOrder(Operation *op) const { return order.lookup(op); }

  /// The value whose deallocation frees `allocation`'s buffer: the buffer
  /// itself, or the result of a branch (scf.if, scf.index_switch) that
  /// yields it where every branch yields a buffer of its own (and so on
  /// for the results that result is yielded as). A null value when the
  /// buffer flows anywhere else (a loop, a branch that may yield another
  /// buffer, a block argument); `through` is then the op it flows through.
  Value getOwner(AllocateOp allocation, Operation *&through) const;

  /// Whether the caller receives one of `aliases` (getAliases of a buffer).
  static bool isReturned(ArrayRef<Value> aliases);
  /// The deallocations of any of `aliases`, in no particular order.
  static SmallVector<DeallocateOp> getDeallocations(ArrayRef<Value> aliases);

private:
  /// The result of the branch op that yields `owner` where every branch
  /// yields its own buffer there; null otherwise.
  Value getYieldedAs(Value owner) const;
  /// `values` in program order (a block argument where its block starts).
  SmallVector<Value>
  inProgramOrder(const BufferViewFlowAnalysis::ValueSetT &values) const;

  BufferViewFlowAnalysis flow;
  DenseMap<Operation *, unsigned> order;
};

} // namespace mlir::hostir

#endif // FUSER_DIALECT_HOSTIR_TRANSFORMS_BUFFERLIFETIMES_H
