//===- RuntimeTestMain.cpp - GoogleTest under mpirun ----------------------===//
//
// Every rank runs every test (collectives need all members); rank 0
// prints. The exit status is the worst of all ranks, so a failure seen by
// one rank only still fails the run.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (fuser_init(&argc, &argv) != FUSER_OK) {
    std::fprintf(stderr, "%s\n", fuser_last_error());
    return 1;
  }
  if (fuser_rank() != 0) {
    ::testing::TestEventListeners &listeners =
        ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int result = RUN_ALL_TESTS();
  int worst = result;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  fuser_finalize();
  return worst;
}
