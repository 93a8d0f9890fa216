//===- Npy.h - f32 .npy files ---------------------------------*- C++ -*-===//
//
// Tensors of any element type as f32 .npy files (bf16 and f16 values are
// exact in f32), converted as they are read and written on the host's
// worker threads: the inputs and gradients of a GPT layer are gigabytes.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_NPY_H
#define FUSER_RUNTIME_EXEC_NPY_H

#include "ProgramRunner.h"

#include <string>

namespace fuser {

/// Reads a little-endian f32 array in C order of exactly `shape` (format
/// versions 1 to 3); false with `error` naming the file and what is wrong
/// otherwise: a file that cannot be opened or is not a .npy file, a header
/// or data cut short, another element type or order, another shape, bytes
/// after the data. The elements are stored in `values` (of the shape's
/// size) as its element type.
bool readNpy(const std::string &path, const Shape &shape, HostTensor &values,
             std::string &error);
/// Writes `values` as a little-endian f32 array of `shape` in C order.
bool writeNpy(const std::string &path, const Shape &shape,
              const HostTensor &values, std::string &error);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_NPY_H
