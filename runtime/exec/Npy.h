//===- Npy.h - f32 .npy files ---------------------------------*- C++ -*-===//
#ifndef FUSER_RUNTIME_EXEC_NPY_H
#define FUSER_RUNTIME_EXEC_NPY_H

#include "fuser/Support/MeshMath.h"

#include <string>
#include <vector>

namespace fuser {

/// Reads a little-endian f32 array in C order of exactly `shape` (format
/// versions 1 to 3); false with `error` naming the file and what is wrong
/// otherwise: a file that cannot be opened or is not a .npy file, a header
/// or data cut short, another element type or order, another shape, bytes
/// after the data.
bool readNpy(const std::string &path, const Shape &shape,
             std::vector<float> &values, std::string &error);
/// Writes `values` as a little-endian f32 array of `shape` in C order.
bool writeNpy(const std::string &path, const Shape &shape,
              const std::vector<float> &values, std::string &error);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_NPY_H
