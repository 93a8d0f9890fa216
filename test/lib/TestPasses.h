//===- TestPasses.h - registration of the test passes -----------*- C++ -*-===//

#ifndef FUSER_TEST_LIB_TESTPASSES_H
#define FUSER_TEST_LIB_TESTPASSES_H

namespace fuser::test {
/// Registers the passes that test the compiler's analyses from lit
/// (test-alias-analysis, test-crash, test-sharding-rules), for the tools
/// that run lit inputs: fuser-opt and fuser-fuzz.
void registerTestPasses();
} // namespace fuser::test

#endif // FUSER_TEST_LIB_TESTPASSES_H
