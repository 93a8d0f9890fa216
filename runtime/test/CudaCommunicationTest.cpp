//===- CudaCommunicationTest.cpp - NCCL, CUDA IPC and memory on GPUs -----===//
//
// Run under mpirun with one rank per GPU (or FUSER_RANKS_PER_GPU ranks);
// skipped where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"
#include "TestTeams.h"

#include <mpi.h>

#include <cstdlib>
#include <string>

namespace {

std::vector<float> iota(int64_t count, float start) {
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = start + static_cast<float>(i);
  return values;
}

using CudaCollectives = CudaTest;

TEST_F(CudaCollectives, AllgatherConcatenatesInTeamOrder) {
  DeviceTensor<float> input({3}, FUSER_F32);
  DeviceTensor<float> output({3 * worldSize()}, FUSER_F32);
  input.upload(iota(3, rank() * 10.f));
  expectCompletes(fuser_allgather(world(), input.view(), output.view()));
  std::vector<float> gathered = output.download();
  for (int64_t r = 0; r < worldSize(); ++r)
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_EQ(gathered[3 * r + i], r * 10.f + i);
}

TEST_F(CudaCollectives, AllreduceKindsInF32AndBf16) {
  float n = static_cast<float>(worldSize());
  float sumOfRanks = n * (n - 1) / 2, product = 1;
  for (int64_t r = 0; r < worldSize(); ++r)
    product *= static_cast<float>(r + 1);
  for (auto [kind, expected] :
       {std::pair{FUSER_SUM, sumOfRanks + n}, {FUSER_PROD, product},
        {FUSER_MAX, n}, {FUSER_MIN, 1.f}, {FUSER_AVG, (sumOfRanks + n) / n}}) {
    float mine = static_cast<float>(rank() + 1);
    DeviceTensor<float> input({4}, FUSER_F32), output({4}, FUSER_F32);
    input.upload(std::vector<float>(4, mine));
    expectCompletes(
        fuser_allreduce(world(), input.view(), output.view(), kind));
    for (float value : output.download())
      EXPECT_FLOAT_EQ(value, expected) << "kind " << kind;

    DeviceTensor<uint16_t> halfInput({4}, FUSER_BF16), halfOutput({4}, FUSER_BF16);
    halfInput.upload(std::vector<uint16_t>(4, bf16Bits(mine)));
    expectCompletes(
        fuser_allreduce(world(), halfInput.view(), halfOutput.view(), kind));
    for (uint16_t bits : halfOutput.download())
      EXPECT_NEAR(bf16Value(bits), expected, 1e-2 * expected) << "kind " << kind;
  }
}

TEST_F(CudaCollectives, ReduceScatterGivesMemberIBlockI) {
  int64_t n = worldSize();
  DeviceTensor<float> input({2 * n}, FUSER_F32), output({2}, FUSER_F32);
  input.upload(iota(2 * n, static_cast<float>(rank())));
  expectCompletes(
      fuser_reduce_scatter(world(), input.view(), output.view(), FUSER_SUM));
  float sumOfRanks = static_cast<float>(n * (n - 1) / 2);
  std::vector<float> mine = output.download();
  for (int64_t i = 0; i < 2; ++i)
    EXPECT_EQ(mine[i], sumOfRanks + n * static_cast<float>(2 * rank() + i));
}

TEST_F(CudaCollectives, RootedCollectives) {
  int64_t n = worldSize(), root = n - 1;
  DeviceTensor<float> input({2}, FUSER_F32), output({2}, FUSER_F32);
  input.upload(iota(2, rank() * 10.f));
  // reduce: the root gets the sum.
  expectCompletes(
      fuser_reduce(world(), input.view(), output.view(), FUSER_SUM, root));
  if (rank() == root) {
    std::vector<float> sum = output.download();
    float ranks = static_cast<float>(n * (n - 1) / 2);
    EXPECT_EQ(sum[0], 10 * ranks);
    EXPECT_EQ(sum[1], 10 * ranks + n);
  }
  // broadcast: everyone gets the root's input.
  expectCompletes(fuser_broadcast(world(), input.view(), output.view(), root));
  EXPECT_EQ(output.download(), iota(2, root * 10.f));
  // gather onto the root, then scatter back.
  DeviceTensor<float> all({2 * n}, FUSER_F32), back({2}, FUSER_F32);
  expectCompletes(fuser_gather(world(), input.view(), all.view(), root));
  if (rank() == root) {
    std::vector<float> gathered = all.download();
    for (int64_t r = 0; r < n; ++r)
      EXPECT_EQ(gathered[2 * r + 1], r * 10.f + 1);
  }
  expectCompletes(fuser_scatter(world(), all.view(), back.view(), root));
  EXPECT_EQ(back.download(), iota(2, rank() * 10.f));
}

TEST_F(CudaCollectives, AllToAllSwapsBlocks) {
  int64_t n = worldSize();
  DeviceTensor<float> input({n, 2}, FUSER_F32), output({n, 2}, FUSER_F32);
  input.upload(iota(2 * n, rank() * 100.f));
  expectCompletes(fuser_all_to_all(world(), input.view(), output.view()));
  std::vector<float> received = output.download();
  for (int64_t from = 0; from < n; ++from)
    for (int64_t i = 0; i < 2; ++i)
      EXPECT_EQ(received[2 * from + i], from * 100.f + 2 * rank() + i);
}

TEST_F(CudaCollectives, GroupedSendRecvRing) {
  int64_t n = worldSize();
  if (n < 2)
    GTEST_SKIP() << "needs 2 ranks";
  DeviceTensor<uint16_t> out({5}, FUSER_BF16), in({5}, FUSER_BF16);
  out.upload(std::vector<uint16_t>(5, bf16Bits(static_cast<float>(rank() + 1))));
  // Every rank sends first and receives second: only a group posts both
  // directions together without a deadlock.
  FuserWork *works[] = {fuser_send(world(), out.view(), (rank() + 1) % n),
                        fuser_recv(world(), in.view(), (rank() + n - 1) % n)};
  expectCompletes(fuser_group(works, 2));
  for (uint16_t bits : in.download())
    EXPECT_EQ(bf16Value(bits), static_cast<float>((rank() + n - 1) % n + 1));
}

TEST_F(CudaCollectives, WrongSizesAreReported) {
  DeviceTensor<float> input({3}, FUSER_F32), output({3}, FUSER_F32);
  if (worldSize() < 2)
    GTEST_SKIP() << "needs 2 ranks";
  EXPECT_EQ(fuser_allgather(world(), input.view(), output.view()), nullptr);
  EXPECT_NE(std::string(fuser_last_error()).find("do not fit on a team of"),
            std::string::npos)
      << fuser_last_error();
}

using CudaMemory = CudaTest;

TEST_F(CudaMemory, SteadyStateAllocatesNothing) {
  auto cycle = [] {
    for (int64_t bytes : {1 << 20, 3 << 20, 1 << 10}) {
      void *memory = fuser_allocate(bytes, FUSER_MEMORY_DEVICE, 1);
      ASSERT_NE(memory, nullptr) << fuser_last_error();
      fuser_deallocate(memory);
    }
    void *symmetric = fuser_allocate(1 << 16, FUSER_MEMORY_SYMMETRIC, 0);
    ASSERT_NE(symmetric, nullptr) << fuser_last_error();
    fuser_deallocate(symmetric);
    ASSERT_NE(fuser_cached_buffer("cuda_test_cached", 4096, FUSER_MEMORY_DEVICE),
              nullptr)
        << fuser_last_error();
  };
  cycle();
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  int64_t warm = fuser_device_allocation_count();
  EXPECT_GT(warm, 0);
  for (int i = 0; i < 10; ++i)
    cycle();
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(fuser_device_allocation_count(), warm);
}

TEST_F(CudaMemory, EachRankRunsOnTheGpuOfItsIndexInTheNode) {
  // The tests run on one node: a rank's index there is its rank, and
  // FUSER_RANKS_PER_GPU ranks share each GPU.
  const char *shared = std::getenv("FUSER_RANKS_PER_GPU");
  EXPECT_EQ(fuser_device_index(),
            fuser_rank() / (shared ? std::atoi(shared) : 1));
}

TEST_F(CudaMemory, StridedCopiesThroughTheCopyEngine) {
  // Rows 1..2 of a [4, 6] matrix, columns 2..5: a strided 2-D view.
  DeviceTensor<float> matrix({4, 6}, FUSER_F32);
  matrix.upload(iota(24, 0));
  int64_t sizes[] = {2, 4}, strides[] = {6, 1};
  FuserBuffer view = *matrix.view();
  view.offset = 8;
  view.sizes = sizes;
  view.strides = strides;
  DeviceTensor<float> dense({2, 4}, FUSER_F32);
  ASSERT_EQ(fuser_copy(&view, dense.view()), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(dense.download(),
            (std::vector<float>{8, 9, 10, 11, 14, 15, 16, 17}));
  // A transposing copy is a kernel's work: refused with a message.
  int64_t transposed[] = {1, 6};
  view.strides = transposed;
  EXPECT_EQ(fuser_copy(&view, dense.view()), FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error()).find("transposes"),
            std::string::npos)
      << fuser_last_error();
}

TEST_F(CudaMemory, BroadcastRowsCopyOneByOne) {
  // A row repeated 3 times (stride 0), as a returned broadcast view holds
  // it: no pitch the copy engine takes.
  DeviceTensor<float> row({4}, FUSER_F32);
  row.upload(iota(4, 1));
  int64_t sizes[] = {3, 4}, strides[] = {0, 1};
  FuserBuffer view = *row.view();
  view.rank = 2;
  view.sizes = sizes;
  view.strides = strides;
  DeviceTensor<float> dense({3, 4}, FUSER_F32);
  ASSERT_EQ(fuser_copy(&view, dense.view()), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(dense.download(),
            (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
}

using CudaIpc = CudaTest;

TEST_F(CudaIpc, RingOfPeerCopiesSharesOnce) {
  int64_t n = worldSize();
  if (n < 2)
    GTEST_SKIP() << "needs 2 ranks";
  // Twice: a freed symmetric buffer is reused, and shared anew.
  for (int buffer = 0; buffer < 2; ++buffer) {
    DeviceTensor<uint16_t> shared({64}, FUSER_BF16, {}, 0,
                                  FUSER_MEMORY_SYMMETRIC);
    DeviceTensor<uint16_t> received({64}, FUSER_BF16);
    FuserIpcHandles *handles = fuser_ipc_share(world(), shared.view());
    ASSERT_TRUE(onEveryRank(handles)) << fuser_last_error();
    int64_t afterShare = fuser_device_allocation_count();
    for (int round = 0; round < 3; ++round) {
      float mine = static_cast<float>(10 * round + rank());
      shared.upload(std::vector<uint16_t>(64, bf16Bits(mine)));
      // The same buffer on the same team: the same handles, nothing opened.
      ASSERT_EQ(fuser_ipc_share(world(), shared.view()), handles);
      ringStep(handles, *shared.view(), *received.view());
      bool right = true;
      for (uint16_t bits : received.download())
        right &= bf16Value(bits) ==
                 static_cast<float>(10 * round + (rank() + n - 1) % n);
      ASSERT_TRUE(onEveryRank(right)) << "buffer " << buffer << " round " << round;
    }
    EXPECT_EQ(fuser_device_allocation_count(), afterShare);
  }
}

TEST_F(CudaIpc, PoolMemoryCannotBeShared) {
  DeviceTensor<float> pooled({16}, FUSER_F32);
  EXPECT_EQ(fuser_ipc_share(world(), pooled.view()), nullptr);
  EXPECT_NE(std::string(fuser_last_error()).find("not symmetric or cached"),
            std::string::npos)
      << fuser_last_error();
}

TEST_F(CudaIpc, TeamsAcrossNodesCannotShare) {
  // FUSER_RANKS_PER_NODE=1: every peer is on another node, out of reach of
  // CUDA IPC even where the GPUs share a host.
  if (fuser_node_count() < 2)
    GTEST_SKIP() << "needs ranks on 2 nodes (FUSER_RANKS_PER_NODE)";
  DeviceTensor<float> shared({16}, FUSER_F32, {}, 0, FUSER_MEMORY_SYMMETRIC);
  EXPECT_EQ(fuser_ipc_share(world(), shared.view()), nullptr);
  EXPECT_NE(std::string(fuser_last_error()).find("are on different nodes"),
            std::string::npos)
      << fuser_last_error();
}

// Last: it leaves the communicators aborted (they are made again on use).
TEST_F(CudaIpc, AWaitWithoutSignalTimesOut) {
  int64_t n = worldSize();
  if (n < 2)
    GTEST_SKIP() << "needs 2 ranks";
  DeviceTensor<float> shared({4}, FUSER_F32, {}, 0, FUSER_MEMORY_SYMMETRIC);
  FuserIpcHandles *handles = fuser_ipc_share(world(), shared.view());
  ASSERT_TRUE(onEveryRank(handles)) << fuser_last_error();
  int64_t previous = (rank() + n - 1) % n, next = (rank() + 1) % n;
  // Nobody signals: the stream waits until the bound, and the host is told.
  EXPECT_EQ(fuser_ipc_wait(handles, previous), FUSER_OK);
  EXPECT_EQ(fuser_synchronize(), FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error()).find("did not complete within"),
            std::string::npos)
      << fuser_last_error();
  // Every rank has timed out before any signals; then the late signal, from
  // another stream, releases the waiting one.
  MPI_Barrier(MPI_COMM_WORLD);
  FuserStream *main = fuser_get_current_stream();
  fuser_set_current_stream(fuser_stream_from_pool(0));
  EXPECT_EQ(fuser_ipc_signal(handles, next), FUSER_OK);
  fuser_set_current_stream(main);
  EXPECT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
}

} // namespace
