//===- ArrayExchange.h - program tensors to and from NumPy --------*- C++
//-*-===//
//
// Programs take and give NumPy arrays by copy: an array becomes a
// contiguous host tensor of the program's element type, and a result comes
// back as a new array (bf16 as float32, which holds every bf16 value).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_PYTHON_ARRAYEXCHANGE_H
#define FUSER_PYTHON_ARRAYEXCHANGE_H

#include "ProgramRunner.h"

#include <pybind11/numpy.h>

#include <string>

namespace fuser::python {

/// "[8, 64]".
std::string describeShape(const Shape &shape);

/// `value` as a tensor of `tensor`'s element type and `shape`, or a
/// TypeError / ValueError naming `input` ("input 'x' (#0)").
HostTensor toHostTensor(pybind11::handle value, const TensorSpec &tensor,
                        const Shape &shape, const std::string &input);

/// A new array holding `values`.
pybind11::array toArray(const HostTensor &values, const Shape &shape);

} // namespace fuser::python

#endif // FUSER_PYTHON_ARRAYEXCHANGE_H
