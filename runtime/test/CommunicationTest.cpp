//===- CommunicationTest.cpp - teams and communications over MPI ----------===//

#include "TestBuffers.h"
#include "TestTeams.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(Teams, FollowTheMeshAxes) {
  if (worldSize() != 4)
    GTEST_SKIP() << "needs 4 ranks";
  // Devices [[0, 2], [1, 3]]: axis 1 pairs 0 with 2 and 1 with 3.
  int64_t shape[] = {2, 2}, devices[] = {0, 2, 1, 3}, axis1[] = {1},
          axis0[] = {0};
  FuserTeam *row = fuser_team(rank(), shape, 2, devices, axis1, 1);
  FuserTeam *column = fuser_team(rank(), shape, 2, devices, axis0, 1);
  ASSERT_NE(row, nullptr) << fuser_last_error();
  ASSERT_NE(column, nullptr) << fuser_last_error();
  EXPECT_EQ(fuser_team_size(row), 2);
  EXPECT_EQ(fuser_team_index(row), rank() / 2);
  EXPECT_EQ(fuser_team_index(column), rank() % 2);
  // Asking again gives the cached team.
  EXPECT_EQ(fuser_team(rank(), shape, 2, devices, axis1, 1), row);
  // An allreduce on the row team sums the pair's ranks.
  auto input = f32({1}, {static_cast<float>(rank())});
  auto output = f32({1}, {0});
  expectCompletes(fuser_allreduce(row, input.view(), output.view(), FUSER_SUM));
  EXPECT_EQ(output.data[0], static_cast<float>(rank() % 2 == 0 ? 2 : 4));
}

TEST(Teams, RankOutsideTheMeshGetsTheEmptyTeam) {
  int64_t shape[] = {1}, devices[] = {worldSize() - 1}, axes[] = {0};
  if (rank() == worldSize() - 1)
    return;
  FuserTeam *team = fuser_team(rank(), shape, 1, devices, axes, 1);
  ASSERT_NE(team, nullptr) << fuser_last_error();
  EXPECT_EQ(fuser_team_size(team), 0);
  EXPECT_EQ(fuser_team_index(team), 0);
  auto buffer = f32({1}, {0});
  EXPECT_EQ(fuser_allreduce(team, buffer.view(), buffer.view(), FUSER_SUM),
            nullptr);
  EXPECT_NE(std::string(fuser_last_error())
                .find("on the team of a rank outside the mesh"),
            std::string::npos)
      << fuser_last_error();
}

TEST(Collectives, AllgatherConcatenatesInTeamOrder) {
  auto input = f32({2}, {rank() * 10.f, rank() * 10.f + 1});
  auto output = f32({2 * worldSize()}, std::vector<float>(2 * worldSize()));
  expectCompletes(fuser_allgather(world(), input.view(), output.view()));
  for (int64_t r = 0; r < worldSize(); ++r) {
    EXPECT_EQ(output.data[2 * r], r * 10.f);
    EXPECT_EQ(output.data[2 * r + 1], r * 10.f + 1);
  }
}

TEST(Collectives, AllreduceKinds) {
  float n = static_cast<float>(worldSize());
  float sumOfRanks = n * (n - 1) / 2;
  for (auto [kind, expected] :
       {std::pair{FUSER_SUM, sumOfRanks}, {FUSER_MAX, n - 1}, {FUSER_MIN, 0.f},
        {FUSER_AVG, sumOfRanks / n}}) {
    auto input = f32({3}, std::vector<float>(3, static_cast<float>(rank())));
    auto output = f32({3}, std::vector<float>(3));
    expectCompletes(fuser_allreduce(world(), input.view(), output.view(), kind));
    EXPECT_EQ(output.data[2], expected) << "reduction kind " << kind;
  }
}

TEST(Collectives, AllreduceOfBfloat16AddsInFloat) {
  // 1.5 + 2.5 (+ ...) is exact in bf16.
  Tensor<uint16_t> input({2}, {bf16Bits(1.5f), bf16Bits(rank() + 1.f)},
                         FUSER_BF16);
  Tensor<uint16_t> output({2}, {0, 0}, FUSER_BF16);
  expectCompletes(
      fuser_allreduce(world(), input.view(), output.view(), FUSER_SUM));
  float n = static_cast<float>(worldSize());
  EXPECT_EQ(bf16Value(output.data[0]), 1.5f * n);
  EXPECT_EQ(bf16Value(output.data[1]), n * (n + 1) / 2);
}

TEST(Collectives, ReduceScatterHandsEachMemberItsBlock) {
  std::vector<float> values;
  for (int64_t i = 0; i < 2 * worldSize(); ++i)
    values.push_back(static_cast<float>(i + rank()));
  auto input = f32({2 * worldSize()}, values);
  auto output = f32({2}, {0, 0});
  expectCompletes(fuser_reduce_scatter(world(), input.view(), output.view(),
                                       FUSER_SUM));
  float n = static_cast<float>(worldSize());
  EXPECT_EQ(output.data[0], n * (2 * rank()) + n * (n - 1) / 2);
}

TEST(Collectives, RootedCollectives) {
  int64_t root = worldSize() - 1;
  float r = static_cast<float>(rank());
  // broadcast: every output is the root's input.
  auto source = f32({2}, {r, r});
  auto copy = f32({2}, {-1, -1});
  expectCompletes(fuser_broadcast(world(), source.view(), copy.view(), root));
  EXPECT_EQ(copy.data[1], static_cast<float>(root));
  // reduce: the root's output is the maximum.
  auto maximum = f32({2}, {0, 0});
  expectCompletes(
      fuser_reduce(world(), source.view(), maximum.view(), FUSER_MAX, root));
  if (rank() == root) {
    EXPECT_EQ(maximum.data[0], static_cast<float>(worldSize() - 1));
  }
  // gather then scatter round-trips each rank's piece.
  auto gathered = f32({2 * worldSize()}, std::vector<float>(2 * worldSize()));
  expectCompletes(fuser_gather(world(), source.view(), gathered.view(), root));
  auto back = f32({2}, {-1, -1});
  expectCompletes(fuser_scatter(world(), gathered.view(), back.view(), root));
  EXPECT_EQ(back.data[0], r);
  EXPECT_EQ(back.data[1], r);
}

TEST(Collectives, AllToAllTransposesBlocks) {
  std::vector<float> values;
  for (int64_t peer = 0; peer < worldSize(); ++peer)
    values.push_back(static_cast<float>(rank() * 100 + peer));
  auto input = f32({worldSize()}, values);
  auto output = f32({worldSize()}, std::vector<float>(worldSize()));
  expectCompletes(fuser_all_to_all(world(), input.view(), output.view()));
  for (int64_t peer = 0; peer < worldSize(); ++peer)
    EXPECT_EQ(output.data[peer], static_cast<float>(peer * 100 + rank()));
}

TEST(PointToPoint, RingExchangeInOneGroup) {
  FuserTeam *team = world();
  int64_t n = worldSize();
  if (n < 2)
    GTEST_SKIP() << "needs 2 ranks";
  auto mine = f32({4}, std::vector<float>(4, static_cast<float>(rank())));
  auto theirs = f32({4}, std::vector<float>(4, -1));
  FuserWork *works[] = {fuser_send(team, mine.view(), (rank() + 1) % n),
                        fuser_recv(team, theirs.view(), (rank() + n - 1) % n)};
  expectCompletes(fuser_group(works, 2));
  EXPECT_EQ(theirs.data[3], static_cast<float>((rank() + n - 1) % n));
}

TEST(Errors, BufferSizesAreChecked) {
  auto input = f32({2}, {0, 0});
  auto output = f32({3}, {0, 0, 0});
  EXPECT_EQ(fuser_allgather(world(), input.view(), output.view()), nullptr);
  std::string message = fuser_last_error();
  EXPECT_NE(message.find("allgather: input f32[2] and output f32[3] do not "
                         "fit on a team of"),
            std::string::npos)
      << message;
}

TEST(Errors, GappedBuffersAreRefused) {
  auto gapped = f32({2}, {0, 0, 0, 0}, {2});
  EXPECT_EQ(fuser_allreduce(world(), gapped.view(), gapped.view(), FUSER_SUM),
            nullptr);
  EXPECT_NE(std::string(fuser_last_error()).find("has gaps"),
            std::string::npos);
}

TEST(Errors, WrongWorldSize) {
  EXPECT_EQ(fuser_expect_world_size(worldSize() + 1), FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()),
            "the program runs on " + std::to_string(worldSize() + 1) +
                " ranks but the world has " + std::to_string(worldSize()) +
                " (start it with mpirun -np " +
                std::to_string(worldSize() + 1) + ")");
  EXPECT_EQ(fuser_expect_world_size(worldSize()), FUSER_OK);
}

TEST(Errors, WaitIsBounded) {
  // Rank 0 waits for a message nobody sends: the wait gives up within the
  // timeout (FUSER_TIMEOUT_S) and says what it waited for.
  if (worldSize() < 2)
    GTEST_SKIP() << "needs 2 ranks";
  if (rank() != 0)
    return;
  auto buffer = f32({1}, {0});
  FuserWork *work = fuser_recv(world(), buffer.view(), 1);
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(fuser_wait(work), FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error())
                .find("receive from member 1 on a team of"),
            std::string::npos)
      << fuser_last_error();
  EXPECT_NE(std::string(fuser_last_error()).find("did not complete within"),
            std::string::npos);
}

TEST(Streams, TheHostBackendRunsOnNoDevice) {
  EXPECT_EQ(fuser_device_index(), -1);
}

TEST(Streams, TheHostBackendHasNoStreamsToWrap) {
  int native = 0;
  EXPECT_EQ(fuser_wrap_stream(&native), nullptr);
  EXPECT_NE(std::string(fuser_last_error()).find("no streams to wrap"),
            std::string::npos)
      << fuser_last_error();
}

} // namespace
