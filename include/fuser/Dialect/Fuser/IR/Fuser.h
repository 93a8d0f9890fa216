//===- Fuser.h - fuser dialect, attributes and ops --------------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSER_H
#define FUSER_DIALECT_FUSER_IR_FUSER_H

#include "fuser/Dialect/Fuser/IR/FuserAttrs.h"
#include "fuser/Dialect/Fuser/IR/ShardingRule.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_FUSER_H
