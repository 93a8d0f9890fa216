//===- FuserPlugin.cpp - the dialects and passes in upstream tools --------===//
//
// A plugin for mlir-opt and other tools built on libMLIR.so:
//
//   mlir-opt --load-dialect-plugin=libFuserMLIRPlugin.so \
//     --pass-pipeline='builtin.module(func.func(fuser-propagate-shardings))'
//
// Loaded as a dialect plugin it registers the fuser and hostir dialects
// (with the upstream dialects and interfaces our pipelines use) and our
// passes and pipelines; loaded as a pass plugin, only the passes. Plugins
// load after the command line is parsed, so their passes are named in
// --pass-pipeline, not as flags.
//
//===----------------------------------------------------------------------===//

#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FuserMLIR", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            fuser::registerAllDialects(*registry);
            fuser::registerFuserPasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FuserMLIR", LLVM_VERSION_STRING,
          fuser::registerFuserPasses};
}
