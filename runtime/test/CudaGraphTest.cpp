//===- CudaGraphTest.cpp - executions replayed as CUDA graphs; timers -----===//
//
// What compiled programs issue (a library call on a pool stream forked
// from the current one and joined back, a collective, IPC signals and
// waits, allocations and frees) captured once after a warm-up and
// replayed: replays compute from the inputs' current values into the
// buffers the capture allocated, allocate nothing, and renumber IPC
// signals so that they mix with executions that are not replayed. What
// cannot be replayed is refused, naming the call. Run under mpirun with
// one rank per GPU; skipped where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include <memory>
#include <string>

namespace {

constexpr int64_t kRows = 4, kDepth = 8, kColumns = 4;

void expectError(const std::string &expected) {
  EXPECT_NE(std::string(fuser_last_error()).find(expected), std::string::npos)
      << fuser_last_error();
}

/// Destroys the graph when the test ends, before the buffers it uses.
using GraphHandle = std::unique_ptr<FuserGraph, decltype(&fuser_graph_destroy)>;

GraphHandle endCapture() {
  return GraphHandle(fuser_graph_end_capture(), &fuser_graph_destroy);
}

/// A [kRows, kColumns] f32 view of device memory.
FuserBuffer resultView(void *memory) {
  static const int64_t sizes[] = {kRows, kColumns}, strides[] = {kColumns, 1};
  return {memory, memory, 0, 2, sizes, strides, FUSER_F32};
}

std::vector<float> readResult(void *memory) {
  std::vector<float> values(kRows * kColumns);
  FuserBuffer from = resultView(memory), to = resultView(values.data());
  EXPECT_EQ(fuser_copy(&from, &to), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  return values;
}

/// An execution as a compiled program issues it: x w on a pool stream
/// forked from the current one and joined back, into a buffer it frees,
/// summed over the ranks into the buffer it returns.
void *execute(const FuserBuffer &x, const FuserBuffer &w) {
  size_t bytes = kRows * kColumns * sizeof(float);
  void *product = fuser_allocate(bytes, FUSER_MEMORY_DEVICE, 0);
  void *out = fuser_allocate(bytes, FUSER_MEMORY_DEVICE, 0);
  EXPECT_TRUE(product && out) << fuser_last_error();
  FuserBuffer productView = resultView(product), outView = resultView(out);
  FuserStream *main = fuser_get_current_stream(),
              *pool = fuser_stream_from_pool(0);
  fuser_set_current_stream(pool);
  fuser_synchronize_stream(main);
  EXPECT_EQ(fuser_matmul(&x, &w, &productView, 0, FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  fuser_set_current_stream(main);
  fuser_synchronize_stream(pool);
  expectCompletes(fuser_allreduce(world(), &productView, &outView, FUSER_SUM));
  fuser_deallocate(product);
  return out;
}

/// Every element of x on rank r in round k is r + 1 + 10 k, and w is all
/// ones: each result element is kDepth times their sum over the ranks.
float inputValue(int round) { return rank() + 1 + 10.f * round; }
float expectedResult(int round) {
  float total = 0;
  for (int64_t r = 0; r < worldSize(); ++r)
    total += r + 1 + 10.f * round;
  return kDepth * total;
}

using CudaGraphs = CudaTest;

TEST_F(CudaGraphs, ReplaysComputeFromTheInputsIntoTheCapturedBuffers) {
  DeviceTensor<float> x({kRows, kDepth}, FUSER_F32),
      w({kDepth, kColumns}, FUSER_F32);
  w.upload(std::vector<float>(kDepth * kColumns, 1.f));
  x.upload(std::vector<float>(kRows * kDepth, inputValue(0)));
  // The warm-up sets up the communicator, the workspace and the stream.
  void *warm = execute(*x.view(), *w.view());
  for (float value : readResult(warm))
    ASSERT_EQ(value, expectedResult(0));
  fuser_deallocate(warm);

  ASSERT_EQ(fuser_graph_begin_capture(), FUSER_OK) << fuser_last_error();
  void *out = execute(*x.view(), *w.view());
  GraphHandle graph = endCapture();
  ASSERT_TRUE(onEveryRank(graph != nullptr)) << fuser_last_error();
  int64_t allocations = fuser_device_allocation_count();
  for (int round = 1; round <= 3; ++round) {
    x.upload(std::vector<float>(kRows * kDepth, inputValue(round)));
    ASSERT_EQ(fuser_graph_launch(graph.get()), FUSER_OK) << fuser_last_error();
    bool right = true;
    for (float value : readResult(out))
      right &= value == expectedResult(round);
    ASSERT_TRUE(onEveryRank(right)) << "round " << round;
    // The graph owns its results: releasing them leaves them to it.
    fuser_deallocate(out);
  }
  EXPECT_EQ(fuser_device_allocation_count(), allocations);
}

TEST_F(CudaGraphs, IpcSignalsAreRenumberedForEachReplay) {
  int64_t n = worldSize();
  if (n < 2)
    GTEST_SKIP() << "needs 2 ranks";
  DeviceTensor<uint16_t> shared({64}, FUSER_BF16, {}, 0,
                                FUSER_MEMORY_SYMMETRIC);
  DeviceTensor<uint16_t> received({64}, FUSER_BF16);
  FuserIpcHandles *handles = fuser_ipc_share(world(), shared.view());
  ASSERT_TRUE(onEveryRank(handles)) << fuser_last_error();
  ringStep(handles, *shared.view(), *received.view());
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();

  ASSERT_EQ(fuser_graph_begin_capture(), FUSER_OK) << fuser_last_error();
  ringStep(handles, *shared.view(), *received.view());
  GraphHandle graph = endCapture();
  ASSERT_TRUE(onEveryRank(graph != nullptr)) << fuser_last_error();
  // Replays one after another, and around a step that is not replayed:
  // each waits for the signals of its own round.
  for (int round = 1; round <= 4; ++round) {
    shared.upload(
        std::vector<uint16_t>(64, bf16Bits(static_cast<float>(10 * round + rank()))));
    if (round == 3)
      ringStep(handles, *shared.view(), *received.view());
    else
      ASSERT_EQ(fuser_graph_launch(graph.get()), FUSER_OK)
          << fuser_last_error();
    bool right = true;
    for (uint16_t bits : received.download())
      right &= bf16Value(bits) == static_cast<float>(10 * round + (rank() + n - 1) % n);
    ASSERT_TRUE(onEveryRank(right)) << "round " << round;
  }
}

TEST_F(CudaGraphs, WhatCannotBeReplayedIsRefusedByName) {
  DeviceTensor<float> from({16}, FUSER_F32), to({16}, FUSER_F32);
  FuserStream *main = fuser_get_current_stream(),
              *outside = fuser_stream_from_pool(5);
  ASSERT_EQ(fuser_graph_begin_capture(), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(fuser_graph_begin_capture(), FUSER_FAILED);
  expectError("graph_begin_capture: a capture is already under way");
  EXPECT_EQ(fuser_synchronize(), FUSER_FAILED);
  expectError("fuser_synchronize: waiting for the device cannot be captured "
              "into a CUDA graph: the host blocks");
  EXPECT_EQ(fuser_cached_buffer("cuda_graph_test", 256, FUSER_MEMORY_DEVICE),
            nullptr);
  expectError("hostir.cached_buffer: allocating cached buffer "
              "'cuda_graph_test' cannot be captured into a CUDA graph: it is "
              "set up on first use");
  EXPECT_EQ(fuser_allocate(256, FUSER_MEMORY_SYMMETRIC, 0), nullptr);
  expectError("hostir.allocate: allocating symmetric memory cannot be "
              "captured");
  // A stream that never waited for the captured one would run its work
  // now, once.
  fuser_set_current_stream(outside);
  EXPECT_EQ(fuser_copy(from.view(), to.view()), FUSER_FAILED);
  expectError("hostir.copy: work issued on a stream outside the CUDA graph "
              "capture");
  fuser_set_current_stream(main);
  // Refused calls leave the capture as it was: it goes on and ends.
  EXPECT_EQ(fuser_copy(from.view(), to.view()), FUSER_OK) << fuser_last_error();
  GraphHandle graph = endCapture();
  EXPECT_NE(graph.get(), nullptr) << fuser_last_error();
  EXPECT_EQ(fuser_graph_end_capture(), nullptr);
  expectError("graph_end_capture: no capture is under way");
  EXPECT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
}

// Last of its suite: the stream it forks is left to the failed capture.
TEST_F(CudaGraphs, AStreamThatDoesNotRejoinIsReported) {
  DeviceTensor<float> from({16}, FUSER_F32), to({16}, FUSER_F32);
  FuserStream *main = fuser_get_current_stream(),
              *pool = fuser_stream_from_pool(63);
  ASSERT_EQ(fuser_graph_begin_capture(), FUSER_OK) << fuser_last_error();
  fuser_set_current_stream(pool);
  fuser_synchronize_stream(main);
  EXPECT_EQ(fuser_copy(from.view(), to.view()), FUSER_OK) << fuser_last_error();
  fuser_set_current_stream(main);
  EXPECT_EQ(endCapture().get(), nullptr);
  expectError("graph_end_capture: work was issued on a stream that never "
              "rejoined the captured stream");
  EXPECT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
}

using CudaTimers = CudaTest;

TEST_F(CudaTimers, EventsMeasureTheDeviceWorkBetweenThem) {
  // Ten copies of 64 MiB: well over 100 us of device time, while the host
  // issues them in tens of microseconds.
  DeviceTensor<float> from({1 << 24}, FUSER_F32), to({1 << 24}, FUSER_F32);
  FuserTimer *timer = fuser_timer_create();
  ASSERT_NE(timer, nullptr) << fuser_last_error();
  ASSERT_EQ(fuser_timer_start(timer), FUSER_OK) << fuser_last_error();
  for (int copy = 0; copy < 10; ++copy)
    ASSERT_EQ(fuser_copy(from.view(), to.view()), FUSER_OK)
        << fuser_last_error();
  ASSERT_EQ(fuser_timer_stop(timer), FUSER_OK) << fuser_last_error();
  double microseconds = 0;
  ASSERT_EQ(fuser_timer_elapsed_us(timer, &microseconds), FUSER_OK)
      << fuser_last_error();
  // Reading and writing at less than 10 TB/s, and not for a whole second.
  EXPECT_GT(microseconds, 10 * 2 * 64.0 * (1 << 20) / 1e13 * 1e6);
  EXPECT_LT(microseconds, 1e6);
  fuser_timer_destroy(timer);
}

} // namespace
