//===- Checks.cpp - what each input is put through ------------------------===//

#include "Checks.h"

#include "fuser/Compile/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fuzz {
namespace {
/// A pass manager on modules that nests the passes of other ops where they
/// run, as fuser-opt's command line does.
PassManager modulePassManager(MLIRContext &context) {
  return PassManager(&context, ModuleOp::getOperationName(),
                     OpPassManager::Nesting::Implicit);
}

/// fuser-compile's compilation of `module` up to LLVM IR, objects and
/// linking aside (upstream's code generation, and slow).
LogicalResult compile(ModuleOp module, mlir::fuser::HostTarget target) {
  ::fuser::CompileOptions options;
  options.target = target;
  FailureOr<::fuser::LLVMDialectPrograms> lowered =
      ::fuser::compileToLLVMDialect(module, options);
  if (failed(lowered))
    return failure();
  llvm::LLVMContext llvmContext;
  for (ModuleOp compiled : {module, lowered->references.get()})
    if (!translateModuleToLLVMIR(compiled, llvmContext))
      return failure();
  return success();
}

LogicalResult runCheck(const Check &check, ModuleOp module) {
  switch (check.kind) {
  case Check::Kind::Passes: {
    PassManager pm = modulePassManager(*module.getContext());
    std::string error;
    llvm::raw_string_ostream errorStream(error);
    if (failed(parsePassPipeline(check.pipeline, pm, errorStream)))
      return failure();
    return pm.run(module);
  }
  case Check::Kind::CompileForCPU:
    return compile(module, mlir::fuser::HostTarget::CPU);
  case Check::Kind::CompileForCUDA:
    return compile(module, mlir::fuser::HostTarget::CUDA);
  }
  llvm_unreachable("unknown check");
}
} // namespace

std::string Check::describe() const {
  switch (kind) {
  case Kind::Passes:
    return "fuser-opt -pass-pipeline='builtin.module(" + pipeline + ")'";
  case Kind::CompileForCPU:
    return "fuser-compile --target=cpu";
  case Kind::CompileForCUDA:
    return "fuser-compile --target=cuda";
  }
  llvm_unreachable("unknown check");
}

std::vector<Check> checksFor(llvm::ArrayRef<std::string> pipelines) {
  std::vector<Check> checks;
  for (const std::string &pipeline : pipelines)
    checks.push_back({Check::Kind::Passes, pipeline});
  checks.push_back({Check::Kind::CompileForCPU, ""});
  checks.push_back({Check::Kind::CompileForCUDA, ""});
  return checks;
}

StringRef describe(Verdict verdict) {
  switch (verdict) {
  case Verdict::Compiled:
    return "compiled by every check";
  case Verdict::Rejected:
    return "rejected by the parser or verifier";
  case Verdict::Diagnosed:
    return "diagnosed by a check";
  }
  llvm_unreachable("unknown verdict");
}

bool isValidPipeline(MLIRContext &context, StringRef pipeline,
                     std::string &error) {
  PassManager pm = modulePassManager(context);
  llvm::raw_string_ostream errorStream(error);
  return succeeded(parsePassPipeline(pipeline, pm, errorStream));
}

Verdict runChecks(MLIRContext &context, StringRef text, ArrayRef<Check> checks,
                  llvm::function_ref<void(StringRef)> enterPhase) {
  // Diagnostics are the expected answer to bad input: counted, not shown.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  enterPhase(parsePhase);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context, /*verifyAfterParse=*/true));
  if (!module)
    return Verdict::Rejected;
  Verdict verdict = Verdict::Compiled;
  for (const Check &check : checks) {
    enterPhase(check.describe());
    OwningOpRef<ModuleOp> copy = module->clone();
    if (failed(runCheck(check, *copy)))
      verdict = Verdict::Diagnosed;
  }
  return verdict;
}

} // namespace fuzz
