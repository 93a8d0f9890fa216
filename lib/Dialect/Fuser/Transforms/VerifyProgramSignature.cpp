//===- VerifyProgramSignature.cpp - what crosses a program's boundary -----===//

#include "fuser/Dialect/Fuser/IR/FuserAttrs.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_VERIFYPROGRAMSIGNATURE
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
struct VerifyProgramSignaturePass
    : public mlir::fuser::impl::VerifyProgramSignatureBase<
          VerifyProgramSignaturePass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    FunctionType type = function.getFunctionType();
    bool failed = false;
    auto check = [&](Type value, StringRef what, unsigned index) {
      ShardingAttr sharding = getSharding(value);
      if (!sharding || !sharding.isPartial())
        return;
      InFlightDiagnostic diagnostic = function.emitError()
                                      << what << " #" << index
                                      << " is partial over mesh axes [";
      llvm::interleaveComma(sharding.getPartialAxes(), diagnostic);
      diagnostic << "]: a program exchanges whole values and shards with its "
                    "caller, not pending reductions; annotate it without "
                    "'partial'"
                 << (what == "result" ? ", so that the program reduces it "
                                        "before returning it"
                                      : "");
      failed = true;
    };
    for (auto [index, input] : llvm::enumerate(type.getInputs()))
      check(input, "argument", index);
    for (auto [index, result] : llvm::enumerate(type.getResults()))
      check(result, "result", index);
    if (failed)
      signalPassFailure();
  }
};
} // namespace
