//===- Npy.h - f32 .npy files ---------------------------------*- C++ -*-===//
#ifndef FUSER_RUNTIME_EXEC_NPY_H
#define FUSER_RUNTIME_EXEC_NPY_H

#include "fuser/Support/MeshMath.h"

#include <string>
#include <vector>

namespace fuser {

/// Reads a little-endian f32 array in C order of exactly `shape`; false
/// with `error` set otherwise (other types, Fortran order, another shape).
bool readNpy(const std::string &path, const Shape &shape,
             std::vector<float> &values, std::string &error);
/// Writes `values` as a little-endian f32 array of `shape` in C order.
bool writeNpy(const std::string &path, const Shape &shape,
              const std::vector<float> &values, std::string &error);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_NPY_H
