//===- Topology.cpp - the node each rank runs on --------------------------===//
//
// Ranks of one node share memory and reach each other's GPUs over NVLink
// or PCIe (CUDA IPC, NCCL's P2P and SHM transports); ranks of different
// nodes reach each other only over the network. The node of every rank is
// learnt once, at start: MPI's shared-memory split (or, in a world started
// from a store, the ranks' host names and boot ids), or FUSER_RANKS_PER_NODE
// groups of consecutive ranks as simulated nodes, which a job on one host
// uses to run what a multi-node job runs (docs/runtime.md, "Nodes").
//
//===----------------------------------------------------------------------===//

#include "Topology.h"
#include "Internal.h"
#include "World.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

using namespace fuser::runtime;

namespace {
struct Topology {
  /// Node index per world rank, numbered by their lowest rank.
  std::vector<int64_t> nodeOfRank;
  /// The host of each rank, numbered alike (the nodes unless simulated).
  std::vector<int64_t> hostOfRank;
  int64_t nodeCount = 1;
  bool simulated = false;
};

Topology &getTopology() {
  static Topology topology;
  return topology;
}

/// Node indices numbered in order of first appearance.
std::vector<int64_t> renumber(const std::vector<int64_t> &keys) {
  std::map<int64_t, int64_t> index;
  std::vector<int64_t> nodes;
  nodes.reserve(keys.size());
  for (int64_t key : keys)
    nodes.push_back(
        index.try_emplace(key, int64_t(index.size())).first->second);
  return nodes;
}

/// A number naming this process's host: its name and boot, so that
/// containers of one name on different machines differ.
uint64_t identifyHost() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::string identity = name;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string bootId;
  if (boot >> bootId)
    identity += "/" + bootId;
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : identity)
    hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

/// The host of every rank, numbered by their lowest rank; the error set
/// when the ranks cannot tell.
FuserStatus learnHosts(std::vector<int64_t> &hosts) {
  if (worldUsesStore()) {
    uint64_t mine = identifyHost();
    std::vector<uint64_t> everyone(getWorldSize());
    if (FuserStatus status = fuser_world_allgather(
            &mine, sizeof(mine), everyone.data(), "learning the ranks' hosts",
            0))
      return status;
    hosts = renumber({everyone.begin(), everyone.end()});
    return FUSER_OK;
  }
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The lowest world rank of each rank's node names the node.
  MPI_Comm node;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                          MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return fail("MPI cannot tell which ranks share a node "
                "(MPI_Comm_split_type)");
  int leader = rank;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> leaders(size);
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT,
                MPI_COMM_WORLD);
  hosts = renumber({leaders.begin(), leaders.end()});
  return FUSER_OK;
}
} // namespace

FuserStatus fuser::runtime::learnTopology() {
  Topology &topology = getTopology();
  topology = Topology();
  std::vector<int64_t> real;
  if (FuserStatus status = learnHosts(real))
    return status;
  int64_t size = static_cast<int64_t>(real.size());
  topology.hostOfRank = real;

  const char *value = std::getenv("FUSER_RANKS_PER_NODE");
  if (!value) {
    topology.nodeOfRank = std::move(real);
  } else {
    char *end = nullptr;
    long perNode = std::strtol(value, &end, 10);
    if (end == value || *end != '\0' || perNode < 1 || size % perNode != 0)
      return fail(std::string("FUSER_RANKS_PER_NODE is '") + value +
                  "'; it takes the number of consecutive ranks of each "
                  "simulated node, which must divide the world's " +
                  std::to_string(size) + " ranks");
    std::vector<int64_t> simulated(size);
    for (int64_t member = 0; member < size; ++member) {
      simulated[member] = member / perNode;
      // A simulated node shares memory: it must lie within a real one.
      if (real[member] != real[simulated[member] * perNode])
        return fail("FUSER_RANKS_PER_NODE=" + std::string(value) +
                    " makes ranks " +
                    std::to_string(simulated[member] * perNode) + " and " +
                    std::to_string(member) +
                    " one node, but they run on different hosts");
    }
    topology.nodeOfRank = std::move(simulated);
    topology.simulated = true;
  }
  topology.nodeCount = 1 + *std::max_element(topology.nodeOfRank.begin(),
                                             topology.nodeOfRank.end());
  return FUSER_OK;
}

bool fuser::runtime::nodesAreSimulated() { return getTopology().simulated; }

std::pair<int64_t, int64_t> fuser::runtime::getHostLocalRank() {
  const std::vector<int64_t> &hosts = getTopology().hostOfRank;
  int64_t rank = getWorldRank(), local = 0, count = 0;
  for (int64_t other = 0; other < int64_t(hosts.size()); ++other)
    if (hosts[other] == hosts[rank]) {
      local += other < rank;
      ++count;
    }
  return {local, count};
}

std::optional<int64_t>
fuser::runtime::findNodeCrossing(const std::vector<int64_t> &ranks) {
  const std::vector<int64_t> &nodes = getTopology().nodeOfRank;
  for (int64_t rank : ranks)
    if (nodes.at(rank) != nodes.at(ranks.front()))
      return rank;
  return std::nullopt;
}

extern "C" {

int64_t fuser_node_count(void) { return getTopology().nodeCount; }

int64_t fuser_node_of_rank(int64_t rank) {
  const std::vector<int64_t> &nodes = getTopology().nodeOfRank;
  if (rank < 0 || rank >= int64_t(nodes.size()))
    return -1;
  return nodes[rank];
}

int64_t fuser_ranks_per_node(void) {
  const std::vector<int64_t> &nodes = getTopology().nodeOfRank;
  int64_t world = int64_t(nodes.size()), count = getTopology().nodeCount;
  if (world == 0 || world % count != 0)
    return 0;
  for (int64_t rank = 0; rank < world; ++rank)
    if (nodes[rank] != rank / (world / count))
      return 0;
  return world / count;
}

} // extern "C"
