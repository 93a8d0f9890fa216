//===- CalibrationFile.h - what fuser-calibrate measured --------*- C++ -*-===//
//
// The calibration file the compiler's cost model reads
// (mlir::fuser::PipelineCalibration::load; docs/stream-pipelining.md,
// "Calibrations"): format "fuser-calibration", version 1, the machine it
// was measured on (what `auto` finds it by), and what was measured. What
// could not be measured here (a link this job has no two ranks for) is
// left out and listed under "not_measured": the compiler keeps its
// built-in values for it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CALIBRATE_CALIBRATIONFILE_H
#define FUSER_RUNTIME_CALIBRATE_CALIBRATIONFILE_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fuser::calibrate {

/// A link's time per transfer: latency + bytes / bytesPerSecond, and the
/// share of the shorter of it and a GEMM beside it that adds to their time.
struct Link {
  double bytesPerSecond;
  double latency;
  double interference;
};

/// `latency + bytes / rate` fitted (least squares) to (bytes, seconds)
/// samples of at least two sizes; a negative latency fit is clamped to 0.
/// Nullopt where the samples do not grow with their bytes.
std::optional<Link>
fitLink(const std::vector<std::pair<double, double>> &samples);

struct Calibration {
  /// The machine: device model, ranks, ranks of each node, nodes.
  std::string gpu;
  int64_t devices, ranksPerNode, nodes;
  /// The backend measured on ("cuda", "host"), when, and in how long.
  std::string backend, date;
  double seconds;

  /// (min_dim, FLOP/s), largest min_dim first.
  std::vector<std::pair<int64_t, double>> gemmClasses;
  double gemmCallOverhead;
  /// GEMMs of more FLOPs than `sustainedAboveFlop` run at most at the
  /// sustained rate (not measured on CPU ranks).
  std::optional<std::pair<double, double>> sustained;
  double memoryBytesPerSecond;
  std::optional<Link> nccl, copyEngine, network;
};

/// The document, as the compiler reads it.
std::string writeCalibration(const Calibration &calibration);

/// "nvidia-h200-2gpu-1node.json", "cpu-2rank-1node.json": a folder holds
/// one calibration per machine and topology.
std::string getCalibrationFileName(const Calibration &calibration);

/// Where calibrations go unless --output says: the folder
/// $FUSER_CALIBRATION names, else ${XDG_DATA_HOME:-$HOME/.local/share}/
/// fuser/calibrations, the folder the compiler reads by default. Empty
/// without a home.
std::string getOutputFolder();

} // namespace fuser::calibrate

#endif // FUSER_RUNTIME_CALIBRATE_CALIBRATIONFILE_H
