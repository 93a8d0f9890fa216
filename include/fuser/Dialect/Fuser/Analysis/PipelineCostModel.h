//===- PipelineCostModel.h - choosing how a pipeline overlaps ---*- C++ -*-===//
//
// Estimates the time of a pipelined communication and the GEMMs beside it
// (AG+GEMM, GEMM+RS, GEMM+allreduce) for each way of running it, from a
// calibration of the machine: the GEMM rate per shape class, and the rate,
// latency and interference of each link. `pipelining=auto` takes the
// fastest plan (docs/stream-pipelining.md, "Choosing a plan").
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECOSTMODEL_H
#define FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECOSTMODEL_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Analysis/PipelineCalibration.h"

namespace mlir::fuser {

/// What a pipelined communication and its GEMMs do on one rank.
struct PipelineProblem {
  enum class Kind { AllgatherGemm, GemmReduceScatter, GemmAllreduce };
  Kind kind;
  int64_t teamSize;
  /// The rank's whole GEMM work: rows of the pipelined dim (the gathered
  /// rows, or the rows of the partial result), and n, k per row.
  int64_t rows, n, k;
  /// Bytes of one row of the communicated value.
  int64_t rowBytes;
  /// The ring moves blocks over CUDA IPC copies (else over NCCL).
  bool copyEngineRing;
  /// Members of a team sit on different nodes: NCCL moves the blocks over
  /// the network, and CUDA IPC cannot reach them (no copy-engine ring).
  bool crossesNodes = false;

  /// The link NCCL communicates over.
  const LinkCalibration &getNcclLink(const PipelineCalibration &machine) const {
    return crossesNodes ? machine.network : machine.nccl;
  }
};

struct PipelinePlan {
  Pipelining mode;
  /// Chunks of each rank's block (0 with `none`).
  int64_t chunks;
  double seconds;
};

/// The fewest chunks per block a ring of `kind` runs in: a ring that
/// reduces (GEMM+RS, GEMM+allreduce) adds each chunk's local product to
/// what the peers sent, so it overlaps only across chunks.
int64_t getMinRingChunks(PipelineProblem::Kind kind);

/// The estimated time of `mode` with `chunks`.
double estimatePipeline(const PipelineProblem &problem, Pipelining mode,
                        int64_t chunks, const PipelineCalibration &machine);

/// The fastest plan among no overlap, the collective pipeline in 2, 4 or 8
/// chunks and the ring in 1, 2 or 4 chunks per block (2 or 4 for a ring
/// that reduces), of those whose chunks divide each rank's block of rows.
PipelinePlan choosePipeline(const PipelineProblem &problem,
                            const PipelineCalibration &machine);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECOSTMODEL_H
