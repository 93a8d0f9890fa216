//===- PipelineCostModel.h - choosing how a pipeline overlaps ---*- C++ -*-===//
//
// Estimates the time of a pipelined communication and the GEMMs beside it
// (AG+GEMM, GEMM+RS, GEMM+allreduce) for each way of running it, from a
// calibration of the machine: the GEMM rate per shape class, and the rate,
// latency and interference of each link. `pipelining=auto` takes the
// fastest plan (docs/stream-pipelining.md, "Choosing a plan").
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PIPELINECOSTMODEL_H
#define FUSER_DIALECT_FUSER_TRANSFORMS_PIPELINECOSTMODEL_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::fuser {

/// A link between team members.
struct LinkCalibration {
  /// Bytes per second one rank receives while every rank sends.
  double bytesPerSecond;
  /// Seconds per transfer beyond its bytes.
  double latency;
  /// The share of the shorter of a transfer and a GEMM running together
  /// that still adds to their time: 0 overlaps perfectly, 1 serializes
  /// (collectives running kernels on the SMs the GEMM uses come close).
  double interference;
};

/// GEMMs whose smallest dim is at least `minDim` run at `flopsPerSecond`.
struct GemmClass {
  int64_t minDim;
  double flopsPerSecond;
};

struct PipelineCalibration {
  /// Largest `minDim` first; the last class takes every smaller GEMM.
  llvm::SmallVector<GemmClass> gemmClasses;
  /// Seconds per GEMM call beyond its FLOPs (launch, ramp-up, tail).
  double gemmCallOverhead;
  /// GEMMs of more than `sustainedAboveFlop` FLOPs run at most at
  /// `sustainedFlopsPerSecond`: long kernels run into the power limit.
  double sustainedAboveFlop;
  double sustainedFlopsPerSecond;
  /// Device memory bytes per second (copies and reductions of blocks).
  double memoryBytesPerSecond;
  LinkCalibration nccl;
  LinkCalibration copyEngine;

  /// The measured 2 x H200 (NVLink) machine: docs/stream-pipelining.md.
  static PipelineCalibration h200();
  /// `h200()` with the values a JSON file states replaced.
  static llvm::Expected<PipelineCalibration> load(llvm::StringRef path);

  double gemmSeconds(int64_t m, int64_t n, int64_t k) const;
};

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

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PIPELINECOSTMODEL_H
