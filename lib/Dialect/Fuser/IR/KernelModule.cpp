//===- KernelModule.cpp - the module holding a program's kernels ----------===//

#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

static constexpr StringLiteral kKernelModuleName = "kernels";

ModuleOp mlir::fuser::lookupKernelModule(ModuleOp program) {
  return dyn_cast_or_null<ModuleOp>(
      SymbolTable::lookupSymbolIn(program, kKernelModuleName));
}

ModuleOp mlir::fuser::getOrCreateKernelModule(ModuleOp program) {
  if (ModuleOp kernels = lookupKernelModule(program))
    return kernels;
  OpBuilder builder(program.getBodyRegion());
  builder.setInsertionPointToEnd(program.getBody());
  return ModuleOp::create(builder, program.getLoc(),
                          StringRef(kKernelModuleName));
}
