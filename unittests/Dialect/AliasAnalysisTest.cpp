//===- AliasAnalysisTest.cpp - views, roots and layouts -------------------===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fuser;

namespace {

class AliasAnalysisTest : public ::testing::Test {
protected:
  AliasAnalysisTest() {
    DialectRegistry registry;
    ::fuser::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The values the function's ops define, in order.
  SmallVector<Value> parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    SmallVector<Value> values;
    module->walk([&](Operation *op) {
      if (op->getNumResults() == 1 && !isa<func::FuncOp>(op))
        values.push_back(op->getResult(0));
    });
    return values;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(AliasAnalysisTest, ChainsResolveToTheRootAndKeepLayouts) {
  SmallVector<Value> values = parse(R"mlir(
    func.func @f(%a: tensor<4x8xf32>) {
      %0 = fuser.permute %a perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
      %1 = fuser.set %0 : tensor<8x4xf32> -> tensor<8x4xf32>
      %2 = fuser.exp %1 : tensor<8x4xf32> -> tensor<8x4xf32>
      %3 = fuser.reshape %2 : tensor<8x4xf32> -> tensor<32xf32>
      return
    })mlir");
  ASSERT_EQ(values.size(), 4u);
  AliasAnalysis analysis(module->getOperation());
  Value argument = module->lookupSymbol<func::FuncOp>("f").getArgument(0);

  EXPECT_EQ(analysis.getRoot(values[1]), argument);
  ASSERT_TRUE(analysis.getAlias(values[1]));
  EXPECT_EQ(analysis.getAlias(values[1])->source, values[0]);
  EXPECT_EQ(analysis.getLayout(values[1]).order, (SmallVector<int64_t>{1, 0}));

  // A compute op starts a new buffer; a merge of its row-major result views it.
  EXPECT_FALSE(analysis.getAlias(values[2]));
  EXPECT_TRUE(analysis.getReasonNotAlias(values[2]).empty());
  EXPECT_EQ(analysis.getRoot(values[3]), values[2]);
}

TEST_F(AliasAnalysisTest, NonContiguousMergeIsNotAView) {
  SmallVector<Value> values = parse(R"mlir(
    func.func @f(%a: tensor<4x8xf32>) {
      %0 = fuser.slice %a starts = [0, 0] limits = [4, 4] steps = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
      %1 = fuser.reshape %0 : tensor<4x4xf32> -> tensor<16xf32>
      return
    })mlir");
  AliasAnalysis analysis(module->getOperation());
  ASSERT_TRUE(analysis.getAlias(values[0]));
  EXPECT_EQ(analysis.getLayout(values[0]).contiguity,
            (SmallVector<bool>{false, true}));
  EXPECT_FALSE(analysis.getAlias(values[1]));
  EXPECT_EQ(analysis.getReasonNotAlias(values[1]),
            "result dim 0 merges dims that are not contiguous");
  EXPECT_EQ(analysis.getRoot(values[1]), values[1]);
}

} // namespace
