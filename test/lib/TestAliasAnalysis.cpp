//===- TestAliasAnalysis.cpp - print the alias analysis -------------------===//
//
// Test pass: for every result of a view op, a remark saying which buffer it
// views and with which layout, or why it is not a view:
//   alias of argument #0 (root argument #0): order [1, 0] contiguity [true, true]
//   not an alias: result dim 0 merges dims that are not contiguous
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
std::string describe(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return "argument #" + std::to_string(argument.getArgNumber());
  return "result of '" + value.getDefiningOp()->getName().getStringRef().str() +
         "'";
}

struct TestAliasAnalysisPass
    : public PassWrapper<TestAliasAnalysisPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAliasAnalysisPass)

  StringRef getArgument() const final { return "fuser-test-alias-analysis"; }
  StringRef getDescription() const final {
    return "Print the alias analysis of every view op as a remark";
  }

  void runOnOperation() override {
    AliasAnalysis &analysis = getAnalysis<AliasAnalysis>();
    getOperation()->walk([&](ViewOpInterface view) {
      Value result = view->getResult(0);
      std::optional<AliasAnalysis::Alias> alias = analysis.getAlias(result);
      if (!alias) {
        view->emitRemark("not an alias: ") << analysis.getReasonNotAlias(result);
        return;
      }
      InFlightDiagnostic remark = view->emitRemark();
      remark << "alias of " << describe(alias->source) << " (root "
             << describe(analysis.getRoot(result)) << "): order ["
             << alias->layout.order << "] contiguity [";
      llvm::interleaveComma(alias->layout.contiguity, remark,
                            [&](bool c) { remark << (c ? "true" : "false"); });
      remark << "]";
    });
  }
};
} // namespace

namespace fuser::test {
void registerTestAliasAnalysisPass() {
  PassRegistration<TestAliasAnalysisPass>();
}
} // namespace fuser::test
