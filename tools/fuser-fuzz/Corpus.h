//===- Corpus.h - lit inputs as seeds of mutation ---------------*- C++ -*-===//
//
// The seeds are the project's own lit inputs, split at `// -----` as
// fuser-opt -split-input-file splits them, each with the pass pipelines the
// fuser-opt commands of its file's RUN lines run.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_CORPUS_H
#define FUSER_TOOLS_FUZZ_CORPUS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fuzz {

/// One input of a lit file, as -split-input-file cuts it.
struct Case {
  /// The file's path as found under the input directories, and which of
  /// its split inputs this is (0 for the first).
  std::string file;
  unsigned index = 0;
  std::string text;
  /// The pass pipelines the file's RUN lines give fuser-opt, as the
  /// element lists of `builtin.module(...)`.
  std::shared_ptr<const std::vector<std::string>> pipelines;
};

/// The split inputs of every `.mlir` file under `paths` (files or
/// directories, searched recursively), in a fixed order.
llvm::Expected<std::vector<Case>> loadCorpus(llvm::ArrayRef<std::string> paths);

/// The split inputs of one file, with its pipelines.
llvm::Expected<std::vector<Case>> loadFile(llvm::StringRef path);

/// The pass pipeline one fuser-opt command line runs (its arguments after
/// the program name), as pipeline elements; none when it runs no pass.
/// Passes and pipelines are recognized by their registered names.
std::optional<std::string>
pipelineOfCommand(llvm::ArrayRef<llvm::StringRef> arguments);

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_CORPUS_H
