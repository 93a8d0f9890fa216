//===- KernelLaunchTest.cpp - what every backend checks of kernel launches ===//
//
// Launch sizes are checked before the backend is asked, and the host
// backend refuses GPU kernels; the launches themselves are GPU tests
// (CudaKernelTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <string>

namespace {

/// The launch of a kernel without parameters whose image is never read
/// (each case fails before).
FuserStatus launch(void **function, int64_t gridX, int64_t blockX,
                   int64_t blockY, int64_t blockZ) {
  return fuser_launch_kernel("", "scale", function, gridX, 1, 1, blockX, blockY,
                             blockZ, nullptr);
}

void expectError(const std::string &expected) {
  EXPECT_NE(std::string(fuser_last_error()).find(expected), std::string::npos)
      << fuser_last_error();
}

TEST(KernelLaunch, SizesOutOfBoundsAreReported) {
  void *function = nullptr;
  EXPECT_EQ(launch(&function, 0, 32, 1, 1), FUSER_FAILED);
  expectError("launch of kernel 'scale': grid 0 x 1 x 1 is out of bounds: a "
              "grid has 1 to 2147483647 x 65535 x 65535 blocks");
  EXPECT_EQ(launch(&function, 1, 32, 1, 65), FUSER_FAILED);
  expectError("block 32 x 1 x 65 is out of bounds: a block has 1 to 1024 x "
              "1024 x 64 threads");
  EXPECT_EQ(launch(&function, 1, 64, 32, 1), FUSER_FAILED);
  expectError("block 64 x 32 x 1 has 2048 threads; a block has at most 1024");
  EXPECT_EQ(function, nullptr);
}

TEST(KernelLaunch, HostBackendRefusesGpuKernels) {
  ASSERT_EQ(fuser_current_backend(), FUSER_BACKEND_HOST);
  void *function = nullptr;
  EXPECT_EQ(launch(&function, 1, 32, 1, 1), FUSER_FAILED);
  expectError("launch of kernel 'scale': a GPU kernel cannot run on the host "
              "backend (CPU ranks)");
  EXPECT_EQ(function, nullptr);
}

} // namespace
