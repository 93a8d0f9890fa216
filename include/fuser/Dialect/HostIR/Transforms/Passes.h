//===- Passes.h - hostir dialect passes -------------------------*- C++ -*-===//

#ifndef FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_H
#define FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_H

#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir::hostir {

#define GEN_PASS_DECL
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"

} // namespace mlir::hostir

#endif // FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_H
