//===- Crash.cpp - telling crashes from diagnostics, and apart ------------===//

#include "Crash.h"

#include "Checks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>

using namespace llvm;

namespace fuzz {
namespace {
/// How many functions from the top of the stack name a crash.
constexpr unsigned signatureFrames = 3;

/// Digits replaced, so that one error reached with other numbers is one
/// crash.
std::string withoutNumbers(StringRef text) {
  std::string normalized;
  for (char c : text) {
    if (!isDigit(c))
      normalized.push_back(c);
    else if (normalized.empty() || normalized.back() != 'N')
      normalized.push_back('N');
  }
  return normalized;
}

/// The line of `text` that contains `marker`, if one does.
std::optional<StringRef> lineWith(StringRef text, StringRef marker) {
  size_t at = text.find(marker);
  if (at == StringRef::npos)
    return std::nullopt;
  size_t begin = text.rfind('\n', at);
  begin = begin == StringRef::npos ? 0 : begin + 1;
  return text.slice(begin, text.find('\n', at));
}

/// What the crash printed before dying, as a signature: an assertion, an
/// LLVM error, an unreachable point or an uncaught exception.
std::optional<std::string> messageSignature(StringRef errorOutput) {
  if (std::optional<StringRef> line = lineWith(errorOutput, "Assertion `")) {
    // <program>: <file>:<line>: <function>: Assertion `<condition>' failed.
    SmallVector<StringRef> match;
    if (Regex("^.*: ([^: ]+):[0-9]+: (.*): Assertion `(.*)' failed")
            .match(*line, &match))
      return ("assertion `" + match[3] + "' in " + match[2] + " (" +
              sys::path::filename(match[1]) + ")")
          .str();
    return line->str();
  }
  if (std::optional<StringRef> line = lineWith(errorOutput, "LLVM ERROR:"))
    return withoutNumbers(line->drop_front(line->find("LLVM ERROR:")));
  if (std::optional<StringRef> line =
          lineWith(errorOutput, "UNREACHABLE executed at ")) {
    // <message>\nUNREACHABLE executed at <file>:<line>!
    StringRef before = errorOutput.take_front(errorOutput.find(*line));
    StringRef message = before.rtrim().rsplit('\n').second.trim();
    if (message.empty())
      message = before.rtrim();
    StringRef where = line->drop_front(strlen("UNREACHABLE executed at "));
    return ("unreachable: " + message + " (" +
            sys::path::filename(where.rsplit(':').first) + ")")
        .str();
  }
  if (std::optional<StringRef> line =
          lineWith(errorOutput, "terminate called after throwing"))
    return ("uncaught exception: " + line->trim()).str();
  if (std::optional<StringRef> line =
          lineWith(errorOutput, "runtime error: ")) {
    // UBSan: <file>:<line>:<column>: runtime error: <what>
    size_t at = line->find("runtime error: ");
    StringRef where = line->take_front(at).rtrim(": ");
    where = where.rsplit(':').first.rsplit(':').first;
    return withoutNumbers(("undefined behaviour: " +
                           line->drop_front(at + strlen("runtime error: ")) +
                           " (" + sys::path::filename(where) + ")")
                              .str());
  }
  return std::nullopt;
}

/// The kind of error an AddressSanitizer report names, if there is one:
/// "AddressSanitizer: heap-use-after-free".
std::optional<std::string> addressSanitizerError(StringRef errorOutput) {
  std::optional<StringRef> line =
      lineWith(errorOutput, "ERROR: AddressSanitizer: ");
  if (!line)
    return std::nullopt;
  StringRef report = line->drop_front(line->find("AddressSanitizer: "));
  return report.take_front(report.find(' ', strlen("AddressSanitizer: ")))
      .str();
}

std::string signalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  case SIGABRT:
    return "SIGABRT";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGKILL:
    return "SIGKILL";
  default:
    return "signal " + std::to_string(signal);
  }
}

/// `name` demangled, without its parameters and qualifiers or a clone's
/// suffix (`.constprop.0`), so that signatures stay short.
std::string functionName(StringRef name) {
  name = name.take_front(name.find('.'));
  std::string demangled = demangle(name);
  StringRef function(demangled);
  // The parameters are the last parenthesized group at the top level.
  int depth = 0;
  for (size_t at = function.size(); at-- > 0;) {
    char c = function[at];
    if (c == ')' || c == '>')
      ++depth;
    else if ((c == '(' || c == '<') && --depth == 0 && c == '(') {
      // `(anonymous namespace)` is part of a name.
      if (!function.drop_front(at).starts_with("(anonymous namespace)"))
        return function.take_front(at).str();
    }
  }
  return demangled;
}

/// Frames of the crash machinery rather than of the code that crashed:
/// the C and C++ runtimes, the fuzzer's signal handler, LLVM's fatal
/// error paths.
bool isMachinery(StringRef function, StringRef module) {
  StringRef file = sys::path::filename(module);
  return file.starts_with("libc.so") || file.starts_with("libstdc++") ||
         file.starts_with("libgcc_s") || file.starts_with("libasan") ||
         file.starts_with("libubsan") || function.starts_with("fuzz::") ||
         function.starts_with("llvm::report_fatal_error") ||
         function.starts_with("llvm::llvm_unreachable_internal") ||
         function.starts_with("llvm::sys::");
}

/// Functions of ours: the fuser and hostir dialects and passes.
bool isOurs(StringRef function) {
  return function.contains("fuser") || function.contains("hostir");
}

/// Whether `input` names the fuser or hostir dialect outside comments.
bool mentionsOurDialects(StringRef input) {
  SmallVector<StringRef> lines;
  input.split(lines, '\n');
  return any_of(lines, [](StringRef line) {
    StringRef code = line.take_front(line.find("//"));
    return code.contains("fuser") || code.contains("hostir");
  });
}
} // namespace

CrashClassifier::CrashClassifier()
    : symbolizer([] {
        symbolize::LLVMSymbolizer::Options options;
        options.Demangle = false;
        options.UseSymbolTable = true;
        return options;
      }()) {}

const CrashClassifier::Frame &CrashClassifier::frameAt(uintptr_t address) {
  auto [known, inserted] = frames.try_emplace(address);
  if (!inserted)
    return known->second;
  Frame &frame = known->second;
  // A return address: the call is the byte before it. The children were
  // forked from this process, so its modules are where theirs were.
  uintptr_t call = address - 1;
  Dl_info image;
  if (!dladdr(reinterpret_cast<void *>(call), &image) || !image.dli_fbase)
    return frame;
  frame.module =
      image.dli_fname && *image.dli_fname ? image.dli_fname : "/proc/self/exe";
  if (image.dli_sname)
    frame.function = functionName(image.dli_sname);
  // Offsets in position-independent modules are from where they are
  // loaded; executables that are not have their addresses.
  uintptr_t base = reinterpret_cast<uintptr_t>(image.dli_fbase);
  auto *header = static_cast<const Elf64_Ehdr *>(image.dli_fbase);
  uintptr_t offset = header->e_type == ET_DYN ? call - base : call;
  // The symbol table names functions dladdr cannot (local ones).
  Expected<DILineInfo> line = symbolizer.symbolizeCode(
      frame.module, {offset, object::SectionedAddress::UndefSection});
  if (line && line->FunctionName != DILineInfo::BadString)
    frame.function = functionName(line->FunctionName);
  else
    consumeError(line.takeError());
  return frame;
}

std::string CrashClassifier::stackSignature(StringRef error,
                                            const Outcome &outcome) {
  std::vector<std::string> names;
  for (uintptr_t address : outcome.frames) {
    const Frame &frame = frameAt(address);
    if (frame.function.empty() || isMachinery(frame.function, frame.module))
      continue;
    names.push_back(frame.function);
    if (names.size() == signatureFrames)
      break;
  }
  if (names.empty())
    return (error + " in " + outcome.phase).str();
  return (error + " in " + join(names, " < ")).str();
}

bool CrashClassifier::isUpstream(const Outcome &outcome, StringRef input) {
  if (outcome.phase != parsePhase)
    return false;
  // Parsing an input that names none of our dialects runs none of our code.
  if (!mentionsOurDialects(input))
    return true;
  // Otherwise the stack must be known and hold no function of ours.
  bool unwound = false;
  for (uintptr_t address : outcome.frames) {
    const Frame &frame = frameAt(address);
    if (isOurs(frame.function))
      return false;
    unwound |=
        !frame.function.empty() && !isMachinery(frame.function, frame.module);
  }
  return unwound;
}

std::optional<Crash> CrashClassifier::classify(const Outcome &outcome,
                                               StringRef input) {
  std::optional<std::string> message = messageSignature(outcome.errorOutput);
  bool normalExit = outcome.exitCode == int(Verdict::Compiled) ||
                    outcome.exitCode == int(Verdict::Rejected) ||
                    outcome.exitCode == int(Verdict::Diagnosed);
  if (normalExit && !message && !outcome.timedOut)
    return std::nullopt;
  Crash crash;
  crash.phase = outcome.phase;
  if (outcome.timedOut)
    crash.signature = "hang in " + outcome.phase;
  else if (message)
    crash.signature = *message;
  else if (outcome.signal)
    crash.signature = stackSignature(signalName(outcome.signal), outcome);
  else if (std::optional<std::string> error =
               addressSanitizerError(outcome.errorOutput))
    crash.signature = stackSignature(*error, outcome);
  else
    crash.signature = "exit status " + std::to_string(outcome.exitCode) +
                      " in " + outcome.phase;
  crash.upstream = isUpstream(outcome, input);
  return crash;
}

} // namespace fuzz
