//===- fuser-opt.cpp - pass runner for the fuser and hostir dialects ------===//
//
// mlir-opt conventions: reads MLIR, runs the passes and pipelines given on
// the command line, prints the result (--verify-diagnostics, --split-input-file
// and the rest behave as in mlir-opt).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"
#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fuser::registerAllDialects(registry);
  fuser::registerAllPasses();
  fuser::test::registerTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Fuser-MLIR optimizer driver\n", registry));
}
