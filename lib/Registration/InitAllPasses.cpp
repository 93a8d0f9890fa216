//===- InitAllPasses.cpp --------------------------------------------------===//

#include "fuser/InitAllPasses.h"

#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Transforms/Passes.h"

void fuser::registerAllPasses() {
  mlir::registerTransformsPasses();
  mlir::fuser::registerFuserTransformsPasses();
}
