//===- World.h - the ranks, and what they exchange to set up ----*- C++ -*-===//
//
// The world is MPI's (mpirun, the default) or a key-value store's
// (fuser_init_with_bootstrap: processes that torchrun launched). Setting up
// teams, NCCL communicators and CUDA IPC shares needs small exchanges
// among a team's members; they go over the team's MPI communicator, or
// through the store, each bounded by the timeout.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_WORLD_H
#define FUSER_RUNTIME_WORLD_H

#include "Teams.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuser::runtime {

/// Makes the store of `bootstrap` the world's (fuser_init_with_bootstrap).
void startStoreWorld(const FuserBootstrap &bootstrap);
/// Forgets the store.
void stopStoreWorld();
/// Forgets the store as the world ends (fuser_finalize), rank 0 last: the
/// store may be served by rank 0's process (torchrun without its agent, a
/// process group's TCPStore), so rank 0 waits, up to the timeout, until
/// every other rank has said it is done with it; otherwise a rank's last
/// read could find the store gone.
void leaveStoreWorld();
bool worldUsesStore();
int64_t getWorldRank();
int64_t getWorldSize();

/// Every member's `bytes` bytes at `mine`, in the order of `members`, into
/// `all`; `communicator` is theirs under MPI (unused with a store), `index`
/// this rank's position among them. Bounded by `seconds` (0: the timeout);
/// under MPI a timeout aborts the process, as the pending collective owns
/// the buffers. `step` names the exchange in messages.
FuserStatus exchangeAmong(const std::vector<int64_t> &members, int64_t index,
                          MPI_Comm communicator, const void *mine,
                          size_t bytes, void *all, const char *step,
                          double seconds = 0);
/// exchangeAmong over `team`.
FuserStatus exchangeAmong(const FuserTeam &team, const void *mine,
                          size_t bytes, void *all, const char *step);

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_WORLD_H
