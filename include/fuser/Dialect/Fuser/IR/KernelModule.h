//===- KernelModule.h - the module holding a program's kernels -*- C++ -*-===//
//
// Segmentation outlines kernels into one module nested in the program's,
// `@kernels`; host lowering adds kernels to it and code generation finds it
// there.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_IR_KERNELMODULE_H
#define FUSER_DIALECT_FUSER_IR_KERNELMODULE_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fuser {

/// The kernel module of `program`, or null when it has none.
ModuleOp lookupKernelModule(ModuleOp program);
/// The kernel module of `program`, created (empty, at its end) if missing.
ModuleOp getOrCreateKernelModule(ModuleOp program);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_KERNELMODULE_H
