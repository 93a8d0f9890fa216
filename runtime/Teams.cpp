//===- Teams.cpp - teams of ranks and their cached communicators ---------===//

#include "Internal.h"
#include "Teams.h"

#include "fuser/Support/MeshMath.h"

#include <map>
#include <memory>
#include <numeric>

using namespace fuser::runtime;

/// Communicators by member list. Every member asks for its team when it
/// reaches the same communication, so all members create it together.
static std::map<std::vector<int64_t>, std::unique_ptr<FuserTeam>> &getTeams() {
  static std::map<std::vector<int64_t>, std::unique_ptr<FuserTeam>> teams;
  return teams;
}

void fuser::runtime::releaseTeams() {
  for (auto &[members, team] : getTeams())
    if (team->communicator != MPI_COMM_SELF &&
        team->communicator != MPI_COMM_NULL)
      MPI_Comm_free(&team->communicator);
  getTeams().clear();
}

extern "C" {

FuserTeam *fuser_team(int64_t rank, const int64_t *shape, int64_t meshRank,
                      const int64_t *devices, const int64_t *axes,
                      int64_t numAxes) {
  fuser::Shape meshShape(shape, shape + meshRank);
  std::vector<int64_t> ids;
  if (devices) {
    int64_t count = std::accumulate(meshShape.begin(), meshShape.end(),
                                    int64_t{1}, std::multiplies<>());
    ids.assign(devices, devices + count);
  }
  std::string problem = fuser::checkMesh(meshShape, ids);
  if (!problem.empty()) {
    fail(problem);
    return nullptr;
  }
  fuser::Mesh mesh =
      devices ? fuser::Mesh{meshShape, ids} : fuser::Mesh::iota(meshShape);
  std::vector<int64_t> axisList(axes, axes + numAxes);
  for (int64_t axis : axisList)
    if (axis < 0 || axis >= meshRank) {
      fail("mesh axis " + std::to_string(axis) + " is out of range for a mesh "
           "of " + std::to_string(meshRank) + " axes");
      return nullptr;
    }
  std::vector<int64_t> members = mesh.team(rank, axisList);
  if (members.empty()) {
    static FuserTeam outsiders{{}, 0, MPI_COMM_NULL};
    return &outsiders;
  }
  int64_t worldSize = fuser_world_size();
  for (int64_t member : members)
    if (member >= worldSize) {
      fail("the mesh has device " + std::to_string(member) +
           " but the world has " + std::to_string(worldSize) + " ranks");
      return nullptr;
    }

  std::unique_ptr<FuserTeam> &team = getTeams()[members];
  if (!team) {
    auto created = std::make_unique<FuserTeam>();
    created->members = members;
    created->index = *mesh.indexInTeam(rank, axisList);
    created->communicator = MPI_COMM_SELF;
    if (members.size() > 1) {
      MPI_Group world, group;
      MPI_Comm_group(MPI_COMM_WORLD, &world);
      std::vector<int> ranks(members.begin(), members.end());
      MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(),
                     &group);
      // Members only: ranks outside the team never call this for it.
      int status = MPI_Comm_create_group(MPI_COMM_WORLD, group, /*tag=*/0,
                                         &created->communicator);
      MPI_Group_free(&group);
      MPI_Group_free(&world);
      if (status != MPI_SUCCESS) {
        getTeams().erase(members);
        fail("could not create the communicator of a team of " +
             std::to_string(members.size()) + " ranks");
        return nullptr;
      }
      MPI_Comm_set_errhandler(created->communicator, MPI_ERRORS_RETURN);
    }
    team = std::move(created);
  }
  return team.get();
}

int64_t fuser_team_size(const FuserTeam *team) {
  return static_cast<int64_t>(team->members.size());
}

int64_t fuser_team_index(const FuserTeam *team) { return team->index; }

} // extern "C"
