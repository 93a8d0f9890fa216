//===- TopologyTest.cpp - the node of each rank ---------------------------===//
//
// The tests run on one host: one node, unless FUSER_RANKS_PER_NODE makes
// groups of consecutive ranks simulated nodes (scripts/test.sh runs them
// so on 4 ranks as 2 nodes).
//
//===----------------------------------------------------------------------===//

#include "TestBuffers.h"
#include "TestTeams.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(Topology, NodesAreTheSimulatedGroupsOrTheHost) {
  const char *simulated = std::getenv("FUSER_RANKS_PER_NODE");
  int64_t perNode = simulated ? std::atoll(simulated) : worldSize();
  EXPECT_EQ(fuser_node_count(), worldSize() / perNode);
  for (int64_t member = 0; member < worldSize(); ++member)
    EXPECT_EQ(fuser_node_of_rank(member), member / perNode) << member;
  EXPECT_EQ(fuser_ranks_per_node(), perNode);
  EXPECT_EQ(fuser_node_of_rank(-1), -1);
  EXPECT_EQ(fuser_node_of_rank(worldSize()), -1);
}

TEST(Topology, TeamsCommunicateAcrossNodes) {
  // Every rank with its counterpart on each node (the same index within
  // it), and the whole world: an allreduce sums their ranks.
  int64_t nodes = fuser_node_count(), perNode = worldSize() / nodes;
  int64_t shape[] = {nodes, perNode}, across[] = {0};
  FuserTeam *team = fuser_team(rank(), shape, 2, nullptr, across, 1);
  ASSERT_NE(team, nullptr) << fuser_last_error();
  auto input = f32({1}, {static_cast<float>(rank())});
  auto output = f32({1}, {0});
  expectCompletes(
      fuser_allreduce(team, input.view(), output.view(), FUSER_SUM));
  float expected = 0;
  for (int64_t node = 0; node < nodes; ++node)
    expected += static_cast<float>(node * perNode + rank() % perNode);
  EXPECT_EQ(output.data[0], expected);
}

} // namespace
