//===- TestShardingRules.cpp - print each op's sharding rule --------------===//
//
// Test pass: emits a remark with the factors of every op implementing
// ShardingRuleOpInterface, so lit tests can check the rules directly:
//   factors f0=8 f1=16:sum f2=4:blocked; operands (f0)(f1), ...; results (f0)()
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
void printTensors(llvm::raw_ostream &os, ArrayRef<DimFactors> tensors) {
  llvm::interleave(
      tensors, os,
      [&](const DimFactors &dims) {
        for (const SmallVector<int64_t, 2> &factors : dims) {
          os << "(";
          llvm::interleave(
              factors, os, [&](int64_t factor) { os << "f" << factor; }, " ");
          os << ")";
        }
      },
      ", ");
}

struct TestShardingRulesPass
    : public PassWrapper<TestShardingRulesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestShardingRulesPass)

  StringRef getArgument() const final { return "fuser-test-sharding-rules"; }
  StringRef getDescription() const final {
    return "Print the sharding rule of every op as a remark";
  }

  void runOnOperation() override {
    getOperation()->walk([](ShardingRuleOpInterface op) {
      // Upstream elementwise ops on scalars (in linalg bodies) have no
      // factors to show.
      auto isTensor = [](Type type) { return isa<TensorType>(type); };
      if (llvm::none_of(op->getOperandTypes(), isTensor) &&
          llvm::none_of(op->getResultTypes(), isTensor))
        return;
      ShardingRule rule = op.getShardingRule();
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "factors";
      for (auto [index, factor] : llvm::enumerate(rule.getFactors())) {
        os << " f" << index << "=";
        if (ShapedType::isDynamic(factor.size))
          os << "?";
        else
          os << factor.size;
        if (factor.kind == FactorKind::Reduction)
          os << ":" << stringifyReductionKind(factor.reduction);
        else if (factor.kind == FactorKind::Blocked)
          os << ":blocked";
      }
      os << "; operands ";
      printTensors(os, rule.operands);
      os << "; results ";
      printTensors(os, rule.results);
      op->emitRemark(text);
    });
  }
};
} // namespace

namespace fuser::test {
void registerTestShardingRulesPass() {
  PassRegistration<TestShardingRulesPass>();
}
} // namespace fuser::test
