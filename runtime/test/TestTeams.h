//===- TestTeams.h - the world team for communication tests ---*- C++ -*-===//
#ifndef FUSER_RUNTIME_TEST_TESTTEAMS_H
#define FUSER_RUNTIME_TEST_TESTTEAMS_H

#include "fuser/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

inline int64_t rank() { return fuser_rank(); }
inline int64_t worldSize() { return fuser_world_size(); }

/// The team of all ranks, as a 1-D mesh.
inline FuserTeam *world() {
  int64_t shape[] = {worldSize()}, axes[] = {0};
  return fuser_team(rank(), shape, 1, nullptr, axes, 1);
}

/// The work was posted and completes.
inline void expectCompletes(FuserWork *work) {
  ASSERT_NE(work, nullptr) << fuser_last_error();
  ASSERT_EQ(fuser_wait(work), FUSER_OK) << fuser_last_error();
}

/// Whether every rank has `condition`: a test that stops on one rank only
/// would leave the others waiting in the next communication.
inline bool onEveryRank(bool condition) {
  int mine = condition, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

#endif // FUSER_RUNTIME_TEST_TESTTEAMS_H
