//===- CudaTestSupport.h - device buffers for the GPU tests ---*- C++ -*-===//
//
// GPU tests select the CUDA backend for their body and skip themselves
// where it cannot run (no GPU, or a runtime built without it).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_TEST_CUDATESTSUPPORT_H
#define FUSER_RUNTIME_TEST_CUDATESTSUPPORT_H

#include "TestBuffers.h"
#include "TestTeams.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

/// Runs each test on the CUDA backend; skips it where there is none,
/// unless FUSER_EXPECT_GPU is set (as on the GPU machines, where a backend
/// that cannot start is a failure).
class CudaTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (fuser_use_backend(FUSER_BACKEND_CUDA) == FUSER_OK)
      return;
    if (std::getenv("FUSER_EXPECT_GPU"))
      FAIL() << fuser_last_error();
    GTEST_SKIP() << fuser_last_error();
  }
  void TearDown() override { fuser_use_backend(FUSER_BACKEND_HOST); }
};

/// A dense row-major device buffer of `shape` and the FuserBuffer over it,
/// filled from and read back into host values of type T (the element's
/// storage: float, uint16_t for bf16, ...). `strides` may describe another
/// view of the same storage (of `storage` elements).
template <typename T> struct DeviceTensor {
  std::vector<int64_t> sizes, strides;
  int64_t storage;
  FuserBuffer buffer;

  DeviceTensor(std::vector<int64_t> shape, FuserDType dtype,
               std::vector<int64_t> layout = {}, int64_t storageElements = 0,
               FuserMemory memory = FUSER_MEMORY_DEVICE)
      : sizes(std::move(shape)), strides(std::move(layout)) {
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    if (strides.empty()) {
      strides.assign(sizes.size(), 1);
      for (int64_t dim = static_cast<int64_t>(sizes.size()) - 2; dim >= 0;
           --dim)
        strides[dim] = strides[dim + 1] * sizes[dim + 1];
    }
    storage = storageElements ? storageElements : count;
    void *address = fuser_allocate(storage * sizeof(T), memory, /*zeroed=*/1);
    buffer = {address, address, 0, static_cast<int64_t>(sizes.size()),
              sizes.data(), strides.data(), dtype};
  }
  ~DeviceTensor() { fuser_deallocate(buffer.allocated); }
  DeviceTensor(const DeviceTensor &) = delete;
  DeviceTensor &operator=(const DeviceTensor &) = delete;

  const FuserBuffer *view() const { return &buffer; }

  /// Copies `values` (the whole storage) to the device.
  void upload(const std::vector<T> &values) {
    int64_t count[] = {storage}, unit[] = {1};
    FuserBuffer from{const_cast<T *>(values.data()),
                     const_cast<T *>(values.data()), 0, 1, count, unit,
                     buffer.dtype};
    FuserBuffer to{buffer.allocated, buffer.allocated, 0, 1, count, unit,
                   buffer.dtype};
    ASSERT_EQ(fuser_copy(&from, &to), FUSER_OK) << fuser_last_error();
    ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  }
  /// The whole storage, once the work issued so far is done.
  std::vector<T> download() {
    std::vector<T> values(storage);
    int64_t count[] = {storage}, unit[] = {1};
    FuserBuffer from{buffer.allocated, buffer.allocated, 0, 1, count, unit,
                     buffer.dtype};
    FuserBuffer to{values.data(), values.data(), 0, 1, count, unit,
                   buffer.dtype};
    EXPECT_EQ(fuser_copy(&from, &to), FUSER_OK) << fuser_last_error();
    EXPECT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
    return values;
  }
};

/// One ring step over IPC: each rank signals the next that its buffer is
/// ready, waits for the previous, and copies the previous rank's buffer.
inline void ringStep(FuserIpcHandles *handles, const FuserBuffer &shared,
                     const FuserBuffer &received) {
  int64_t n = worldSize(), next = (rank() + 1) % n,
          previous = (rank() + n - 1) % n;
  ASSERT_EQ(fuser_ipc_signal(handles, next), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(fuser_ipc_wait(handles, previous), FUSER_OK) << fuser_last_error();
  FuserBuffer peer = shared;
  peer.allocated = peer.aligned = fuser_ipc_peer_pointer(handles, previous);
  ASSERT_NE(peer.aligned, nullptr) << fuser_last_error();
  ASSERT_EQ(fuser_copy(&peer, &received), FUSER_OK) << fuser_last_error();
  // Done reading: the previous rank may overwrite its buffer.
  ASSERT_EQ(fuser_ipc_signal(handles, previous), FUSER_OK);
  ASSERT_EQ(fuser_ipc_wait(handles, next), FUSER_OK);
}

#endif // FUSER_RUNTIME_TEST_CUDATESTSUPPORT_H
