//===- ReferenceCheck.cpp - every piece against the reference ------------===//

#include "ReferenceCheck.h"

#include "BoundedCollectives.h"

#include <cmath>
#include <cstdio>
#include <optional>

using namespace fuser;

namespace {
/// How one rank's piece of one output compares with the reference; plain
/// data, gathered on rank 0 as bytes.
struct PieceComparison {
  /// Whether the rank holds a piece of the output (it is in its mesh).
  bool holdsPiece = false;
  double error = 0;
  /// The row-major index in the piece of the first element whose relative
  /// error exceeds the tolerance, or -1.
  int64_t firstDifference = -1;
  double value = 0, reference = 0;
};

/// |value - reference| relative to `scale`: 0 where both are NaN (the
/// program computed what the reference did), NaN where one is.
double relativeError(double value, double reference, double scale) {
  if (std::isnan(value) && std::isnan(reference))
    return 0;
  double difference = std::fabs(value - reference);
  return scale > 0 ? difference / scale : difference;
}

/// Raises `worst` to `error`; a NaN, once there, stays.
void keepWorst(double &worst, double error) {
  if (!std::isnan(worst) && (std::isnan(error) || error > worst))
    worst = error;
}

PieceComparison comparePiece(const TensorSpec &output,
                             const HostTensor &reference,
                             const HostTensor &piece, int64_t device,
                             double tolerance) {
  PieceComparison comparison;
  if (!shardOffsetOn(output.shape, output.dimAxes, output.mesh, device))
    return comparison;
  comparison.holdsPiece = true;
  double scale = 0;
  for (int64_t i = 0; i < reference.size(); ++i)
    if (!std::isnan(reference.get(i)))
      scale = std::max(scale, std::fabs(reference.get(i)));
  Shape localShape;
  HostTensor wanted = pieceOf(output, reference, device, localShape);
  for (int64_t i = 0; i < wanted.size(); ++i) {
    double error = relativeError(piece.get(i), wanted.get(i), scale);
    keepWorst(comparison.error, error);
    if (comparison.firstDifference < 0 && !(error <= tolerance)) {
      comparison.firstDifference = i;
      comparison.value = piece.get(i);
      comparison.reference = wanted.get(i);
    }
  }
  return comparison;
}

/// "[1, 2]": the global coordinates of element `index` of `device`'s piece.
std::string elementText(const TensorSpec &output, int64_t device,
                        int64_t index) {
  Shape localShape = localShapeOf(output, device);
  Shape coordinates =
      *shardOffsetOn(output.shape, output.dimAxes, output.mesh, device);
  for (size_t dim = localShape.size(); dim-- > 0;) {
    coordinates[dim] += index % localShape[dim];
    index /= localShape[dim];
  }
  std::string text = "[";
  for (size_t dim = 0; dim < coordinates.size(); ++dim)
    text += (dim ? ", " : "") + std::to_string(coordinates[dim]);
  return text + "]";
}

std::string differenceLine(const TensorSpec &output, size_t outputIndex,
                           int64_t device, const PieceComparison &piece) {
  char text[512];
  std::snprintf(text, sizeof(text),
                "output #%zu on rank %lld differs from the reference: element "
                "%s is %.7g but the reference has %.7g (max relative error "
                "%.3g)",
                outputIndex, static_cast<long long>(device),
                elementText(output, device, piece.firstDifference).c_str(),
                piece.value, piece.reference, piece.error);
  return text;
}
} // namespace

CheckVerdict
fuser::checkEveryPiece(const std::vector<const TensorSpec *> &outputs,
                       const std::vector<HostTensor> &pieces,
                       const std::vector<HostTensor> &expected,
                       double tolerance) {
  int64_t rank = fuser_rank(), worldSize = fuser_world_size();
  std::vector<PieceComparison> mine;
  for (size_t o = 0; o < outputs.size(); ++o)
    mine.push_back(
        comparePiece(*outputs[o], expected[o], pieces[o], rank, tolerance));
  std::vector<PieceComparison> all(rank == 0 ? worldSize * outputs.size() : 0);
  boundedGather(mine.data(),
                static_cast<int>(mine.size() * sizeof(PieceComparison)),
                all.data(), "collecting every rank's comparison");
  CheckVerdict verdict;
  for (size_t o = 0; o < outputs.size() && rank == 0; ++o)
    for (int64_t device = 0; device < worldSize; ++device) {
      const PieceComparison &piece = all[device * outputs.size() + o];
      if (!piece.holdsPiece)
        continue;
      keepWorst(verdict.worstError, piece.error);
      if (piece.firstDifference >= 0)
        verdict.differences.push_back(
            differenceLine(*outputs[o], o, device, piece));
    }
  return verdict;
}
