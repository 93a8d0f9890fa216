//===- Compile.cpp - programs to shared libraries from C ------------------===//

#include "fuser-c/Compile.h"

#include "fuser/Compile/Compile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

FuserCompileOptions fuserCompileOptionsGetDefault(void) {
  MlirStringRef empty = mlirStringRefCreate(nullptr, 0);
  return {FuserCompileTargetCPU, empty, empty, empty, empty, empty};
}

MlirLogicalResult fuserCompileToLibrary(MlirModule module,
                                        const FuserCompileOptions *options,
                                        MlirStringRef libraryPath) {
  fuser::CompileOptions compile;
  compile.target = options->target == FuserCompileTargetCUDA
                       ? mlir::fuser::HostTarget::CUDA
                       : mlir::fuser::HostTarget::CPU;
  compile.backend = unwrap(options->backend).str();
  compile.pipelining = unwrap(options->pipelining).str();
  if (options->chip.length)
    compile.chip = unwrap(options->chip).str();
  compile.ptxOutput = unwrap(options->ptxOutput).str();
  compile.runtimeDir = unwrap(options->runtimeDir).str();
  return wrap(
      fuser::compileToLibrary(unwrap(module), compile, unwrap(libraryPath)));
}
