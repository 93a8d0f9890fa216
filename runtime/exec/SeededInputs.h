//===- SeededInputs.h - the runner's seeded input values -------*- C++ -*-===//
//
// fuser-exec's inputs when no .npy file names them: uniform values in
// [-1, 1), the same on every rank and in every run for a seed.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_SEEDEDINPUTS_H
#define FUSER_RUNTIME_EXEC_SEEDEDINPUTS_H

#include "ProgramRunner.h"

#include <cstdint>

namespace fuser {

/// Fills `values` with draws from [-1, 1) for `seed`. Blocks of elements
/// draw from generators of their own, seeded by the seed and the block's
/// index, on the host's worker threads (HostWorkers.h; a rank's threads
/// are not held to the core mpirun binds it to): a layer's gigabytes of
/// weights take seconds, and the values do not depend on how many threads
/// drew them.
void fillUniform(HostTensor &values, uint64_t seed);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_SEEDEDINPUTS_H
