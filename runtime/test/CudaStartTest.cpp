//===- CudaStartTest.cpp - starting the CUDA backend ----------------------===//
//
// What the CUDA backend reads before it takes a GPU. Runs where there is no
// GPU too: the setting is checked first.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

TEST(CudaStart, AnInvalidRanksPerGpuIsReported) {
  for (const char *value : {"0", "two", "65"}) {
    ASSERT_EQ(setenv("FUSER_RANKS_PER_GPU", value, 1), 0);
    FuserStatus status = fuser_use_backend(FUSER_BACKEND_CUDA);
    unsetenv("FUSER_RANKS_PER_GPU");
    fuser_use_backend(FUSER_BACKEND_HOST);
    ASSERT_EQ(status, FUSER_FAILED) << value;
    EXPECT_NE(std::string(fuser_last_error())
                  .find(std::string("FUSER_RANKS_PER_GPU is '") + value +
                        "'; it takes the number of ranks that share each "
                        "GPU, 1 to 64"),
              std::string::npos)
        << fuser_last_error();
  }
}

} // namespace
