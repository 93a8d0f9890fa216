//===- Compile.cpp - programs to shared libraries from C ------------------===//

#include "fuser-c/Compile.h"

#include "fuser/Compile/Compile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

FuserCompileOptions fuserCompileOptionsGetDefault(void) {
  MlirStringRef empty = mlirStringRefCreate(nullptr, 0);
  return {FuserCompileTargetCPU, empty, empty, empty, empty, empty};
}

/// The keyword `text` into `option` (left unset when `text` is empty);
/// false, with a diagnostic at `module`, for an unknown keyword.
template <typename Enum>
static bool readChoice(mlir::ModuleOp module, llvm::StringRef name,
                       MlirStringRef text, std::optional<Enum> &option,
                       std::optional<Enum> (*symbolize)(llvm::StringRef)) {
  llvm::StringRef keyword = unwrap(text);
  if (keyword.empty())
    return true;
  option = symbolize(keyword);
  if (!option)
    module.emitError() << "unknown " << name << " '" << keyword << "'";
  return option.has_value();
}

MlirLogicalResult fuserCompileToLibrary(MlirModule module,
                                        const FuserCompileOptions *options,
                                        MlirStringRef libraryPath) {
  fuser::CompileOptions compile;
  compile.target = options->target == FuserCompileTargetCUDA
                       ? mlir::fuser::HostTarget::CUDA
                       : mlir::fuser::HostTarget::CPU;
  if (!readChoice(unwrap(module), "backend", options->backend, compile.backend,
                  mlir::hostir::symbolizeBackend) ||
      !readChoice(unwrap(module), "pipelining", options->pipelining,
                  compile.pipelining, mlir::fuser::symbolizePipeliningPolicy))
    return mlirLogicalResultFailure();
  if (options->chip.length)
    compile.chip = unwrap(options->chip).str();
  compile.ptxOutput = unwrap(options->ptxOutput).str();
  compile.runtimeDir = unwrap(options->runtimeDir).str();
  return wrap(
      fuser::compileToLibrary(unwrap(module), compile, unwrap(libraryPath)));
}
