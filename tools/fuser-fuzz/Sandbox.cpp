//===- Sandbox.cpp - inputs compiled in forked children -------------------===//

#include "Sandbox.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FUSER_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSER_FUZZ_ASAN 1
#endif
#endif

/// Present when a sanitizer runtime is linked in: it calls the callback
/// before it ends a process that it found an error in.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));

#ifdef FUSER_FUZZ_ASAN
/// ASan reserves terabytes of address space for its shadow, so children
/// cannot be limited with RLIMIT_AS: an allocation past the same limit
/// fails instead, as it would there (operator new throws). The fuzzer's own
/// handlers take the fatal signals, so crashes read the same as without
/// ASan. ASAN_OPTIONS given in the environment still win.
extern "C" const char *__asan_default_options() {
  return "max_allocation_size_mb=4096:allocator_may_return_null=1:"
         "handle_segv=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:"
         "handle_abort=0";
}
#endif

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

/// Records the stack the child is on in its report.
static void recordStack() {
  if (!childReport)
    return;
  void *frames[maxFrames];
  int count = backtrace(frames, maxFrames);
  for (int i = 0; i < count; ++i)
    childReport->frames[i] = reinterpret_cast<uintptr_t>(frames[i]);
  childReport->frameCount = count;
}

/// Records the stack of the fatal signal, then lets it end the child.
static void recordCrash(int signal, siginfo_t *, void *context) {
#if defined(__x86_64__)
  // A call through a broken pointer (a bad cast in a build without
  // assertions) jumps where no code is, and no unwinder goes on from
  // there: resume from the return address that call pushed, as if it had
  // returned. The context is the one the unwinder reads through the
  // signal frame, and the child ends after this anyway.
  auto &registers = static_cast<ucontext_t *>(context)->uc_mcontext.gregs;
  Dl_info image;
  if (!dladdr(reinterpret_cast<void *>(registers[REG_RIP]), &image)) {
    registers[REG_RIP] = *reinterpret_cast<greg_t *>(registers[REG_RSP]);
    registers[REG_RSP] += sizeof(greg_t);
  }
#endif
  recordStack();
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
#ifndef FUSER_FUZZ_ASAN
  rlimit memory{limits.memory, limits.memory};
  setrlimit(RLIMIT_AS, &memory);
#endif
  rlimit noCore{0, 0};
  setrlimit(RLIMIT_CORE, &noCore);
  stack_t stack{};
  stack.ss_sp = alternateStack;
  stack.ss_size = sizeof(alternateStack);
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = recordCrash;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : fatalSignals)
    sigaction(signal, &action, nullptr);
  // A sanitizer's report ends the child with exit status 1; its stack is
  // kept as a signal's is.
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(recordStack);
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
