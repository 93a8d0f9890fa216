//===- CudaMemoryTest.cpp - device memory the CUDA backend holds ---------===//

#include "CudaTestSupport.h"

using CudaMemory = CudaTest;

TEST_F(CudaMemory, ThePeakCountsBuffersWhileTheyLive) {
  // Larger than what the other tests hold at once.
  constexpr int64_t kBytes = int64_t(256) << 20;
  ASSERT_LT(fuser_device_memory_peak_bytes(), 2 * kBytes);
  // Two buffers at once, then one at a time: the peak is the pair's.
  {
    DeviceTensor<float> first({kBytes / 4}, FUSER_F32),
        second({kBytes / 4}, FUSER_F32);
  }
  int64_t pair = fuser_device_memory_peak_bytes();
  EXPECT_GE(pair, 2 * kBytes);
  for (int buffer = 0; buffer < 3; ++buffer) {
    DeviceTensor<float> alone({kBytes / 4}, FUSER_F32);
  }
  EXPECT_EQ(fuser_device_memory_peak_bytes(), pair);
  // Host memory is not the device's.
  void *host = fuser_allocate(3 * kBytes, FUSER_MEMORY_HOST, 0);
  ASSERT_NE(host, nullptr) << fuser_last_error();
  EXPECT_EQ(fuser_device_memory_peak_bytes(), pair);
  fuser_deallocate(host);
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
}
