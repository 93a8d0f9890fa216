//===- compile_program.cpp - the compiler from another C++ project --------===//
//
// compile-program <program.mlir> <library.so>: parses an annotated program
// with the installed dialects and compiles it for CPU ranks.
//
//===----------------------------------------------------------------------===//

#include "fuser/Compile/Compile.h"
#include "fuser/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: compile-program <program.mlir> <library.so>\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  fuser::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sources;
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], sources, &context);
  if (!module)
    return 1;
  fuser::CompileOptions options;
  if (mlir::failed(fuser::compileToLibrary(*module, options, argv[2])))
    return 1;
  llvm::outs() << "compiled " << argv[1] << "\n";
  return 0;
}
