//===- fuser-fuzz.cpp - a mutation fuzzer of the compiler -----------------===//
//
// fuser-fuzz --inputs=test [--seed=S] [--mutants=N] [--time-budget=SECONDS]
//            [--jobs=J] [--output-dir=DIR] [--timeout=SECONDS]
// fuser-fuzz --replay=crash.mlir [--output-dir=DIR]
//
// Mutates the lit inputs (Mutator.h) and puts each mutant through parsing,
// verification and the compiler's pipelines (Checks.h) in a forked child
// (Sandbox.h). Diagnostics are what bad input must get; a crash, an LLVM
// error, a failed assertion or a hang is a bug (Crash.h). Each kind of
// crash is cut down to the lines that still crash (Minimizer.h), written
// to the output directory, and listed; the exit status is 1 when any crash
// of ours was found. Crashes of upstream MLIR's parser are listed apart
// and do not count. docs/fuzzing.md says more.
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "Corpus.h"
#include "Crash.h"
#include "Minimizer.h"
#include "Mutator.h"
#include "Sandbox.h"
#include "TestPasses.h"

#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace llvm;
namespace cl = llvm::cl;

/// The fuzzer's own options: --help lists these, not LLVM's.
static cl::OptionCategory fuzzOptions("fuser-fuzz options");

static cl::list<std::string>
    inputs("inputs",
           cl::desc("lit inputs to mutate: .mlir files, or "
                    "directories searched for them"),
           cl::CommaSeparated, cl::cat(fuzzOptions));
static cl::opt<std::string>
    replay("replay",
           cl::desc("put the inputs of this file through the checks as they "
                    "are, without mutating them, report each, and minimize "
                    "those that crash"),
           cl::value_desc("file.mlir"), cl::cat(fuzzOptions));
static cl::opt<uint64_t> seed("seed", cl::desc("seed of the mutations"),
                              cl::init(1), cl::cat(fuzzOptions));
static cl::opt<uint64_t> mutantCount("mutants",
                                     cl::desc("how many mutants to try"),
                                     cl::init(1000), cl::cat(fuzzOptions));
static cl::opt<unsigned> timeBudget(
    "time-budget",
    cl::desc("stop trying mutants after this many seconds (0: no limit)"),
    cl::init(0), cl::cat(fuzzOptions));
static cl::opt<unsigned> jobs("jobs", cl::desc("children run at once"),
                              cl::init(1), cl::cat(fuzzOptions));
static cl::opt<unsigned>
    timeout("timeout", cl::desc("seconds after which a child counts as hung"),
            cl::init(10), cl::cat(fuzzOptions));
static cl::opt<unsigned>
    memoryLimit("memory-limit",
                cl::desc("address space of each child, in MiB (in an ASan "
                         "build, which needs more, the largest allocation "
                         "is limited to 4096 MiB instead)"),
                cl::init(4096), cl::cat(fuzzOptions));
static cl::opt<std::string> outputDir(
    "output-dir",
    cl::desc("where each kind of crash is written, minimized (default: "
             "printed only)"),
    cl::value_desc("directory"), cl::cat(fuzzOptions));
static cl::opt<unsigned> minimizeTries(
    "minimize-tries",
    cl::desc("candidates tried to minimize each kind of crash (0: keep the "
             "mutant as it is)"),
    cl::init(400), cl::cat(fuzzOptions));

namespace {
/// A kind of crash and its first mutant.
struct CrashKind {
  fuzz::Crash crash;
  unsigned count = 0;
  fuzz::Mutant example;
  uint64_t index = 0;
  /// The check it crashed in; none when it crashed while parsing.
  std::vector<fuzz::Check> reached;
  std::string minimized;
};

/// The checks of each input, by its file's pipelines.
class CheckTable {
public:
  explicit CheckTable(mlir::MLIRContext &context) : context(context) {}

  /// The checks of `input`; pipelines that do not parse (a RUN line's
  /// deliberately bad option) are left out.
  const std::vector<fuzz::Check> &of(const fuzz::Case &input) {
    auto [known, inserted] = table.try_emplace(input.pipelines.get());
    if (inserted) {
      std::vector<std::string> valid;
      for (const std::string &pipeline : *input.pipelines) {
        std::string error;
        if (fuzz::isValidPipeline(context, pipeline, error))
          valid.push_back(pipeline);
      }
      known->second = fuzz::checksFor(valid);
    }
    return known->second;
  }

private:
  mlir::MLIRContext &context;
  std::map<const std::vector<std::string> *, std::vector<fuzz::Check>> table;
};

/// The check of `checks` that `crash` happened in; none when parsing.
std::vector<fuzz::Check> checksReached(ArrayRef<fuzz::Check> checks,
                                       const fuzz::Crash &crash) {
  for (const fuzz::Check &check : checks)
    if (check.describe() == crash.phase)
      return {check};
  return {};
}

class Fuzzer {
public:
  Fuzzer(mlir::MLIRContext &context, ArrayRef<fuzz::Case> corpus)
      : context(context), corpus(corpus), checks(context), mutator(corpus),
        sandbox({jobs, std::chrono::seconds(timeout),
                 uint64_t(memoryLimit) << 20}) {}

  void run();
  /// Puts the inputs of `corpus` through the checks unchanged, saying how
  /// each fared.
  void replayCorpus(raw_ostream &os);
  void minimize();
  /// Prints what the mutants of run() came to.
  void summarize(raw_ostream &os, double seconds);
  /// Prints each kind of crash, and writes it to the output directory.
  void listCrashes(raw_ostream &os);
  /// Whether no crash of ours was found.
  bool clean() const;

private:
  int runInChild(StringRef text, ArrayRef<fuzz::Check> checksToRun) {
    return int(
        fuzz::runChecks(context, text, checksToRun, fuzz::Sandbox::enterPhase));
  }
  /// Counts how `mutant` fared; the crash it is, if it is one.
  std::optional<fuzz::Crash> record(uint64_t index, fuzz::Mutant mutant,
                                    ArrayRef<fuzz::Check> checksRun,
                                    const fuzz::Outcome &outcome);
  uint64_t crashCount(bool upstream) const;
  void writeCrash(const CrashKind &kind, unsigned number, raw_ostream &os);

  mlir::MLIRContext &context;
  ArrayRef<fuzz::Case> corpus;
  CheckTable checks;
  fuzz::Mutator mutator;
  fuzz::Sandbox sandbox;
  fuzz::CrashClassifier classifier;

  bool replaying = false;
  uint64_t tried = 0;
  std::map<fuzz::Verdict, uint64_t> verdicts;
  std::vector<CrashKind> kinds;
};

std::optional<fuzz::Crash> Fuzzer::record(uint64_t index, fuzz::Mutant mutant,
                                          ArrayRef<fuzz::Check> checksRun,
                                          const fuzz::Outcome &outcome) {
  ++tried;
  std::optional<fuzz::Crash> crash = classifier.classify(outcome, mutant.text);
  if (!crash) {
    ++verdicts[fuzz::Verdict(outcome.exitCode)];
    return std::nullopt;
  }
  auto known = find_if(kinds, [&](const CrashKind &kind) {
    return kind.crash.signature == crash->signature;
  });
  if (known != kinds.end()) {
    ++known->count;
    return crash;
  }
  if (!replaying)
    WithColor::note(errs(), "fuser-fuzz")
        << "mutant " << index << ": " << crash->signature << "\n";
  kinds.push_back({*crash, 1, std::move(mutant), index,
                   checksReached(checksRun, *crash), ""});
  return crash;
}

void Fuzzer::run() {
  auto start = std::chrono::steady_clock::now();
  auto overBudget = [&] {
    return timeBudget && std::chrono::steady_clock::now() - start >=
                             std::chrono::seconds(timeBudget);
  };
  // Each mutant runs its input's checks and one fuser-compile with
  // options of its own.
  struct Trial {
    fuzz::Mutant mutant;
    std::vector<fuzz::Check> checks;
  };
  std::map<uint64_t, Trial> running;
  auto finishOne = [&] {
    auto [done, outcome] = sandbox.next();
    Trial &trial = running[done];
    record(done, std::move(trial.mutant), trial.checks, outcome);
    running.erase(done);
  };
  for (uint64_t index = 0; index < mutantCount && !overBudget(); ++index) {
    if (sandbox.running() == sandbox.capacity())
      finishOne();
    if (index && index % 10000 == 0)
      WithColor::note(errs(), "fuser-fuzz")
          << index << " mutants, " << crashCount(false) << " crashes, "
          << std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::steady_clock::now() - start)
                 .count()
          << " s\n";
    Trial trial{mutator.mutate(seed, index), {}};
    trial.checks = checks.of(*trial.mutant.source);
    fuzz::Random options(seed, ~index);
    trial.checks.push_back(fuzz::randomCompileCheck(options));
    sandbox.start(index,
                  [&] { return runInChild(trial.mutant.text, trial.checks); });
    running.emplace(index, std::move(trial));
  }
  while (sandbox.running())
    finishOne();
}

void Fuzzer::minimize() {
  for (CrashKind &kind : kinds) {
    kind.minimized = kind.example.text;
    if (!minimizeTries)
      continue;
    // A hang costs the whole time limit per try.
    unsigned tries = kind.crash.signature.rfind("hang", 0) == 0
                         ? std::min(minimizeTries.getValue(), 20u)
                         : minimizeTries.getValue();
    kind.minimized = fuzz::minimizeLines(
        kind.example.text,
        [&](StringRef candidate) {
          fuzz::Outcome outcome =
              sandbox.run([&] { return runInChild(candidate, kind.reached); });
          std::optional<fuzz::Crash> crash =
              classifier.classify(outcome, candidate);
          if (!crash || crash->signature != kind.crash.signature)
            return false;
          kind.crash.upstream = crash->upstream;
          return true;
        },
        tries);
  }
}

void Fuzzer::writeCrash(const CrashKind &kind, unsigned number,
                        raw_ostream &os) {
  const fuzz::Case &source = *kind.example.source;
  std::string origin = source.file + " input " + std::to_string(source.index);
  if (!replaying)
    origin = "mutant " + std::to_string(kind.index) + " of seed " +
             std::to_string(seed) + ", " + origin + ": " +
             join(kind.example.edits, "; ");
  std::string header =
      "// fuser-fuzz: " + kind.crash.signature +
      "\n// while: " + kind.crash.phase + "\n// from: " + origin + "\n" +
      (kind.reached.empty() ? std::string()
                            : kind.reached.front().runLine() + "\n");
  std::string contents = header + kind.minimized;
  os << contents;
  if (outputDir.empty())
    return;
  SmallString<128> path(outputDir);
  sys::path::append(path, (kind.crash.upstream ? "upstream-" : "crash-") +
                              std::to_string(number) + ".mlir");
  std::error_code code = sys::fs::create_directories(outputDir);
  raw_fd_ostream file(path, code);
  if (code) {
    WithColor::error(errs(), "fuser-fuzz")
        << "cannot write " << path << ": " << code.message() << "\n";
    return;
  }
  file << contents;
  os << "// written to " << path << "\n";
}

uint64_t Fuzzer::crashCount(bool upstream) const {
  uint64_t total = 0;
  for (const CrashKind &kind : kinds)
    if (kind.crash.upstream == upstream)
      total += kind.count;
  return total;
}

bool Fuzzer::clean() const { return crashCount(false) == 0; }

void Fuzzer::summarize(raw_ostream &os, double seconds) {
  auto kindCount = [&](bool upstream) {
    return count_if(kinds, [&](const CrashKind &kind) {
      return kind.crash.upstream == upstream;
    });
  };
  os << "fuser-fuzz: " << tried << " mutants of " << corpus.size()
     << " inputs (seed " << seed << ", " << jobs << " jobs) in "
     << format("%.1f", seconds) << " s\n";
  for (fuzz::Verdict verdict :
       {fuzz::Verdict::Rejected, fuzz::Verdict::Diagnosed,
        fuzz::Verdict::Compiled})
    os << "  " << fuzz::describe(verdict) << ": " << verdicts[verdict] << "\n";
  os << "  crashes: " << crashCount(false) << " (" << kindCount(false)
     << " kinds)\n";
  os << "  upstream MLIR crashes, not counted: " << crashCount(true) << " ("
     << kindCount(true) << " kinds)\n";
}

void Fuzzer::listCrashes(raw_ostream &os) {
  for (auto [number, kind] : enumerate(kinds)) {
    os << "\n"
       << (kind.crash.upstream ? "upstream " : "") << "crash " << number + 1
       << ", " << kind.count << (replaying ? " inputs" : " mutants") << ":\n";
    writeCrash(kind, number + 1, os);
  }
}

void Fuzzer::replayCorpus(raw_ostream &os) {
  replaying = true;
  for (const fuzz::Case &input : corpus) {
    const std::vector<fuzz::Check> &toRun = checks.of(input);
    fuzz::Outcome outcome =
        sandbox.run([&] { return runInChild(input.text, toRun); });
    os << input.file << " input " << input.index << ": ";
    std::optional<fuzz::Crash> crash =
        record(input.index, {&input, input.text, {}}, toRun, outcome);
    if (!crash) {
      os << fuzz::describe(fuzz::Verdict(outcome.exitCode)) << "\n";
      continue;
    }
    os << (crash->upstream ? "upstream crash: " : "crash: ") << crash->signature
       << "\n  while: " << crash->phase << "\n";
  }
}
} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(fuzzOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "Fuser-MLIR mutation fuzzer: mutates lit inputs "
                              "and reports what crashes the compiler\n");
  if (inputs.empty() == replay.empty()) {
    WithColor::error(errs(), "fuser-fuzz")
        << "give --inputs to fuzz, or --replay to replay one file\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  fuser::registerAllDialects(registry);
  fuser::registerAllPasses();
  fuser::test::registerTestPasses();
  // Children are forked: the context must not own threads.
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  Expected<std::vector<fuzz::Case>> corpus =
      replay.empty() ? fuzz::loadCorpus(inputs) : fuzz::loadFile(replay);
  if (!corpus) {
    WithColor::error(errs(), "fuser-fuzz")
        << toString(corpus.takeError()) << "\n";
    return 2;
  }
  Fuzzer fuzzer(context, *corpus);
  if (!replay.empty()) {
    fuzzer.replayCorpus(outs());
  } else {
    auto start = std::chrono::steady_clock::now();
    fuzzer.run();
    fuzzer.summarize(outs(), std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
  }
  fuzzer.minimize();
  fuzzer.listCrashes(outs());
  return fuzzer.clean() ? 0 : 1;
}
