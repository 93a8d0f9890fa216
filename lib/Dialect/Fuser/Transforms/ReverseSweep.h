//===- ReverseSweep.h - cotangents of a block's values ----------*- C++ -*-===//
//
// The reverse-mode sweep of fuser-generate-vjp: given the cotangents of some
// values of a block (the outputs), builds the cotangents of the values they
// depend on, op by op in reverse from each op's derivative rule.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_REVERSESWEEP_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_REVERSESWEEP_H

#include "mlir/IR/Builders.h"

namespace mlir::fuser {

/// Whether `type` is a tensor of floating-point elements: the values that
/// carry gradients.
bool isFloatTensor(Type type);

/// Builds, at `builder`'s insertion point, the cotangent of each of
/// `wanted` with respect to the `seeds` (pairs of a value of `forward` and
/// its cotangent): the derivative rules of the ops of `forward` (in program
/// order) that lie between `inputs` and the seeded values, taken in reverse.
/// A value used several times receives the sum of its cotangents. Returns
/// one cotangent per wanted value, null where it is zero; fails with a
/// diagnostic where an op on the way has no derivative.
FailureOr<SmallVector<Value>>
buildCotangents(OpBuilder &builder, ArrayRef<Operation *> forward,
                ArrayRef<Value> inputs,
                ArrayRef<std::pair<Value, Value>> seeds,
                ArrayRef<Value> wanted);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_REVERSESWEEP_H
