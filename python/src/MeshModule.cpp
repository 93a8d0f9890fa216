//===- MeshModule.cpp - Python bindings of the mesh arithmetic ------------===//

#include "fuser/Support/MeshMath.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>

namespace py = pybind11;
using fuser::Mesh;

namespace {

/// Rejects what the C++ helpers assume away (they assert instead of
/// throwing), so bad Python input raises ValueError; the same check as
/// #fuser.mesh's verifier. Device ids are given in full or left out.
Mesh makeMesh(const fuser::Shape &shape,
              const std::optional<std::vector<int64_t>> &devices) {
  if (devices && devices->empty())
    throw py::value_error("give every device id or none");
  std::string problem =
      fuser::checkMesh(shape, devices.value_or(std::vector<int64_t>()));
  if (!problem.empty())
    throw py::value_error(problem);
  return devices ? Mesh{shape, *devices} : Mesh::iota(shape);
}

void checkAxes(const Mesh &mesh, const std::vector<int64_t> &axes) {
  for (int64_t axis : axes)
    if (axis < 0 || axis >= mesh.rank())
      throw py::value_error("mesh axis " + std::to_string(axis) +
                            " is out of range for a mesh of " +
                            std::to_string(mesh.rank()) + " axes");
}

void checkSharding(const fuser::Shape &shape, const fuser::DimAxes &dimAxes,
                   const Mesh &mesh) {
  if (shape.size() != dimAxes.size())
    throw py::value_error("sharding describes " +
                          std::to_string(dimAxes.size()) +
                          " dims but the shape has " +
                          std::to_string(shape.size()));
  for (const auto &axes : dimAxes)
    checkAxes(mesh, axes);
  std::string problem = fuser::checkDivisible(shape, dimAxes, mesh);
  if (!problem.empty())
    throw py::value_error(problem);
}

} // namespace

PYBIND11_MODULE(_mesh, m) {
  m.doc() = "Device-mesh and shard arithmetic shared with the runtime";

  py::class_<Mesh>(m, "Mesh")
      .def(py::init(&makeMesh),
           py::arg("shape"), py::arg("devices") = py::none())
      .def_readonly("shape", &Mesh::shape)
      .def_readonly("devices", &Mesh::devices)
      .def_property_readonly("num_devices", &Mesh::numDevices)
      .def("coordinates_of", &Mesh::coordinatesOf, py::arg("device"),
           "Mesh coordinates of a device, or None if it is not in the mesh.")
      .def(
          "team",
          [](const Mesh &mesh, int64_t device, const std::vector<int64_t> &axes) {
            checkAxes(mesh, axes);
            return mesh.team(device, axes);
          },
          py::arg("device"), py::arg("axes"),
          "Devices of the mesh slice along `axes` that contains `device`.")
      .def(
          "index_in_team",
          [](const Mesh &mesh, int64_t device, const std::vector<int64_t> &axes) {
            checkAxes(mesh, axes);
            return mesh.indexInTeam(device, axes);
          },
          py::arg("device"), py::arg("axes"))
      .def("__repr__", [](const Mesh &mesh) {
        std::string text = "Mesh(shape=[";
        for (size_t i = 0; i < mesh.shape.size(); ++i)
          text += (i ? ", " : "") + std::to_string(mesh.shape[i]);
        return text + "])";
      });

  m.def(
      "local_shape",
      [](const fuser::Shape &shape, const fuser::DimAxes &dimAxes,
         const Mesh &mesh, int64_t device) {
        checkSharding(shape, dimAxes, mesh);
        return fuser::localShapeOn(shape, dimAxes, mesh, device);
      },
      py::arg("global_shape"), py::arg("dim_axes"), py::arg("mesh"),
      py::arg("device"),
      "Shape of `device`'s shard, or None if the device holds none.");
  m.def(
      "shard_offset",
      [](const fuser::Shape &shape, const fuser::DimAxes &dimAxes,
         const Mesh &mesh, int64_t device) {
        checkSharding(shape, dimAxes, mesh);
        return fuser::shardOffsetOn(shape, dimAxes, mesh, device);
      },
      py::arg("global_shape"), py::arg("dim_axes"), py::arg("mesh"),
      py::arg("device"),
      "Offset of `device`'s shard in the global tensor, or None.");
}
