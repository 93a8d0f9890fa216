//===- Checks.h - what each input is put through ----------------*- C++ -*-===//
//
// An input is parsed and verified, then each check runs on its own copy of
// the module: the pass pipelines of its file's RUN lines and fuser-compile's
// whole compilation up to LLVM IR (for CPU ranks and for GPUs with the
// defaults, and with options drawn at random), with the pass manager's
// verifier on. Diagnostics are counted, never printed.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_CHECKS_H
#define FUSER_TOOLS_FUZZ_CHECKS_H

#include "Random.h"

#include "fuser/Compile/Compile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace fuzz {

/// One way of compiling an input.
struct Check {
  enum class Kind { Passes, Compile };
  Kind kind;
  /// For Passes: the elements of `builtin.module(...)`.
  std::string pipeline;
  /// For Compile: fuser-compile's options.
  ::fuser::CompileOptions options;

  /// How it is written in reports: the fuser-opt or fuser-compile
  /// command that runs it.
  std::string describe() const;
  /// A lit RUN line that runs it on the test file.
  std::string runLine() const;
};

/// The checks of an input whose file's RUN lines run `pipelines`: those
/// pipelines, and fuser-compile with its defaults for each target.
std::vector<Check> checksFor(llvm::ArrayRef<std::string> pipelines);

/// fuser-compile with options drawn from `random`: a target, backend,
/// pipelining mode, resharding placement, stream count and allocation
/// caching.
Check randomCompileCheck(Random &random);

/// The name of the phase that parses and verifies an input.
constexpr llvm::StringLiteral parsePhase = "parse and verify";

/// How an input fared when nothing crashed.
enum class Verdict {
  /// Every check compiled it.
  Compiled = 0,
  /// The parser or the verifier rejected it.
  Rejected = 2,
  /// Parsed, but a check reported a diagnostic.
  Diagnosed = 3,
};

/// How a verdict is written in reports.
llvm::StringRef describe(Verdict verdict);

/// Puts `text` through parsing and `checks` in `context`, announcing each
/// phase (parsePhase, then each check's description) to `enterPhase`
/// before it starts.
Verdict runChecks(mlir::MLIRContext &context, llvm::StringRef text,
                  llvm::ArrayRef<Check> checks,
                  llvm::function_ref<void(llvm::StringRef)> enterPhase);

/// Whether `pipeline` parses as pass pipeline elements; the parser's
/// message goes to `error` when not.
bool isValidPipeline(mlir::MLIRContext &context, llvm::StringRef pipeline,
                     std::string &error);

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_CHECKS_H
