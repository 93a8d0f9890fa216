//===- PipelineCostModelTest.cpp - the cost model against measurements ----===//
//
// The built-in calibration is the 2 x H200 machine's: its estimates must
// follow what the rings measured there (bench/results/
// 2026-11-24-push-ring-on-2xh200.md, 2026-11-23-reducing-ring-on-2xh200.md),
// and the plans `auto` takes must be the ones those measurements favour.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Analysis/PipelineCostModel.h"

#include <gtest/gtest.h>

using namespace mlir::fuser;

namespace {

using Kind = PipelineProblem::Kind;

/// bf16 AG+GEMM on 2 ranks: A [m, k] split by rows, B [k, n].
PipelineProblem allgatherGemm(int64_t m, int64_t k, int64_t n) {
  return {Kind::AllgatherGemm, 2, m, n, k, 2 * k, /*copyEngineRing=*/true};
}

/// bf16 GEMM+RS on 2 ranks: A [m, k/2], B [k/2, n], out [m/2, n].
PipelineProblem gemmReduceScatter(int64_t m, int64_t k, int64_t n) {
  return {Kind::GemmReduceScatter, 2, m, n, k / 2, 2 * n,
          /*copyEngineRing=*/true};
}

TEST(PipelineCostModel, RingEstimatesFollowTheMeasuredTimes) {
  PipelineCalibration machine = PipelineCalibration::h200();
  struct Measured {
    int64_t m, k, n, chunks;
    double milliseconds;
  };
  // The pushing ring-ipc AG+GEMM's medians on 2 x H200
  // (bench/results/2026-11-24-push-ring-on-2xh200.md).
  for (Measured measured : {Measured{32768, 16384, 8192, 1, 13.054},
                            Measured{32768, 16384, 8192, 2, 13.269},
                            Measured{8192, 8192, 8192, 1, 1.424},
                            Measured{8192, 8192, 8192, 2, 1.462},
                            Measured{4096, 8192, 8192, 1, 0.727},
                            Measured{16384, 8192, 1024, 1, 0.560},
                            Measured{16384, 1024, 8192, 1, 0.400},
                            Measured{16384, 1024, 8192, 2, 0.391}}) {
    double estimate =
        1e3 *
        estimatePipeline(allgatherGemm(measured.m, measured.k, measured.n),
                         Pipelining::Ring, measured.chunks, machine);
    EXPECT_NEAR(estimate, measured.milliseconds, 0.1 * measured.milliseconds)
        << measured.m << "x" << measured.k << "x" << measured.n << ", "
        << measured.chunks << " chunks per block";
  }
}

TEST(PipelineCostModel, ReducingRingEstimatesFollowTheMeasuredTimes) {
  PipelineCalibration machine = PipelineCalibration::h200();
  struct Measured {
    int64_t m, k, n;
    double milliseconds;
  };
  // ring-ipc GEMM+RS medians on 2 x H200, 2 chunks per block, the local
  // product accumulating into the result
  // (bench/results/2026-11-23-reducing-ring-on-2xh200.md, run B).
  for (Measured measured : {Measured{32768, 16384, 8192, 6.533},
                            Measured{8192, 8192, 8192, 0.753},
                            Measured{4096, 8192, 8192, 0.392},
                            Measured{16384, 8192, 1024, 0.226},
                            Measured{16384, 1024, 8192, 0.553}}) {
    double estimate =
        1e3 * estimatePipeline(
                  gemmReduceScatter(measured.m, measured.k, measured.n),
                  Pipelining::Ring, 2, machine);
    EXPECT_NEAR(estimate, measured.milliseconds, 0.1 * measured.milliseconds)
        << measured.m << "x" << measured.k << "x" << measured.n;
  }
}

TEST(PipelineCostModel, APushingRingTakesOneChunkPerBlock) {
  // Its chunks arrive together: more of them do not shorten the tail, as
  // measured (16384x8192x1024: 0.560 ms with one chunk per block, 0.623
  // with two).
  PipelineCalibration machine = PipelineCalibration::h200();
  PipelineProblem communicationBound = allgatherGemm(16384, 8192, 1024);
  EXPECT_GE(estimatePipeline(communicationBound, Pipelining::Ring, 2, machine),
            estimatePipeline(communicationBound, Pipelining::Ring, 1, machine));
  for (PipelineProblem shape :
       {communicationBound, allgatherGemm(32768, 16384, 8192),
        allgatherGemm(8192, 8192, 8192)}) {
    PipelinePlan plan = choosePipeline(shape, machine);
    EXPECT_EQ(plan.mode, Pipelining::Ring);
    EXPECT_EQ(plan.chunks, 1);
  }
}

TEST(PipelineCostModel, LongGemmsRunAtTheSustainedRate) {
  // A GEMM of 8.8 TFLOP ran at 690 TFLOP/s, one of 1.1 at 760.
  PipelineCalibration machine = PipelineCalibration::h200();
  EXPECT_GT(machine.gemmSeconds(16384, 8192, 16384),
            2.05 * machine.gemmSeconds(8192, 8192, 16384));
}

TEST(PipelineCostModel, AReducingRingNeedsTwoChunksToOverlap) {
  // The local GEMM adds to what the peer sent: in one chunk nothing
  // overlaps, so auto takes more.
  PipelineCalibration machine = PipelineCalibration::h200();
  PipelineProblem problem = gemmReduceScatter(8192, 8192, 8192);
  double gemm = machine.gemmSeconds(4096, 8192, 4096);
  EXPECT_GT(estimatePipeline(problem, Pipelining::Ring, 1, machine), 2 * gemm);
  EXPECT_LT(estimatePipeline(problem, Pipelining::Ring, 2, machine),
            estimatePipeline(problem, Pipelining::Ring, 1, machine));
  for (PipelineProblem shape : {problem, gemmReduceScatter(32768, 16384, 8192),
                                gemmReduceScatter(16384, 8192, 1024)}) {
    PipelinePlan plan = choosePipeline(shape, machine);
    EXPECT_EQ(plan.mode, Pipelining::Ring);
    EXPECT_GE(plan.chunks, 2);
  }
}

TEST(PipelineCostModel, TransfersBetweenNodesTakeTheNetworkLink) {
  PipelineCalibration machine = PipelineCalibration::h200();
  machine.network = {10e9, 50e-6, 0.5};
  PipelineProblem within = allgatherGemm(8192, 8192, 8192);
  within.copyEngineRing = false;
  PipelineProblem across = within;
  across.crossesNodes = true;
  // Without overlap: the GEMM, then the peer's block of 4096 x 8192 bf16.
  double gemm = machine.gemmSeconds(8192, 8192, 8192);
  double block = 4096.0 * 8192 * 2;
  EXPECT_DOUBLE_EQ(estimatePipeline(within, Pipelining::None, 0, machine),
                   gemm + 20e-6 + block / 250e9);
  EXPECT_DOUBLE_EQ(estimatePipeline(across, Pipelining::None, 0, machine),
                   gemm + 50e-6 + block / 10e9);
  for (Pipelining mode : {Pipelining::Collective, Pipelining::Ring})
    EXPECT_GT(estimatePipeline(across, mode, 2, machine),
              estimatePipeline(within, mode, 2, machine));
  // No plan takes less than the transfer of the peer's block.
  EXPECT_GT(choosePipeline(across, machine).seconds, block / 10e9);
}

} // namespace
