//===- InitAllPasses.cpp --------------------------------------------------===//

#include "fuser/InitAllPasses.h"

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/Transforms/Passes.h"
#include "fuser/Pipelines/Pipelines.h"

#include "mlir/Transforms/Passes.h"

void fuser::registerFuserPasses() {
  mlir::fuser::registerFuserTransformsPasses();
  mlir::fuser::registerFuserConversionPasses();
  mlir::hostir::registerHostIRTransformsPasses();
  fuser::registerFuserPipelines();
}

void fuser::registerAllPasses() {
  mlir::registerTransformsPasses();
  registerFuserPasses();
}
