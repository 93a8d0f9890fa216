//===- ShardingRuleTest.cpp - factors and projections through them --------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/InitAllDialects.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fuser;

namespace {

class ShardingRuleTest : public ::testing::Test {
protected:
  ShardingRuleTest() {
    DialectRegistry registry;
    ::fuser::registerFuserDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  ShardingAttr sharding(ArrayRef<int64_t> meshShape,
                        ArrayRef<SmallVector<int64_t>> dims) {
    return ShardingAttr::get(MeshAttr::get(&context, meshShape), dims);
  }
  MLIRContext context;
};

TEST_F(ShardingRuleTest, ReshapeFindsCommonFactors) {
  ShardingRule rule = ShardingRule::reshape({16, 4}, {2, 8, 4});
  ASSERT_EQ(rule.getNumFactors(), 3);
  EXPECT_EQ(rule.getFactor(0).size, 2);
  EXPECT_EQ(rule.getFactor(1).size, 8);
  EXPECT_EQ(rule.getFactor(2).size, 4);
  EXPECT_EQ(rule.operands[0][0], (SmallVector<int64_t, 2>{0, 1}));
  EXPECT_EQ(rule.results[0][1], (SmallVector<int64_t, 2>{1}));
}

TEST_F(ShardingRuleTest, ReshapeSkipsUnitDimsAndBlocksMismatches) {
  ShardingRule squeeze = ShardingRule::reshape({1, 8}, {8, 1});
  ASSERT_EQ(squeeze.getNumFactors(), 1);
  EXPECT_TRUE(squeeze.operands[0][0].empty());
  EXPECT_TRUE(squeeze.results[0][1].empty());

  ShardingRule blocked = ShardingRule::reshape({6, 4}, {4, 6});
  for (const Factor &factor : blocked.getFactors())
    EXPECT_EQ(factor.kind, FactorKind::Blocked);
}

TEST_F(ShardingRuleTest, AxesGoToTheOuterFactorFirst) {
  ShardingRule rule = ShardingRule::reshape({16}, {2, 8});
  SmallVector<FactorMismatch> mismatches;
  // Two nested axes of size 2: the first fills factor 0 (size 2), the second
  // moves on to factor 1.
  FactorSharding factors = projectToFactors(
      rule, rule.operands[0], sharding({2, 2}, {{0, 1}}), mismatches);
  EXPECT_TRUE(mismatches.empty());
  EXPECT_EQ(factors.axes[0], (SmallVector<int64_t>{0}));
  EXPECT_EQ(factors.axes[1], (SmallVector<int64_t>{1}));

  FactorMismatch mismatch;
  auto dims = dimAxesFromFactors(rule, rule.results[0], factors,
                                 MeshAttr::get(&context, {2, 2}), mismatch);
  ASSERT_TRUE(succeeded(dims));
  EXPECT_EQ((*dims)[0], (SmallVector<int64_t>{0}));
  EXPECT_EQ((*dims)[1], (SmallVector<int64_t>{1}));
}

TEST_F(ShardingRuleTest, StraddlingSplitIsReported) {
  ShardingRule rule = ShardingRule::reshape({6}, {3, 2});
  SmallVector<FactorMismatch> mismatches;
  FactorSharding factors = projectToFactors(rule, rule.operands[0],
                                            sharding({2}, {{0}}), mismatches);
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_FALSE(mismatches[0].blocked);
  EXPECT_TRUE(factors.usedAxes().empty());
}

TEST_F(ShardingRuleTest, InnerFactorSplitIsNotExpressible) {
  // Merge [4, 8] -> [32] with only the inner dim split.
  ShardingRule rule = ShardingRule::reshape({4, 8}, {32});
  SmallVector<FactorMismatch> mismatches;
  FactorSharding factors = projectToFactors(
      rule, rule.operands[0], sharding({2}, {{}, {0}}), mismatches);
  FactorMismatch mismatch;
  EXPECT_TRUE(failed(dimAxesFromFactors(rule, rule.results[0], factors,
                                        MeshAttr::get(&context, {2}),
                                        mismatch)));
  EXPECT_EQ(mismatch.dim, 0);
}

TEST_F(ShardingRuleTest, BlockedFactorsAreReportedAsBlocked) {
  ShardingRule rule;
  DimFactors dims(1);
  rule.addOwnFactor(dims, 0, 8, FactorKind::Blocked);
  SmallVector<FactorMismatch> mismatches;
  projectToFactors(rule, dims, sharding({2}, {{0}}), mismatches);
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_TRUE(mismatches[0].blocked);
}

} // namespace
