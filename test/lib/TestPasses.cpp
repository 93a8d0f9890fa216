//===- TestPasses.cpp - registration of the test passes ------------------===//

#include "TestPasses.h"

namespace fuser::test {
void registerTestAliasAnalysisPass();
void registerTestCrashPass();
void registerTestShardingRulesPass();

void registerTestPasses() {
  registerTestAliasAnalysisPass();
  registerTestCrashPass();
  registerTestShardingRulesPass();
}
} // namespace fuser::test
