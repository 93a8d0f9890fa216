//===- Corpus.cpp - lit inputs as seeds of mutation -----------------------===//

#include "Corpus.h"

#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace fuzz {
namespace {
/// The marker between the inputs of a -split-input-file file.
constexpr StringLiteral splitMarker = "// -----";

/// The text of `file` cut at its split markers, as fuser-opt cuts it.
std::vector<std::string> splitInputs(StringRef file) {
  std::vector<std::string> inputs(1);
  SmallVector<StringRef> lines;
  file.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.trim().starts_with(splitMarker)) {
      inputs.emplace_back();
      continue;
    }
    inputs.back().append(line.begin(), line.end());
    inputs.back().push_back('\n');
  }
  return inputs;
}

/// The commands of the RUN lines of `file`, continuation lines joined.
std::vector<std::string> runCommands(StringRef file) {
  std::vector<std::string> commands;
  std::string pending;
  SmallVector<StringRef> lines;
  file.split(lines, '\n');
  for (StringRef line : lines) {
    size_t run = line.find("RUN:");
    if (run == StringRef::npos || !line.ltrim().starts_with("//"))
      continue;
    StringRef command = line.drop_front(run + 4).trim();
    bool continues = command.consume_back("\\");
    pending += command.str() + " ";
    if (continues)
      continue;
    commands.push_back(std::move(pending));
    pending.clear();
  }
  return commands;
}

/// The pipelines the fuser-opt commands of `file`'s RUN lines run, each
/// once.
std::vector<std::string> runPipelines(StringRef file) {
  std::vector<std::string> pipelines;
  for (const std::string &command : runCommands(file)) {
    SmallVector<StringRef> stages;
    StringRef(command).split(stages, '|');
    for (StringRef stage : stages) {
      BumpPtrAllocator allocator;
      StringSaver saver(allocator);
      SmallVector<const char *> tokens;
      cl::TokenizeGNUCommandLine(stage, saver, tokens);
      ArrayRef<const char *> words(tokens);
      // `not` and `not --crash` run what follows.
      if (!words.empty() && StringRef(words.front()) == "not")
        words = words.drop_front();
      if (!words.empty() && StringRef(words.front()) == "--crash")
        words = words.drop_front();
      if (words.empty() || StringRef(words.front()) != "fuser-opt")
        continue;
      SmallVector<StringRef> arguments(words.drop_front().begin(),
                                       words.drop_front().end());
      std::optional<std::string> pipeline = pipelineOfCommand(arguments);
      if (pipeline && !is_contained(pipelines, *pipeline))
        pipelines.push_back(std::move(*pipeline));
    }
  }
  return pipelines;
}
} // namespace

std::optional<std::string> pipelineOfCommand(ArrayRef<StringRef> arguments) {
  std::vector<std::string> elements;
  for (StringRef argument : arguments) {
    if (!argument.consume_front("-"))
      continue;
    argument.consume_front("-");
    auto [name, options] = argument.split('=');
    if (name == "pass-pipeline") {
      // Only module pipelines: fuser-opt's inputs are modules.
      if (options.consume_front("builtin.module(") && options.consume_back(")"))
        elements.push_back(options.str());
      continue;
    }
    if (!mlir::PassInfo::lookup(name) && !mlir::PassPipelineInfo::lookup(name))
      continue;
    elements.push_back(options.empty() ? name.str()
                                       : (name + "{" + options + "}").str());
  }
  if (elements.empty())
    return std::nullopt;
  return join(elements, ",");
}

Expected<std::vector<Case>> loadFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return createStringError(buffer.getError(), "cannot read " + path);
  StringRef contents = (*buffer)->getBuffer();
  auto pipelines =
      std::make_shared<const std::vector<std::string>>(runPipelines(contents));
  std::vector<Case> cases;
  for (auto [index, text] : enumerate(splitInputs(contents)))
    cases.push_back(
        {path.str(), static_cast<unsigned>(index), std::move(text), pipelines});
  return cases;
}

Expected<std::vector<Case>> loadCorpus(ArrayRef<std::string> paths) {
  std::set<std::string> files;
  for (const std::string &path : paths) {
    if (!sys::fs::is_directory(path)) {
      files.insert(path);
      continue;
    }
    std::error_code code;
    for (sys::fs::recursive_directory_iterator entry(path, code), end;
         entry != end && !code; entry.increment(code))
      if (sys::path::extension(entry->path()) == ".mlir" &&
          !sys::fs::is_directory(entry->path()))
        files.insert(entry->path());
    if (code)
      return createStringError(code, "cannot list " + path);
  }
  std::vector<Case> corpus;
  for (const std::string &file : files) {
    Expected<std::vector<Case>> cases = loadFile(file);
    if (!cases)
      return cases.takeError();
    std::move(cases->begin(), cases->end(), std::back_inserter(corpus));
  }
  if (corpus.empty())
    return createStringError(inconvertibleErrorCode(),
                             "no .mlir inputs under the given paths");
  return corpus;
}

} // namespace fuzz
