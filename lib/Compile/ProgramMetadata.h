//===- ProgramMetadata.h - what a compiled library says of itself -*- C++ -*-//
//
// The JSON document a compiled library carries (as the string
// `fuser_program_metadata`) and writes next to itself: its target, the
// machine it was planned for (nodes, the calibration `auto` weighed) and,
// per program, its entry points and the global shape, element type and
// sharding of each input and output. fuser-exec reads it; both sides take
// the fields from fuser/Runtime/ProgramMetadataSchema.h.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_COMPILE_PROGRAMMETADATA_H
#define FUSER_LIB_COMPILE_PROGRAMMETADATA_H

#include "fuser/Compile/Compile.h"
#include "fuser/Dialect/Fuser/Analysis/PipelineCalibration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace fuser {

/// One tensor of a program's signature.
struct TensorInfo {
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<int64_t> meshShape;
  llvm::SmallVector<int64_t> devices;
  llvm::SmallVector<llvm::SmallVector<int64_t>> dimAxes;
};

/// One program of the library: its name and signature.
struct ProgramInfo {
  std::string name;
  std::vector<TensorInfo> inputs, outputs;
  /// For a generated derivative program (fuser.derivative_of), the program
  /// it differentiates; for @f__bwd, the inputs of f it takes first
  /// (fuser.vjp_inputs): what a caller needs to chain @f__fwd and @f__bwd.
  std::string derivativeOf;
  std::optional<std::vector<int64_t>> vjpInputs;
};

/// The machine the programs were planned for.
struct PlannedFor {
  /// The calibration pipelining=auto weighed (its description), empty
  /// under a fixed mode, and the machine it was measured on.
  std::string calibration;
  mlir::fuser::CalibratedMachine calibrated;
  /// The ranks of each node the programs were compiled for.
  int64_t ranksPerNode;
};

/// The signature of `function`, or an error on it for a type the runtime
/// cannot hold.
std::optional<ProgramInfo> describeProgram(mlir::func::FuncOp function);

std::string writeMetadata(llvm::ArrayRef<ProgramInfo> programs,
                          const CompileOptions &options,
                          const PlannedFor &machine);

} // namespace fuser

#endif // FUSER_LIB_COMPILE_PROGRAMMETADATA_H
