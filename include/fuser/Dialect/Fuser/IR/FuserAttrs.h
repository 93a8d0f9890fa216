//===- FuserAttrs.h - fuser dialect, enums and attributes -------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERATTRS_H
#define FUSER_DIALECT_FUSER_IR_FUSERATTRS_H

#include "fuser/Support/MeshMath.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TensorEncoding.h"

#include "fuser/Dialect/Fuser/IR/FuserDialect.h.inc"
#include "fuser/Dialect/Fuser/IR/FuserEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserAttrs.h.inc"

namespace mlir::fuser {
/// True when the two ranges hold tensors of equal shapes and element types,
/// whatever their shardings.
bool haveSameGlobalTypes(TypeRange lhs, TypeRange rhs);
/// The sharding encoding of a tensor value or type, or null.
ShardingAttr getSharding(Type type);
inline ShardingAttr getSharding(Value value) {
  return getSharding(value.getType());
}
/// The ranks a program needs: one more than the highest device id of the
/// meshes `root`'s values (its regions' arguments too) are sharded over; 1
/// without shardings.
int64_t getRequiredWorldSize(Operation *root);
/// The bytes one element of `elementType` takes in the runtime's buffers:
/// sub-byte types (i1) a byte, index elements 8.
int64_t getElementBytes(Type elementType);
/// Sets the function's type to its entry block's argument types and the
/// types its returns return, after a pass changed the encodings of either.
void updateFunctionType(Operation *function);
} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_FUSERATTRS_H
