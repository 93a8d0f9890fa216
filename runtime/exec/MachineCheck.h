//===- MachineCheck.h - the machine a library was planned for ---*- C++ -*-===//
//
// A library's pipelines were planned for a topology (the ranks of each
// node) and, under pipelining=auto, with the calibration of a machine.
// Run elsewhere, the plans still compute the same values, but they may be
// slow, or (CUDA IPC between nodes) fail: fuser-exec says so up front.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_MACHINECHECK_H
#define FUSER_RUNTIME_EXEC_MACHINECHECK_H

#include "ProgramMetadata.h"

#include <string>
#include <vector>

namespace fuser {

/// What rank 0 reports of the job's machine against `metadata`, once the
/// program's backend runs: the nodes (when more than one), and warnings
/// where the topology or (on GPUs) the calibrated machine differ.
std::vector<std::string> describeMachine(const ProgramMetadata &metadata);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_MACHINECHECK_H
