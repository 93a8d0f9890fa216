//===- Passes.h - fuser dialect passes --------------------------*- C++ -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H

#include "fuser/PassOptions/PassOptions.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fuser {

#define GEN_PASS_DECL
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_H
