//===- ProgramMetadata.h - what fuser-compile says of a library -*- C++ -*-===//
//
// fuser-compile embeds one JSON document in every library it writes (the
// string fuser_program_metadata, also written as prog.so.json): the target,
// the machine it was planned for (ranks per node, the calibration `auto`
// weighed), and for each program its entry points and the global shape,
// element type and sharding of every input and output. Its fields:
// fuser/Runtime/ProgramMetadataSchema.h, which the writer uses too.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H
#define FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include <optional>
#include <string>
#include <vector>

namespace fuser {

/// One input or output of a program.
struct TensorSpec {
  bool isInput;
  std::string dtype;
  FuserDType code;
  Shape shape;
  Mesh mesh;
  DimAxes dimAxes;

  int64_t numElements() const;
};

struct ProgramSpec {
  std::string name, entry, reference;
  /// For a generated derivative program, the program it differentiates
  /// (empty otherwise); for @f__bwd, the inputs of f it takes first.
  std::string derivativeOf;
  std::optional<std::vector<int64_t>> vjpInputs;
  /// Inputs first, then outputs.
  std::vector<TensorSpec> tensors;
};

/// The calibration pipelining=auto planned the programs with.
struct CalibrationSpec {
  /// What the compiler said of it ("built-in ...", or its file and machine).
  std::string used;
  /// The machine it was measured on; empty or 0 where it does not say.
  std::string gpu;
  int64_t devices = 0, ranksPerNode = 0;
};

struct ProgramMetadata {
  /// "cpu" or "cuda".
  std::string target;
  /// The ranks of each node the programs were compiled for; 0 where the
  /// library does not say.
  int64_t ranksPerNode = 0;
  /// Absent under a fixed pipelining mode.
  std::optional<CalibrationSpec> calibration;
  std::vector<ProgramSpec> programs;
};

/// Reads the JSON document; false with a message when it is not one
/// fuser-compile writes.
bool parseProgramMetadata(const std::string &text, ProgramMetadata &metadata,
                          std::string &error);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H
