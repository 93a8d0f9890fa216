//===- Teams.h - a team's communicator -----------------------*- C++ -*-===//
#ifndef FUSER_RUNTIME_TEAMS_H
#define FUSER_RUNTIME_TEAMS_H

#include "fuser/Runtime/Runtime.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

/// The ranks of a team, in team order, and the communicator over them in
/// that order (created once per member list).
struct FuserTeam {
  std::vector<int64_t> members;
  int64_t index;
  MPI_Comm communicator;
};

#endif // FUSER_RUNTIME_TEAMS_H
