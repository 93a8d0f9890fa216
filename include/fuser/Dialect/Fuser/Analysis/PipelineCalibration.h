//===- PipelineCalibration.h - a machine's GEMMs and links -----*- C++ -*-===//
//
// The measurements the pipelining cost model estimates from: GEMM rates per
// shape class and the rate, latency and interference of each link. A
// machine's own calibration (a JSON file `fuser-calibrate` writes) is found
// by the machine it was measured on; machines never calibrated get the
// built-in one (docs/stream-pipelining.md, "Calibrations").
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECALIBRATION_H
#define FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECALIBRATION_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
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

/// The machine a calibration was measured on; 0 or empty: not stated.
struct CalibratedMachine {
  /// The device model, as the runtime names it ("NVIDIA H200", "cpu").
  std::string gpu;
  /// The ranks of the job, one device each.
  int64_t devices = 0;
  /// The ranks of each node.
  int64_t ranksPerNode = 0;
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
  /// NCCL between GPUs of one node.
  LinkCalibration nccl;
  /// CUDA IPC copies between GPUs of one node.
  LinkCalibration copyEngine;
  /// NCCL between nodes (its network transport).
  LinkCalibration network;
  CalibratedMachine machine;
  /// The file it was read from; empty for the built-in calibration.
  std::string path;

  /// The measured 2 x H200 (NVLink) machine: docs/stream-pipelining.md.
  static PipelineCalibration h200();
  /// `h200()` with the values a JSON file states replaced.
  static llvm::Expected<PipelineCalibration> load(llvm::StringRef path);

  double gemmSeconds(int64_t m, int64_t n, int64_t k) const;
  /// What a compilation reports: the file and its machine, or "built-in".
  std::string describe() const;
};

/// Which calibration `pipelining=auto` weighs a program of `devices` ranks
/// with (ranksPerNode 0: any topology), in order: `choice` (a file or a
/// folder of calibrations, or "builtin"), else $FUSER_CALIBRATION (the
/// same), else the folder ${XDG_DATA_HOME:-$HOME/.local/share}/fuser/
/// calibrations where it exists, else the built-in one. In a folder, the
/// calibration whose machine has `devices` devices (and `ranksPerNode`
/// where given); none: the built-in one; more than one: an error naming
/// them.
llvm::Expected<PipelineCalibration>
findCalibration(llvm::StringRef choice, int64_t devices, int64_t ranksPerNode);

/// The folder fuser-calibrate writes to and findCalibration reads from
/// when neither a choice nor $FUSER_CALIBRATION names one.
std::string getDefaultCalibrationFolder();

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_ANALYSIS_PIPELINECALIBRATION_H
