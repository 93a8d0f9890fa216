//===- Crash.h - telling crashes from diagnostics, and apart ----*- C++ -*-===//
//
// A child crashed when a signal ended it, when it printed `LLVM ERROR`, an
// assertion failure or an unreachable point, when it exited with a status
// the checks never return, or when it ran past the time limit. Crashes are
// told apart by a signature: the assertion or error text, else the signal
// and the functions on top of the stack. A crash while parsing is upstream
// MLIR's, and reported on its own, when the input names neither of our
// dialects (so none of our code ran) or when its stack shows the parser
// with no function of ours (the fuser and hostir dialects, our passes).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_CRASH_H
#define FUSER_TOOLS_FUZZ_CRASH_H

#include "Sandbox.h"

#include "llvm/DebugInfo/Symbolize/Symbolize.h"

#include <map>
#include <optional>
#include <string>

namespace fuzz {

struct Crash {
  std::string signature;
  /// Upstream MLIR's crash rather than ours.
  bool upstream = false;
  /// The phase the child was in.
  std::string phase;
};

class CrashClassifier {
public:
  CrashClassifier();
  /// The crash `outcome` of compiling `input` shows, or none when the
  /// child ended normally.
  std::optional<Crash> classify(const Outcome &outcome, llvm::StringRef input);

private:
  /// The function `address` returns into (namespaces and name, no
  /// parameters), and the file of its module.
  struct Frame {
    std::string function;
    std::string module;
  };
  const Frame &frameAt(uintptr_t address);
  /// `error` and the functions on top of the recorded stack.
  std::string stackSignature(llvm::StringRef error, const Outcome &outcome);
  bool isUpstream(const Outcome &outcome, llvm::StringRef input);

  llvm::symbolize::LLVMSymbolizer symbolizer;
  std::map<uintptr_t, Frame> frames;
};

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_CRASH_H
