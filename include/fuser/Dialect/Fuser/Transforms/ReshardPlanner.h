//===- ReshardPlanner.h - placement changes as communications ---*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_RESHARDPLANNER_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_RESHARDPLANNER_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/Builders.h"

namespace mlir::fuser {

/// Emits, at the builder's insertion point, the communications that turn
/// `value` into a value placed as `target`, each changing exactly one mesh
/// axis; returns the final value (`value` itself when the placement already
/// matches). Reports at `loc` and fails when no sequence exists (a partial
/// value created from a complete one, meshes no communication connects).
FailureOr<Value> emitReshard(OpBuilder &builder, Location loc, Value value,
                             ShardingAttr target);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_RESHARDPLANNER_H
