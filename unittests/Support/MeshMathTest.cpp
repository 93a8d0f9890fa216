//===- MeshMathTest.cpp - teams, local shapes and offsets -----------------===//

#include "fuser/Support/MeshMath.h"

#include <gtest/gtest.h>

using namespace fuser;

namespace {

TEST(MeshMath, CoordinatesAreRowMajor) {
  Mesh mesh = Mesh::iota({2, 4});
  EXPECT_EQ(mesh.numDevices(), 8);
  EXPECT_EQ(*mesh.coordinatesOf(5), (Shape{1, 1}));
  EXPECT_EQ(*mesh.coordinatesOf(3), (Shape{0, 3}));
  EXPECT_EQ(mesh.deviceAt({1, 2}), 6);
  EXPECT_FALSE(mesh.coordinatesOf(8).has_value());
}

TEST(MeshMath, TeamsOfRankFiveOnTwoByFourMesh) {
  Mesh mesh = Mesh::iota({2, 4});
  // Along the inner axis: the row of rank 5.
  EXPECT_EQ(mesh.team(5, {1}), (std::vector<int64_t>{4, 5, 6, 7}));
  // Along the outer axis: the column of rank 5.
  EXPECT_EQ(mesh.team(5, {0}), (std::vector<int64_t>{1, 5}));
  // Both axes: everyone, row-major.
  EXPECT_EQ(mesh.team(5, {0, 1}),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Axes in the other order enumerate column-major.
  EXPECT_EQ(mesh.team(5, {1, 0}),
            (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(*mesh.indexInTeam(5, {1}), 1);
  EXPECT_EQ(*mesh.indexInTeam(5, {0}), 1);
  EXPECT_EQ(*mesh.indexInTeam(2, {0, 1}), 2);
}

TEST(MeshMath, TeamsFollowExplicitDeviceIds) {
  Mesh mesh{{2, 2}, {0, 2, 1, 3}};
  EXPECT_EQ(mesh.team(2, {1}), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(mesh.team(2, {0}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(*mesh.indexInTeam(3, {0}), 1);
}

TEST(MeshMath, TeamsSpanNodesWhereMembersSitOnDifferentNodes) {
  // Two nodes of two ranks: the rows (teams along axis 1) stay within a
  // node, the columns cross.
  Mesh mesh = Mesh::iota({2, 2});
  EXPECT_FALSE(mesh.teamsSpanNodes({1}, 2));
  EXPECT_TRUE(mesh.teamsSpanNodes({0}, 2));
  EXPECT_TRUE(mesh.teamsSpanNodes({0, 1}, 2));
  EXPECT_FALSE(mesh.teamsSpanNodes({0, 1}, 4));
  // Device ids decide, not mesh positions.
  Mesh transposed{{2, 2}, {0, 2, 1, 3}};
  EXPECT_TRUE(transposed.teamsSpanNodes({1}, 2));
  EXPECT_FALSE(transposed.teamsSpanNodes({0}, 2));
  // A mesh of the second node alone.
  EXPECT_FALSE((Mesh{{2}, {2, 3}}).teamsSpanNodes({0}, 2));
}

TEST(MeshMath, DeviceOutsideMeshHasNoTeamOrShard) {
  Mesh mesh{{2}, {4, 5}};
  EXPECT_TRUE(mesh.team(0, {0}).empty());
  EXPECT_FALSE(mesh.indexInTeam(0, {0}).has_value());
  EXPECT_FALSE(localShapeOn({8}, {{0}}, mesh, 0).has_value());
  EXPECT_FALSE(shardOffsetOn({8}, {{0}}, mesh, 0).has_value());
  EXPECT_EQ(*localShapeOn({8}, {{0}}, mesh, 5), (Shape{4}));
}

TEST(MeshMath, LocalShapeDividesByAllAxesOfADim) {
  Mesh mesh = Mesh::iota({2, 4});
  EXPECT_EQ(localShape({16, 32}, {{0, 1}, {}}, mesh), (Shape{2, 32}));
  EXPECT_EQ(localShape({16, 32}, {{1}, {0}}, mesh), (Shape{4, 16}));
  EXPECT_EQ(localShape({kDynamicSize, 8}, {{0}, {1}}, mesh),
            (Shape{kDynamicSize, 2}));
}

TEST(MeshMath, DivisibilityNamesTheDim) {
  Mesh mesh = Mesh::iota({2, 2});
  EXPECT_EQ(checkDivisible({8, 6}, {{0}, {0, 1}}, mesh),
            "dim 1 of size 6 is not divisible by 4 (mesh axes [0, 1] of "
            "sizes 2x2)");
  EXPECT_EQ(checkDivisible({8, 8}, {{0}, {1}}, mesh), "");
  EXPECT_EQ(checkDivisible({kDynamicSize}, {{0}}, mesh), "");
}

TEST(MeshMath, ShardOffsetsNestOuterAxisFirst) {
  Mesh mesh = Mesh::iota({2, 4});
  // Dim 0 of 16 split by axis 0 (blocks of 8) then axis 1 (blocks of 2):
  // rank 6 = (1, 2) starts at 8 + 2 * 2.
  EXPECT_EQ(*shardOffsetOn({16, 3}, {{0, 1}, {}}, mesh, 6), (Shape{12, 0}));
  // Inner axis first: blocks of 4 by axis 1, then of 2 by axis 0.
  EXPECT_EQ(*shardOffsetOn({16, 3}, {{1, 0}, {}}, mesh, 6), (Shape{10, 0}));
  EXPECT_EQ(*shardOffsetOn({8, 8}, {{1}, {0}}, mesh, 7), (Shape{6, 4}));
}

TEST(MeshMath, CheckMeshNamesTheProblem) {
  EXPECT_EQ(checkMesh({2, 2}, {}), "");
  EXPECT_EQ(checkMesh({2}, {3, 1}), "");
  EXPECT_EQ(checkMesh({}, {}), "mesh must have at least one axis");
  EXPECT_EQ(checkMesh({2, 0}, {}), "mesh axis 1 has size 0; sizes must be positive");
  EXPECT_EQ(checkMesh({2, 2}, {0, 1, 2}), "mesh of 4 positions has 3 device ids");
  EXPECT_EQ(checkMesh({2}, {0, -1}), "device id -1 at position 1 is negative");
  EXPECT_EQ(checkMesh({3}, {4, 2, 4}), "device id 4 appears at positions 0 and 2");
  EXPECT_EQ(checkMesh({1024, 1024}, {}), "");
  EXPECT_EQ(checkMesh({1024, 1025}, {}),
            "mesh has more than 1048576 positions, the most supported");
  // Axis sizes whose product overflows int64_t.
  EXPECT_EQ(checkMesh({4000000000, 4000000000, 4000000000}, {}),
            "mesh has more than 1048576 positions, the most supported");
}

TEST(MeshMath, TransfersGatherAMeshOntoADeviceOutsideIt) {
  // Rows split over devices 0, 1, 2; all of them wanted on device 3.
  std::vector<Transfer> transfers = planTransfers(
      {6, 4}, Mesh::iota({3}), {{0}, {}}, Mesh{{1}, {3}}, {{}, {}});
  ASSERT_EQ(transfers.size(), 3u);
  for (int64_t device = 0; device < 3; ++device) {
    EXPECT_EQ(transfers[device].source, device);
    EXPECT_EQ(transfers[device].target, 3);
    EXPECT_EQ(transfers[device].offsets, (Shape{2 * device, 0}));
    EXPECT_EQ(transfers[device].sizes, (Shape{2, 4}));
  }
}

TEST(MeshMath, TransfersCutBlocksThatStraddleShards) {
  // Rows split in 2 (blocks of 3) moved to rows split in 3 (blocks of 2):
  // the middle target takes one row from each source.
  std::vector<Transfer> transfers =
      planTransfers({6}, Mesh::iota({2}), {{0}}, Mesh{{3}, {2, 3, 4}}, {{0}});
  ASSERT_EQ(transfers.size(), 4u);
  EXPECT_EQ(transfers[0].source, 0);
  EXPECT_EQ(transfers[0].target, 2);
  EXPECT_EQ(transfers[0].offsets, (Shape{0}));
  EXPECT_EQ(transfers[0].sizes, (Shape{2}));
  EXPECT_EQ(transfers[1].source, 0);
  EXPECT_EQ(transfers[1].target, 3);
  EXPECT_EQ(transfers[1].offsets, (Shape{2}));
  EXPECT_EQ(transfers[1].sizes, (Shape{1}));
  EXPECT_EQ(transfers[2].source, 1);
  EXPECT_EQ(transfers[2].target, 3);
  EXPECT_EQ(transfers[2].offsets, (Shape{3}));
  EXPECT_EQ(transfers[2].sizes, (Shape{1}));
  EXPECT_EQ(transfers[3].source, 1);
  EXPECT_EQ(transfers[3].target, 4);
  EXPECT_EQ(transfers[3].offsets, (Shape{4}));
  EXPECT_EQ(transfers[3].sizes, (Shape{2}));
}

TEST(MeshMath, TransfersPreferTheTargetsOwnCopyThenTakeTurns) {
  // A value replicated on devices 0 and 1 moved to devices 1, 2, 3: device
  // 1 copies its own, devices 2 and 3 take it from 0 and 1 in turn.
  std::vector<Transfer> transfers =
      planTransfers({4}, Mesh::iota({2}), {{}}, Mesh{{3}, {1, 2, 3}}, {{}});
  ASSERT_EQ(transfers.size(), 3u);
  EXPECT_EQ(transfers[0].source, 1);
  EXPECT_EQ(transfers[0].target, 1);
  EXPECT_EQ(transfers[1].source, 1);
  EXPECT_EQ(transfers[1].target, 2);
  EXPECT_EQ(transfers[2].source, 0);
  EXPECT_EQ(transfers[2].target, 3);
}

} // namespace
