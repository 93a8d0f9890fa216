//===- Topology.h - the node each rank runs on ------------------*- C++ -*-===//
#ifndef FUSER_RUNTIME_TOPOLOGY_H
#define FUSER_RUNTIME_TOPOLOGY_H

#include "fuser/Runtime/Runtime.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace fuser::runtime {

/// Learns the node of every rank (fuser_init, collective): the error set
/// for a FUSER_RANKS_PER_NODE that does not divide the world or puts ranks
/// of different hosts on one node.
FuserStatus learnTopology();
/// Whether the nodes are FUSER_RANKS_PER_NODE's groups, not hosts.
bool nodesAreSimulated();
/// This rank's position among the ranks of its host, and their number
/// (simulated nodes aside: the host's GPUs are shared out by it).
std::pair<int64_t, int64_t> getHostLocalRank();
/// The first of `ranks` on another node than the first of them, if any.
std::optional<int64_t> findNodeCrossing(const std::vector<int64_t> &ranks);

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_TOPOLOGY_H
