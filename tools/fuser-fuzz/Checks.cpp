//===- Checks.cpp - what each input is put through ------------------------===//

#include "Checks.h"

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
LogicalResult compile(ModuleOp module, const ::fuser::CompileOptions &options) {
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
  case Check::Kind::Compile:
    return compile(module, check.options);
  }
  llvm_unreachable("unknown check");
}

/// fuser-compile's flags for `options`, those left at their defaults
/// left out.
std::string compileFlags(const ::fuser::CompileOptions &options) {
  ::fuser::CompileOptions defaults;
  std::string flags = "--target=" + stringifyEnum(options.target).str();
  if (options.backend)
    flags += " --backend=" + stringifyEnum(*options.backend).str();
  if (options.pipelining)
    flags += " --pipelining=" + stringifyEnum(*options.pipelining).str();
  if (options.reshardPlacement != defaults.reshardPlacement)
    flags +=
        " --reshard-placement=" + stringifyEnum(options.reshardPlacement).str();
  if (options.streams != defaults.streams)
    flags += " --streams=" + std::to_string(options.streams);
  if (options.cacheAllocations != defaults.cacheAllocations)
    flags += options.cacheAllocations ? " --cache-allocations=true"
                                      : " --cache-allocations=false";
  return flags;
}

Check compileCheck(mlir::fuser::HostTarget target) {
  Check check{Check::Kind::Compile, "", {}};
  check.options.target = target;
  return check;
}
} // namespace

std::string Check::describe() const {
  switch (kind) {
  case Kind::Passes:
    return "fuser-opt -pass-pipeline='builtin.module(" + pipeline + ")'";
  case Kind::Compile:
    return "fuser-compile " + compileFlags(options);
  }
  llvm_unreachable("unknown check");
}

std::string Check::runLine() const {
  switch (kind) {
  case Kind::Passes:
    return "// RUN: fuser-opt %s -pass-pipeline='builtin.module(" + pipeline +
           ")'";
  case Kind::Compile:
    return "// RUN: fuser-compile %s -o %t.so " + compileFlags(options);
  }
  llvm_unreachable("unknown check");
}

Check randomCompileCheck(Random &random) {
  bool cuda = random.chance(50);
  Check check = compileCheck(cuda ? mlir::fuser::HostTarget::CUDA
                                  : mlir::fuser::HostTarget::CPU);
  ::fuser::CompileOptions &options = check.options;
  using mlir::fuser::PipeliningPolicy;
  using mlir::fuser::ReshardPlacement;
  using mlir::hostir::Backend;
  options.backend = random.pick<std::optional<Backend>>(
      cuda ? ArrayRef<std::optional<Backend>>{std::nullopt, Backend::NCCL,
                                              Backend::CudaIpc}
           : ArrayRef<std::optional<Backend>>{std::nullopt, Backend::MPI,
                                              Backend::NCCL});
  options.pipelining = random.pick<std::optional<PipeliningPolicy>>(
      {std::nullopt, PipeliningPolicy::Collective, PipeliningPolicy::Ring,
       PipeliningPolicy::None, PipeliningPolicy::Auto});
  options.reshardPlacement = random.pick<ReshardPlacement>(
      {ReshardPlacement::Auto, ReshardPlacement::Before,
       ReshardPlacement::After});
  options.streams = random.pick<int64_t>({0, 0, 1, 2, 3});
  options.cacheAllocations = random.chance(50);
  return check;
}

std::vector<Check> checksFor(llvm::ArrayRef<std::string> pipelines) {
  std::vector<Check> checks;
  for (const std::string &pipeline : pipelines)
    checks.push_back({Check::Kind::Passes, pipeline, {}});
  checks.push_back(compileCheck(mlir::fuser::HostTarget::CPU));
  checks.push_back(compileCheck(mlir::fuser::HostTarget::CUDA));
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
