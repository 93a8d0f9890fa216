//===- Sandbox.h - inputs compiled in forked children -----------*- C++ -*-===//
//
// Each input is compiled in a child forked from the fuzzer, so that a crash
// or a hang ends the child only. The child's stderr goes to a memory file
// the parent reads; the phase it announces last and the stack it was on
// when a fatal signal reached it go to memory shared with the parent. A
// child still running after the time limit is killed.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_SANDBOX_H
#define FUSER_TOOLS_FUZZ_SANDBOX_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fuzz {

/// How a child ended.
struct Outcome {
  /// Its exit status, or -1 when a signal ended it.
  int exitCode = -1;
  /// The signal that ended it, or 0.
  int signal = 0;
  /// Whether it was killed for running past the time limit.
  bool timedOut = false;
  /// The phase it announced last.
  std::string phase;
  /// The start of what it wrote to stderr.
  std::string errorOutput;
  /// The return addresses of its stack when a fatal signal reached it.
  std::vector<uintptr_t> frames;
};

struct SandboxLimits {
  unsigned children = 1;
  std::chrono::seconds time{10};
  /// Address space of each child, in bytes (under ASan, which needs more,
  /// the largest allocation is limited instead: Sandbox.cpp).
  uint64_t memory = uint64_t(4) << 30;
};

class Sandbox {
public:
  explicit Sandbox(const SandboxLimits &limits);
  ~Sandbox();
  Sandbox(const Sandbox &) = delete;
  Sandbox &operator=(const Sandbox &) = delete;

  /// Forks a child that runs `work` and exits with its result; `tag` names
  /// it in what next() returns. A child must be free (running() is below
  /// capacity()).
  void start(uint64_t tag, llvm::function_ref<int()> work);
  /// Waits until a child ends and says which and how.
  std::pair<uint64_t, Outcome> next();
  /// start() and next() for one child.
  Outcome run(llvm::function_ref<int()> work);

  unsigned running() const;
  unsigned capacity() const { return slots.size(); }

  /// In a child: records that it enters `phase`.
  static void enterPhase(llvm::StringRef phase);

  /// What a child leaves for the parent.
  struct Report;

private:
  struct Slot {
    Report *report = nullptr;
    int errorFile = -1;
    int pid = 0;
    uint64_t tag = 0;
    bool timedOut = false;
    std::chrono::steady_clock::time_point deadline;
  };
  [[noreturn]] void runChild(Slot &slot, llvm::function_ref<int()> work);
  Outcome collect(Slot &slot, int status);
  void killOverdue();

  SandboxLimits limits;
  std::vector<Slot> slots;
};

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_SANDBOX_H
