//===- MachineCheck.cpp - the machine a library was planned for -----------===//

#include "MachineCheck.h"

#include "fuser/Runtime/Runtime.h"

using namespace fuser;

std::vector<std::string>
fuser::describeMachine(const ProgramMetadata &metadata) {
  std::vector<std::string> lines;
  int64_t world = fuser_world_size(), nodes = fuser_node_count();
  int64_t perNode = fuser_ranks_per_node();
  if (nodes > 1)
    lines.push_back("nodes: " + std::to_string(nodes) +
                    (perNode
                         ? " of " + std::to_string(perNode) + " ranks each"
                         : std::string(" of unequal or interleaved ranks")));
  // One node is any value of at least the world's size.
  int64_t planned = metadata.ranksPerNode;
  bool samePlan =
      planned == 0 || (planned >= world ? nodes == 1 : perNode == planned);
  if (!samePlan)
    lines.push_back(
        "warning: the library was compiled for " +
        (planned >= world ? std::string("one node")
                          : "nodes of " + std::to_string(planned) + " ranks") +
        " but runs on " + std::to_string(nodes) +
        " nodes: its pipelines may be slow, and rings over CUDA IPC "
        "cannot reach other nodes; compile it with --ranks-per-node=" +
        (perNode ? std::to_string(perNode) : std::string("N")));
  // The calibration describes GPUs; CPU ranks run what it planned as well.
  if (!metadata.calibration || metadata.target != "cuda")
    return lines;
  const CalibrationSpec &calibration = *metadata.calibration;
  std::string device = fuser_device_name();
  std::string mismatch;
  if (!calibration.gpu.empty() && calibration.gpu != device)
    mismatch =
        "measured on " + calibration.gpu + " GPUs, this job runs on " + device;
  else if (calibration.devices && calibration.devices != world)
    mismatch = "measured on " + std::to_string(calibration.devices) +
               " devices, this job runs " + std::to_string(world);
  if (!mismatch.empty())
    lines.push_back("warning: pipelining=auto planned with the calibration " +
                    calibration.used + ", " + mismatch +
                    ": run fuser-calibrate on this machine and compile again "
                    "for plans that fit it");
  return lines;
}
