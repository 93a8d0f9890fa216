//===- Sandbox.cpp - inputs compiled in forked children -------------------===//

#include "Sandbox.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <execinfo.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fuzz {

constexpr size_t maxFrames = 64;
constexpr size_t maxErrorOutput = 64 * 1024;

/// In memory the parent and the child share.
struct Sandbox::Report {
  char phase[2048];
  uint32_t frameCount;
  uintptr_t frames[maxFrames];
};

namespace {
/// The report of the child this process is, when it is one.
Sandbox::Report *childReport = nullptr;

/// The signals that end a child that crashes.
constexpr int fatalSignals[] = {SIGSEGV, SIGBUS,  SIGILL,
                                SIGFPE,  SIGABRT, SIGTRAP};

/// Stack for the signal handler, so that a stack overflow is reported too.
alignas(16) char alternateStack[256 * 1024];

void checkSystemCall(bool ok, const char *what) {
  if (!ok)
    llvm::report_fatal_error(llvm::Twine("fuser-fuzz: ") + what + ": " +
                             std::strerror(errno));
}
} // namespace

/// Records the stack of the fatal signal, then lets it end the child.
static void recordCrash(int signal) {
  if (childReport) {
    void *frames[maxFrames];
    int count = backtrace(frames, maxFrames);
    for (int i = 0; i < count; ++i)
      childReport->frames[i] = reinterpret_cast<uintptr_t>(frames[i]);
    childReport->frameCount = count;
  }
  // The handler was reset on entry: this ends the child.
  raise(signal);
}

Sandbox::Sandbox(const SandboxLimits &limits) : limits(limits) {
  slots.resize(std::max(1u, limits.children));
  for (Slot &slot : slots) {
    void *shared = mmap(nullptr, sizeof(Report), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    checkSystemCall(shared != MAP_FAILED, "mmap");
    slot.report = static_cast<Report *>(shared);
    slot.errorFile = memfd_create("fuser-fuzz-stderr", MFD_CLOEXEC);
    checkSystemCall(slot.errorFile >= 0, "memfd_create");
  }
  // Children are waited for with sigtimedwait.
  sigset_t childSignal;
  sigemptyset(&childSignal);
  sigaddset(&childSignal, SIGCHLD);
  sigprocmask(SIG_BLOCK, &childSignal, nullptr);
  // The first backtrace() loads the unwinder: not in a signal handler.
  void *frame;
  backtrace(&frame, 1);
}

Sandbox::~Sandbox() {
  for (Slot &slot : slots) {
    if (slot.pid) {
      kill(slot.pid, SIGKILL);
      waitpid(slot.pid, nullptr, 0);
    }
    munmap(slot.report, sizeof(Report));
    close(slot.errorFile);
  }
}

unsigned Sandbox::running() const {
  return llvm::count_if(slots, [](const Slot &slot) { return slot.pid != 0; });
}

void Sandbox::enterPhase(llvm::StringRef phase) {
  if (!childReport)
    return;
  size_t length = std::min(phase.size(), sizeof(childReport->phase) - 1);
  std::memcpy(childReport->phase, phase.data(), length);
  childReport->phase[length] = '\0';
}

void Sandbox::runChild(Slot &slot, llvm::function_ref<int()> work) {
  childReport = slot.report;
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int devNull = open("/dev/null", O_RDWR);
  dup2(devNull, STDIN_FILENO);
  dup2(devNull, STDOUT_FILENO);
  dup2(slot.errorFile, STDERR_FILENO);
  rlimit memory{limits.memory, limits.memory};
  setrlimit(RLIMIT_AS, &memory);
  rlimit noCore{0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  stack_t stack{};
  stack.ss_sp = alternateStack;
  stack.ss_size = sizeof(alternateStack);
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = recordCrash;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : fatalSignals)
    sigaction(signal, &action, nullptr);
  int code = work();
  fflush(nullptr);
  _exit(code);
}

void Sandbox::start(uint64_t tag, llvm::function_ref<int()> work) {
  auto free = llvm::find_if(slots, [](const Slot &slot) { return !slot.pid; });
  assert(free != slots.end() && "every child is running");
  Slot &slot = *free;
  std::memset(slot.report, 0, sizeof(Report));
  checkSystemCall(ftruncate(slot.errorFile, 0) == 0, "ftruncate");
  lseek(slot.errorFile, 0, SEEK_SET);
  fflush(nullptr);
  int pid = fork();
  checkSystemCall(pid >= 0, "fork");
  if (pid == 0)
    runChild(slot, work);
  slot.pid = pid;
  slot.tag = tag;
  slot.timedOut = false;
  slot.deadline = std::chrono::steady_clock::now() + limits.time;
}

Outcome Sandbox::collect(Slot &slot, int status) {
  Outcome outcome;
  if (WIFEXITED(status))
    outcome.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    outcome.signal = WTERMSIG(status);
  outcome.timedOut = slot.timedOut;
  outcome.phase = slot.report->phase;
  outcome.frames.assign(
      slot.report->frames,
      slot.report->frames +
          std::min<size_t>(slot.report->frameCount, maxFrames));
  outcome.errorOutput.resize(maxErrorOutput);
  ssize_t length =
      pread(slot.errorFile, outcome.errorOutput.data(), maxErrorOutput, 0);
  outcome.errorOutput.resize(std::max<ssize_t>(length, 0));
  slot.pid = 0;
  return outcome;
}

void Sandbox::killOverdue() {
  auto now = std::chrono::steady_clock::now();
  for (Slot &slot : slots) {
    if (slot.pid && !slot.timedOut && now >= slot.deadline) {
      slot.timedOut = true;
      kill(slot.pid, SIGKILL);
    }
  }
}

std::pair<uint64_t, Outcome> Sandbox::next() {
  assert(running() && "no child to wait for");
  while (true) {
    int status;
    int pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      auto ended = llvm::find_if(
          slots, [&](const Slot &slot) { return slot.pid == pid; });
      if (ended == slots.end())
        continue;
      uint64_t tag = ended->tag;
      return {tag, collect(*ended, status)};
    }
    auto now = std::chrono::steady_clock::now();
    auto deadline = std::chrono::steady_clock::time_point::max();
    for (const Slot &slot : slots)
      if (slot.pid && !slot.timedOut)
        deadline = std::min(deadline, slot.deadline);
    // Killed children are reaped at once; others are waited for until the
    // first deadline.
    auto wait = deadline == std::chrono::steady_clock::time_point::max()
                    ? std::chrono::nanoseconds(std::chrono::milliseconds(100))
                    : std::max(std::chrono::nanoseconds(0),
                               std::chrono::nanoseconds(deadline - now));
    timespec timeout{static_cast<time_t>(wait.count() / 1000000000),
                     static_cast<long>(wait.count() % 1000000000)};
    sigset_t childSignal;
    sigemptyset(&childSignal);
    sigaddset(&childSignal, SIGCHLD);
    sigtimedwait(&childSignal, nullptr, &timeout);
    killOverdue();
  }
}

Outcome Sandbox::run(llvm::function_ref<int()> work) {
  start(0, work);
  return next().second;
}

} // namespace fuzz
