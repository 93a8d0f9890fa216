//===- Teams.cpp - teams of ranks and their cached communicators ---------===//

#include "Internal.h"
#include "Teams.h"
#include "World.h"

#include "fuser/Support/MeshMath.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <thread>

using namespace fuser::runtime;

namespace {
/// The tag of the messages members exchange before creating a team's
/// communicator; no other message on MPI_COMM_WORLD carries it.
constexpr int kJoinTag = 0x7e4d;
/// The least time members are given to join: a team is made at the first
/// communication on it, which ranks may reach seconds apart (one loaded a
/// library or compiled a program, or started later) where a bound meant
/// for one communication would end a healthy job.
constexpr double kJoinSeconds = 30;

/// A number naming a member list, carried by the join messages so that a
/// member waiting to create one team does not take another's as its own.
int64_t nameOf(const std::vector<int64_t> &members) {
  uint64_t hash = 1469598103934665603ull;
  for (int64_t member : members)
    hash = (hash ^ static_cast<uint64_t>(member)) * 1099511628211ull;
  return static_cast<int64_t>(hash >> 1);
}

/// Waits until every member of `members` (`rank` among them) has reached
/// the creation of their team, within the timeout. MPI_Comm_create_group
/// itself cannot be bounded: a member that never comes (it failed, or went
/// elsewhere) would hold the others in it forever. Point-to-point messages
/// can be withdrawn, so the wait is on them.
FuserStatus awaitMembers(const std::vector<int64_t> &members, int64_t rank) {
  int64_t name = nameOf(members);
  std::vector<int64_t> received(members.size());
  std::vector<MPI_Request> requests;
  for (size_t index = 0; index < members.size(); ++index) {
    if (members[index] == rank)
      continue;
    int peer = static_cast<int>(members[index]);
    requests.emplace_back();
    MPI_Irecv(&received[index], 1, MPI_INT64_T, peer, kJoinTag, MPI_COMM_WORLD,
              &requests.back());
    requests.emplace_back();
    MPI_Isend(&name, 1, MPI_INT64_T, peer, kJoinTag, MPI_COMM_WORLD,
              &requests.back());
  }
  double seconds = std::max(getTimeoutSeconds(), kJoinSeconds);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(seconds);
  int done = 0;
  while (!done) {
    if (MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                    MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return fail("creating a team of " + std::to_string(members.size()) +
                  " ranks: exchanging join messages failed");
    if (done)
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::string missing;
      for (size_t index = 0; index < members.size(); ++index)
        if (members[index] != rank && received[index] != name)
          missing += (missing.empty() ? "" : ", ") +
                     std::to_string(members[index]);
      for (MPI_Request &request : requests)
        if (request != MPI_REQUEST_NULL) {
          MPI_Cancel(&request);
          MPI_Request_free(&request);
        }
      return fail("creating a team of " + std::to_string(members.size()) +
                  " ranks: rank(s) " + missing + " did not join within " +
                  std::to_string(static_cast<int>(seconds)) +
                  " s: they failed, or are running something else");
    }
    std::this_thread::yield();
  }
  for (size_t index = 0; index < members.size(); ++index)
    if (members[index] != rank && received[index] != name)
      return fail("creating a team of " + std::to_string(members.size()) +
                  " ranks: rank " + std::to_string(members[index]) +
                  " is creating another team: the ranks run different "
                  "programs");
  return FUSER_OK;
}
} // namespace

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

  // The host backend's communications are MPI's (a team of one too): a
  // world started from a store has none.
  if (worldUsesStore() && fuser_current_backend() == FUSER_BACKEND_HOST) {
    fail("CPU ranks communicate over MPI, which this world was started "
         "without (from a store, as torchrun starts ranks): start CPU ranks "
         "with mpirun");
    return nullptr;
  }
  std::unique_ptr<FuserTeam> &team = getTeams()[members];
  if (!team) {
    auto created = std::make_unique<FuserTeam>();
    created->members = members;
    created->index = *mesh.indexInTeam(rank, axisList);
    created->communicator = MPI_COMM_SELF;
    // A world started from a store exchanges through it: the team needs
    // no communicator.
    if (worldUsesStore())
      created->communicator = MPI_COMM_NULL;
    else if (members.size() > 1) {
      if (awaitMembers(members, rank) != FUSER_OK) {
        getTeams().erase(members);
        return nullptr;
      }
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
