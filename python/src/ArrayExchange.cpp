//===- ArrayExchange.cpp - program tensors to and from NumPy --------------===//

#include "ArrayExchange.h"

#include <cstring>

namespace py = pybind11;
using namespace fuser;

namespace {
/// The NumPy dtype that holds `code` (bf16: float32, which holds every
/// bf16 value exactly).
py::dtype numpyDtype(FuserDType code) {
  switch (code) {
  case FUSER_F32:
  case FUSER_BF16:
    return py::dtype::of<float>();
  case FUSER_F16:
    return py::dtype("float16");
  case FUSER_F64:
    return py::dtype::of<double>();
  case FUSER_I64:
    return py::dtype::of<int64_t>();
  case FUSER_I32:
    return py::dtype::of<int32_t>();
  case FUSER_I8:
    return py::dtype::of<int8_t>();
  case FUSER_I1:
    return py::dtype::of<bool>();
  }
  throw std::logic_error("unknown element type");
}

} // namespace

std::string fuser::python::describeShape(const Shape &shape) {
  std::string text = "[";
  for (size_t dim = 0; dim < shape.size(); ++dim)
    text += (dim ? ", " : "") + std::to_string(shape[dim]);
  return text + "]";
}

HostTensor fuser::python::toHostTensor(py::handle value,
                                       const TensorSpec &tensor,
                                       const Shape &shape,
                                       const std::string &input) {
  py::dtype expected = numpyDtype(tensor.code);
  auto array = py::array::ensure(value);
  if (!array)
    throw py::type_error(input + " is not an array");
  if (!array.dtype().is(expected))
    throw py::type_error(input + " is " +
                         py::str(array.dtype()).cast<std::string>() +
                         "; the program takes " + tensor.dtype + " (" +
                         py::str(expected).cast<std::string>() + ")");
  Shape given(array.shape(), array.shape() + array.ndim());
  if (given != shape)
    throw py::value_error(input + " has shape " +
                          describeShape(given) + "; the program takes " +
                          describeShape(shape));
  auto contiguous = py::array::ensure(array, py::array::c_style);
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  HostTensor values(tensor.code, count);
  if (tensor.code == FUSER_BF16) {
    const float *data = static_cast<const float *>(contiguous.data());
    for (int64_t i = 0; i < count; ++i)
      values.set(i, data[i]);
  } else {
    std::memcpy(values.bytes.data(), contiguous.data(), values.bytes.size());
  }
  return values;
}

py::array fuser::python::toArray(const HostTensor &values, const Shape &shape) {
  FuserDType code = values.dtype;
  py::array array(numpyDtype(code),
                  std::vector<py::ssize_t>(shape.begin(), shape.end()));
  if (code == FUSER_BF16) {
    auto *data = static_cast<float *>(array.mutable_data());
    for (int64_t i = 0; i < values.size(); ++i)
      data[i] = static_cast<float>(values.get(i));
  } else {
    std::memcpy(array.mutable_data(), values.bytes.data(), values.bytes.size());
  }
  return array;
}
