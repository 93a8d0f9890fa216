//===- ProgramMetadata.h - what fuser-compile says of a library -*- C++ -*-===//
//
// fuser-compile embeds one JSON document in every library it writes (the
// string fuser_program_metadata, also written as prog.so.json): the target,
// and for each program its entry points and the global shape, element type
// and sharding of every input and output.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H
#define FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

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
  /// Inputs first, then outputs.
  std::vector<TensorSpec> tensors;
};

struct ProgramMetadata {
  /// "cpu" or "cuda".
  std::string target;
  std::vector<ProgramSpec> programs;
};

/// Reads the JSON document; false with a message when it is not one
/// fuser-compile writes.
bool parseProgramMetadata(const std::string &text, ProgramMetadata &metadata,
                          std::string &error);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_PROGRAMMETADATA_H
