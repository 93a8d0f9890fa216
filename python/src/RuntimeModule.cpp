//===- RuntimeModule.cpp - running compiled programs from Python ----------===//
//
// fuser_mlir._runtime: loads a library the compiler wrote and runs one of
// its programs on the MPI ranks of this process's world (mpirun starts one
// Python per rank), with NumPy arrays: each rank passes the global inputs
// and the runner cuts its piece, or passes its own piece; the outputs come
// back whole on every rank, or as the rank's piece. The same runner as
// fuser-exec (runtime/exec/ProgramRunner.h).
//
//===----------------------------------------------------------------------===//

#include "ProgramRunner.h"

#include <mpi.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace fuser;

namespace {

void initialize() {
  if (fuser_init(nullptr, nullptr) != FUSER_OK)
    throw std::runtime_error(fuser_last_error());
}

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

std::string describeShape(const Shape &shape) {
  std::string text = "[";
  for (size_t dim = 0; dim < shape.size(); ++dim)
    text += (dim ? ", " : "") + std::to_string(shape[dim]);
  return text + "]";
}

/// `array` as a tensor of `tensor`'s element type and `shape`, or a
/// TypeError / ValueError naming input `index`.
HostTensor toHostTensor(py::handle value, const TensorSpec &tensor,
                        const Shape &shape, size_t index) {
  py::dtype expected = numpyDtype(tensor.code);
  auto array = py::array::ensure(value);
  if (!array)
    throw py::type_error("input #" + std::to_string(index) +
                         " is not an array");
  if (!array.dtype().is(expected))
    throw py::type_error("input #" + std::to_string(index) + " is " +
                         py::str(array.dtype()).cast<std::string>() +
                         "; the program takes " + tensor.dtype + " (" +
                         py::str(expected).cast<std::string>() + ")");
  Shape given(array.shape(), array.shape() + array.ndim());
  if (given != shape)
    throw py::value_error("input #" + std::to_string(index) + " has shape " +
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

py::array toArray(const HostTensor &values, FuserDType code,
                  const Shape &shape) {
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

py::dict describeTensor(const TensorSpec &tensor) {
  py::dict fields;
  fields["dtype"] = tensor.dtype;
  fields["shape"] = tensor.shape;
  fields["mesh_shape"] = tensor.mesh.shape;
  fields["devices"] = tensor.mesh.devices;
  fields["dim_axes"] = tensor.dimAxes;
  return fields;
}

/// A loaded library.
class Library {
public:
  explicit Library(const std::string &path) {
    std::string error;
    std::optional<ProgramLibrary> loaded = loadProgramLibrary(path, error);
    if (!loaded)
      throw py::value_error(error);
    library = std::move(*loaded);
  }

  std::vector<std::string> programs() const {
    std::vector<std::string> names;
    for (const ProgramSpec &program : library.metadata.programs)
      names.push_back(program.name);
    return names;
  }

  const ProgramSpec &program(const std::string &name) const {
    const ProgramSpec *found = name.empty() ? nullptr : library.find(name);
    if (!found)
      throw py::key_error("no program named '" + name + "'");
    return *found;
  }

  py::list signature(const std::string &name, bool inputs) const {
    py::list tensors;
    for (const TensorSpec &tensor : program(name).tensors)
      if (tensor.isInput == inputs)
        tensors.append(describeTensor(tensor));
    return tensors;
  }

  py::list run(const std::string &name, const py::sequence &arrays, bool pieces,
               bool gather) const {
    const ProgramSpec &spec = program(name);
    initialize();
    std::string arity = checkEntryArity(spec);
    if (!arity.empty())
      throw py::value_error(arity);
    int64_t devices = ProgramLibrary::devicesOf(spec);
    if (fuser_expect_world_size(devices) != FUSER_OK)
      throw std::runtime_error(fuser_last_error());
    int64_t rank = fuser_rank();
    size_t expected =
        std::count_if(spec.tensors.begin(), spec.tensors.end(),
                      [](const TensorSpec &tensor) { return tensor.isInput; });
    if (expected != py::len(arrays))
      throw py::value_error(spec.name + " takes " + std::to_string(expected) +
                            " inputs, not " + std::to_string(py::len(arrays)));
    std::vector<const TensorSpec *> outputs;
    std::vector<HostTensor> locals;
    std::vector<Shape> localShapes;
    size_t index = 0;
    for (const TensorSpec &tensor : spec.tensors) {
      if (!tensor.isInput) {
        outputs.push_back(&tensor);
        continue;
      }
      Shape localShape;
      if (pieces) {
        localShape = localShapeOf(tensor, rank);
        locals.push_back(
            toHostTensor(arrays[index], tensor, localShape, index));
      } else {
        HostTensor global =
            toHostTensor(arrays[index], tensor, tensor.shape, index);
        locals.push_back(pieceOf(tensor, global, rank, localShape));
      }
      localShapes.push_back(localShape);
      ++index;
    }
    bool onDevice = library.metadata.target == "cuda";
    if (onDevice && fuser_use_backend(FUSER_BACKEND_CUDA) != FUSER_OK)
      throw std::runtime_error(
          spec.name + " was compiled for CUDA GPUs: " + fuser_last_error());
    std::vector<HostTensor> results;
    {
      ProgramInputs inputs(locals, localShapes, onDevice);
      results = fuser::run(library.entry(spec), inputs, outputs);
    }
    py::list values;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const TensorSpec &tensor = *outputs[o];
      if (!gather) {
        values.append(
            toArray(results[o], tensor.code, localShapeOf(tensor, rank)));
        continue;
      }
      HostTensor global = gatherOnRankZero(tensor, results[o], devices);
      global.bytes.resize(static_cast<size_t>(tensor.numElements()) *
                          fuser_element_size(tensor.code));
      MPI_Bcast(global.bytes.data(), static_cast<int>(global.bytes.size()),
                MPI_BYTE, 0, MPI_COMM_WORLD);
      values.append(toArray(global, tensor.code, tensor.shape));
    }
    return values;
  }

  std::string target() const { return library.metadata.target; }

private:
  ProgramLibrary library;
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Runs programs the compiler wrote on this process's MPI ranks";
  m.def("rank", [] {
    initialize();
    return fuser_rank();
  });
  m.def("world_size", [] {
    initialize();
    return fuser_world_size();
  });
  m.def("finalize", &fuser_finalize,
        "Frees the runtime's caches and ends MPI (once, at exit)");
  py::class_<Library>(m, "Library")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def_property_readonly("target", &Library::target)
      .def_property_readonly("programs", &Library::programs)
      .def(
          "inputs",
          [](const Library &library, const std::string &name) {
            return library.signature(name, /*inputs=*/true);
          },
          py::arg("program"))
      .def(
          "outputs",
          [](const Library &library, const std::string &name) {
            return library.signature(name, /*inputs=*/false);
          },
          py::arg("program"))
      .def("run", &Library::run, py::arg("program"), py::arg("inputs"),
           py::kw_only(), py::arg("pieces") = false, py::arg("gather") = true);
}
