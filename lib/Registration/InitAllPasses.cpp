//===- InitAllPasses.cpp --------------------------------------------------===//

#include "fuser/InitAllPasses.h"

#include "mlir/Transforms/Passes.h"

void fuser::registerAllPasses() { mlir::registerTransformsPasses(); }
