//===- ReferenceCheck.h - every piece against the reference ----*- C++ -*-===//
//
// fuser-exec --check: every rank runs the unsharded reference (a CPU
// function; the ranks share the node's threads, so this takes the time one
// rank alone would) and compares every piece it holds (a shard, or a whole
// copy of a replicated output) with the part of the reference it must
// hold; rank 0 collects the verdicts. A replica that differs from the
// others is a miscompile: comparing one copy would miss it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_REFERENCECHECK_H
#define FUSER_RUNTIME_EXEC_REFERENCECHECK_H

#include "ProgramRunner.h"

#include <string>
#include <vector>

namespace fuser {

/// The verdict of a check, on rank 0.
struct CheckVerdict {
  /// The largest relative error of any piece: |value - reference| over the
  /// largest |reference| of its output (NaN where a value is NaN and the
  /// reference's is not).
  double worstError = 0;
  /// One line per piece whose relative error exceeds the tolerance, naming
  /// the output, the rank and its first such element:
  /// "output #0 on rank 1 differs from the reference: element [1, 2] is 7
  /// but the reference has 5 (max relative error 0.4)".
  std::vector<std::string> differences;
};

/// Compares `pieces` (this rank's piece of each output in `outputs`) with
/// `expected` (the reference's outputs whole). Collective; the verdict is
/// rank 0's.
CheckVerdict checkEveryPiece(const std::vector<const TensorSpec *> &outputs,
                             const std::vector<HostTensor> &pieces,
                             const std::vector<HostTensor> &expected,
                             double tolerance);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_REFERENCECHECK_H
