//===- Compile.cpp - programs to shared libraries from C ------------------===//

#include "fuser-c/Compile.h"

#include "fuser/Compile/Compile.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"

FuserCompileOptions fuserCompileOptionsGetDefault(void) {
  FuserCompileOptions options{};
  options.target = FuserCompileTargetCPU;
  options.cacheAllocations = true;
  return options;
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

static std::vector<std::string> readList(const MlirStringRef *names,
                                         intptr_t count) {
  std::vector<std::string> list;
  for (intptr_t index = 0; index < count; ++index)
    list.push_back(unwrap(names[index]).str());
  return list;
}

MlirLogicalResult fuserCompileToLibrary(MlirModule module,
                                        const FuserCompileOptions *options,
                                        MlirStringRef libraryPath) {
  fuser::CompileOptions compile;
  compile.target = options->target == FuserCompileTargetCUDA
                       ? mlir::fuser::HostTarget::CUDA
                       : mlir::fuser::HostTarget::CPU;
  mlir::ModuleOp op = unwrap(module);
  std::optional<mlir::fuser::ReshardPlacement> placement;
  std::optional<mlir::fuser::SavedValues> saved;
  if (!readChoice(op, "backend", options->backend, compile.backend,
                  mlir::hostir::symbolizeBackend) ||
      !readChoice(op, "pipelining", options->pipelining, compile.pipelining,
                  mlir::fuser::symbolizePipeliningPolicy) ||
      !readChoice(op, "reshard placement", options->reshardPlacement,
                  placement, mlir::fuser::symbolizeReshardPlacement) ||
      !readChoice(op, "vjp save", options->vjpSave, saved,
                  mlir::fuser::symbolizeSavedValues))
    return mlirLogicalResultFailure();
  if (options->streams < 0 || options->ranksPerNode < 0) {
    op.emitError() << "streams and ranks per node are not negative";
    return mlirLogicalResultFailure();
  }
  compile.reshardPlacement = placement.value_or(compile.reshardPlacement);
  compile.vjpSave = saved.value_or(compile.vjpSave);
  compile.pipeliningCalibration = unwrap(options->pipeliningCalibration).str();
  compile.ranksPerNode = options->ranksPerNode;
  compile.streams = options->streams;
  compile.cacheAllocations = options->cacheAllocations;
  compile.programs = readList(options->programs, options->numPrograms);
  compile.reportCommunication = unwrap(options->reportCommunication).str();
  compile.vjpFunctions =
      readList(options->vjpFunctions, options->numVjpFunctions);
  compile.vjp = options->vjp || !compile.vjpFunctions.empty();
  if (options->chip.length)
    compile.chip = unwrap(options->chip).str();
  if (options->ptxFeatures.length)
    compile.ptxFeatures = unwrap(options->ptxFeatures).str();
  compile.cudaPath = unwrap(options->cudaPath).str();
  compile.ptxOutput = unwrap(options->ptxOutput).str();
  compile.runtimeDir = unwrap(options->runtimeDir).str();
  return wrap(
      fuser::compileToLibrary(unwrap(module), compile, unwrap(libraryPath)));
}
