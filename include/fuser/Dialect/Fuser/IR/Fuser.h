//===- Fuser.h - fuser dialect, attributes and ops --------------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSER_H
#define FUSER_DIALECT_FUSER_IR_FUSER_H

#include "fuser/Support/MeshMath.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

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
} // namespace mlir::fuser

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSER_H
