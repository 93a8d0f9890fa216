//===- InitAllPasses.cpp --------------------------------------------------===//

#include "fuser/InitAllPasses.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"
#include "fuser/Pipelines/Pipelines.h"

#include "mlir/Transforms/Passes.h"

void fuser::registerFuserPasses() {
  // A pass pipeline may be registered once per process, and embedders (the
  // plugin, the C API, Python) may each ask.
  static bool registered = [] {
    mlir::fuser::registerFuserTransformsPasses();
    mlir::fuser::registerFuserConversionPasses();
    mlir::hostir::registerHostIRTransformsPasses();
    fuser::registerFuserPipelines();
    return true;
  }();
  (void)registered;
}

void fuser::registerAllPasses() {
  mlir::registerTransformsPasses();
  registerFuserPasses();
}
