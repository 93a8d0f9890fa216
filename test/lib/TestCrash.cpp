//===- TestCrash.cpp - crash on request, to test crash detection ----------===//
//
// Test pass: crashes the way a `fuser.test.crash` attribute on a function
// asks ("segfault", "assertion", "fatal-error", "unreachable", "hang"), so
// that lit can check that fuser-fuzz tells each kind of crash from a
// diagnostic and names it.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <unistd.h>

using namespace mlir;

namespace {
[[gnu::noinline]] void crashWithSegfault() {
  // An unmapped address the compiler cannot see through, so the store is
  // emitted; not null, which UBSan would report before the fault.
  volatile int *volatile nowhere = reinterpret_cast<volatile int *>(64);
  *nowhere = 1;
}

[[noreturn]] void hangForever() {
  while (true)
    sleep(1);
}

struct TestCrashPass : public PassWrapper<TestCrashPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCrashPass)

  StringRef getArgument() const final { return "fuser-test-crash"; }
  StringRef getDescription() const final {
    return "Crash as each function's fuser.test.crash attribute asks";
  }

  void runOnOperation() override {
    getOperation()->walk([](func::FuncOp function) {
      auto kind = function->getAttrOfType<StringAttr>("fuser.test.crash");
      if (!kind)
        return;
      if (kind == "segfault")
        crashWithSegfault();
      else if (kind == "assertion")
        assert(false && "fuser-test-crash asked for an assertion");
      else if (kind == "fatal-error")
        llvm::report_fatal_error("fuser-test-crash asked for a fatal error");
      else if (kind == "unreachable")
        llvm_unreachable("fuser-test-crash asked for an unreachable point");
      else if (kind == "hang")
        hangForever();
    });
  }
};
} // namespace

namespace fuser::test {
void registerTestCrashPass() { PassRegistration<TestCrashPass>(); }
} // namespace fuser::test
