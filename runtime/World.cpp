//===- World.cpp - the ranks, and what they exchange to set up ------------===//

#include "World.h"
#include "Internal.h"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>

using namespace fuser::runtime;

namespace {
struct StoreWorld {
  bool active = false;
  FuserBootstrap bootstrap{};
  /// Exchanges made so far by each member list: every member makes them in
  /// the same order, so the count names the next one's keys.
  std::map<std::vector<int64_t>, int64_t> exchanges;
};

StoreWorld &getStoreWorld() {
  static StoreWorld world;
  return world;
}

double boundOf(double seconds) {
  return seconds > 0 ? seconds : getTimeoutSeconds();
}

/// A name of `members`, short enough for a key.
std::string nameOf(const std::vector<int64_t> &members) {
  uint64_t hash = 1469598103934665603ull;
  for (int64_t member : members)
    hash = (hash ^ static_cast<uint64_t>(member)) * 1099511628211ull;
  char text[32];
  std::snprintf(text, sizeof(text), "%zu-%016llx", members.size(),
                static_cast<unsigned long long>(hash));
  return text;
}

FuserStatus exchangeThroughStore(const std::vector<int64_t> &members,
                                 int64_t index, const void *mine, size_t bytes,
                                 void *all, const char *step, double seconds) {
  StoreWorld &world = getStoreWorld();
  int64_t number = world.exchanges[members]++;
  std::string prefix =
      "exchange/" + nameOf(members) + "/" + std::to_string(number) + "/";
  const FuserBootstrap &store = world.bootstrap;
  if (store.set(store.store, (prefix + std::to_string(index)).c_str(), mine,
                static_cast<int64_t>(bytes)) != FUSER_OK)
    return fail(std::string(step) + ": " + fuser_last_error());
  for (size_t member = 0; member < members.size(); ++member) {
    char *slot = static_cast<char *>(all) + member * bytes;
    if (static_cast<int64_t>(member) == index) {
      std::memcpy(slot, mine, bytes);
      continue;
    }
    if (store.get(store.store, (prefix + std::to_string(member)).c_str(), slot,
                  static_cast<int64_t>(bytes), boundOf(seconds)) != FUSER_OK)
      return fail(std::string(step) + ": rank " +
                  std::to_string(members[member]) + " did not take part: " +
                  fuser_last_error());
  }
  return FUSER_OK;
}

/// Every rank of the world, in order.
std::vector<int64_t> worldMembers() {
  std::vector<int64_t> everyone(getWorldSize());
  for (size_t rank = 0; rank < everyone.size(); ++rank)
    everyone[rank] = static_cast<int64_t>(rank);
  return everyone;
}

/// Waits for `request` up to `seconds`; past them, aborts: the collective
/// still owns its buffers.
FuserStatus waitOrAbort(MPI_Request &request, const char *step,
                        double seconds) {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(seconds);
  int done = 0;
  while (true) {
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return fail(std::string(step) + ": MPI failed");
    if (done)
      return FUSER_OK;
    if (std::chrono::steady_clock::now() > deadline) {
      char message[512];
      std::snprintf(message, sizeof(message),
                    "%s: the other ranks did not all take part within %g s "
                    "(FUSER_TIMEOUT_S): a rank has failed, was killed or is "
                    "stuck",
                    step, seconds);
      fuser_fail(message);
    }
    std::this_thread::yield();
  }
}

FuserStatus exchangeOverMpi(MPI_Comm communicator, const void *mine,
                            size_t bytes, void *all, const char *step,
                            double seconds) {
  if (bytes > static_cast<size_t>(INT_MAX))
    return fail(std::string(step) + ": " + std::to_string(bytes) +
                " bytes per rank are more than one MPI message holds");
  MPI_Request request;
  if (MPI_Iallgather(mine, static_cast<int>(bytes), MPI_BYTE, all,
                     static_cast<int>(bytes), MPI_BYTE, communicator,
                     &request) != MPI_SUCCESS)
    return fail(std::string(step) + ": MPI_Iallgather failed");
  return waitOrAbort(request, step, boundOf(seconds));
}
} // namespace

void fuser::runtime::startStoreWorld(const FuserBootstrap &bootstrap) {
  StoreWorld &world = getStoreWorld();
  world.active = true;
  world.bootstrap = bootstrap;
  world.exchanges.clear();
}

void fuser::runtime::stopStoreWorld() { getStoreWorld() = StoreWorld(); }

void fuser::runtime::leaveStoreWorld() {
  StoreWorld &world = getStoreWorld();
  if (world.active) {
    const FuserBootstrap &store = world.bootstrap;
    char done = 1;
    if (store.rank != 0) {
      std::string key = "done/" + std::to_string(store.rank);
      store.set(store.store, key.c_str(), &done, 1);
    } else {
      // A rank that died is not waited for beyond the timeout; what went
      // wrong was reported where it happened.
      for (int64_t rank = 1; rank < store.worldSize; ++rank) {
        std::string key = "done/" + std::to_string(rank);
        store.get(store.store, key.c_str(), &done, 1, getTimeoutSeconds());
      }
    }
  }
  stopStoreWorld();
}

bool fuser::runtime::worldUsesStore() { return getStoreWorld().active; }

int64_t fuser::runtime::getWorldRank() {
  if (worldUsesStore())
    return getStoreWorld().bootstrap.rank;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int64_t fuser::runtime::getWorldSize() {
  if (worldUsesStore())
    return getStoreWorld().bootstrap.worldSize;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

FuserStatus fuser::runtime::exchangeAmong(const std::vector<int64_t> &members,
                                          int64_t index, MPI_Comm communicator,
                                          const void *mine, size_t bytes,
                                          void *all, const char *step,
                                          double seconds) {
  if (worldUsesStore())
    return exchangeThroughStore(members, index, mine, bytes, all, step,
                                seconds);
  return exchangeOverMpi(communicator, mine, bytes, all, step, seconds);
}

FuserStatus fuser::runtime::exchangeAmong(const FuserTeam &team,
                                          const void *mine, size_t bytes,
                                          void *all, const char *step) {
  return exchangeAmong(team.members, team.index, team.communicator, mine,
                       bytes, all, step);
}

extern "C" {

int32_t fuser_world_uses_store(void) { return worldUsesStore(); }

void fuser_set_error(const char *message) { fail(message); }

FuserStatus fuser_world_allgather(const void *mine, int64_t bytes, void *all,
                                  const char *step, double timeoutSeconds) {
  return exchangeAmong(worldMembers(), getWorldRank(), MPI_COMM_WORLD, mine,
                       static_cast<size_t>(bytes), all, step, timeoutSeconds);
}

FuserStatus fuser_world_broadcast(void *data, int64_t bytes, int64_t root,
                                  const char *step) {
  int64_t size = getWorldSize();
  if (root < 0 || root >= size)
    return fail(std::string(step) + ": no rank " + std::to_string(root));
  if (worldUsesStore()) {
    // Only the root's value travels: the others send nothing.
    StoreWorld &world = getStoreWorld();
    int64_t number = world.exchanges[worldMembers()]++;
    std::string key = "broadcast/" + std::to_string(number);
    const FuserBootstrap &store = world.bootstrap;
    if (getWorldRank() == root)
      return store.set(store.store, key.c_str(), data, bytes) == FUSER_OK
                 ? FUSER_OK
                 : fail(std::string(step) + ": " + fuser_last_error());
    if (store.get(store.store, key.c_str(), data, bytes,
                  getTimeoutSeconds()) != FUSER_OK)
      return fail(std::string(step) + ": rank " + std::to_string(root) +
                  " did not send: " + fuser_last_error());
    return FUSER_OK;
  }
  if (bytes > INT_MAX)
    return fail(std::string(step) + ": " + std::to_string(bytes) +
                " bytes are more than one MPI message holds");
  MPI_Request request;
  if (MPI_Ibcast(data, static_cast<int>(bytes), MPI_BYTE,
                 static_cast<int>(root), MPI_COMM_WORLD,
                 &request) != MPI_SUCCESS)
    return fail(std::string(step) + ": MPI_Ibcast failed");
  return waitOrAbort(request, step, getTimeoutSeconds());
}

} // extern "C"
