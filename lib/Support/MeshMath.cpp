//===- MeshMath.cpp - Device-mesh and shard arithmetic --------------------===//

#include "fuser/Support/MeshMath.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace fuser {

Mesh Mesh::iota(Shape shape) {
  Mesh mesh{std::move(shape), {}};
  mesh.devices.resize(mesh.numDevices());
  std::iota(mesh.devices.begin(), mesh.devices.end(), 0);
  return mesh;
}

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

std::string checkMesh(const Shape &shape, const std::vector<int64_t> &devices) {
  std::ostringstream problem;
  if (shape.empty())
    return "mesh must have at least one axis";
  for (size_t axis = 0; axis < shape.size(); ++axis)
    if (shape[axis] <= 0) {
      problem << "mesh axis " << axis << " has size " << shape[axis]
              << "; sizes must be positive";
      return problem.str();
    }
  // Multiply with a bound so that the count itself cannot overflow.
  int64_t positions = 1;
  for (int64_t size : shape) {
    if (size > kMaxMeshDevices / positions) {
      problem << "mesh has more than " << kMaxMeshDevices
              << " positions, the most supported";
      return problem.str();
    }
    positions *= size;
  }
  if (devices.empty())
    return {};
  if (static_cast<int64_t>(devices.size()) != positions) {
    problem << "mesh of " << positions << " positions has " << devices.size()
            << " device ids";
    return problem.str();
  }
  // First position of each id, so that long id lists are checked in linear
  // time.
  std::unordered_map<int64_t, size_t> firstPosition;
  firstPosition.reserve(devices.size());
  for (size_t position = 0; position < devices.size(); ++position) {
    if (devices[position] < 0) {
      problem << "device id " << devices[position] << " at position "
              << position << " is negative";
      return problem.str();
    }
    auto [first, inserted] = firstPosition.emplace(devices[position], position);
    if (!inserted) {
      problem << "device id " << devices[position] << " appears at positions "
              << first->second << " and " << position;
      return problem.str();
    }
  }
  return {};
}

std::optional<int64_t> Mesh::linearIndexOf(int64_t device) const {
  auto it = std::find(devices.begin(), devices.end(), device);
  if (it == devices.end())
    return std::nullopt;
  return static_cast<int64_t>(it - devices.begin());
}

std::optional<Shape> Mesh::coordinatesOf(int64_t device) const {
  std::optional<int64_t> linear = linearIndexOf(device);
  if (!linear)
    return std::nullopt;
  Shape coordinates(shape.size());
  int64_t remainder = *linear;
  for (int64_t axis = rank() - 1; axis >= 0; --axis) {
    coordinates[axis] = remainder % shape[axis];
    remainder /= shape[axis];
  }
  return coordinates;
}

int64_t Mesh::deviceAt(const Shape &coordinates) const {
  assert(coordinates.size() == shape.size() && "coordinate rank mismatch");
  int64_t linear = 0;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    assert(coordinates[axis] >= 0 && coordinates[axis] < shape[axis]);
    linear = linear * shape[axis] + coordinates[axis];
  }
  return devices[linear];
}

int64_t Mesh::axesSize(const std::vector<int64_t> &axes) const {
  int64_t size = 1;
  for (int64_t axis : axes)
    size *= shape[axis];
  return size;
}

std::vector<int64_t> Mesh::team(int64_t device,
                                const std::vector<int64_t> &axes) const {
  std::optional<Shape> coordinates = coordinatesOf(device);
  if (!coordinates)
    return {};
  std::vector<int64_t> members;
  members.reserve(axesSize(axes));
  // Enumerate the coordinates of `axes` row-major (first listed axis slowest).
  Shape position = *coordinates;
  for (int64_t axis : axes)
    position[axis] = 0;
  for (int64_t i = 0, n = axesSize(axes); i < n; ++i) {
    int64_t remainder = i;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) {
      position[*it] = remainder % shape[*it];
      remainder /= shape[*it];
    }
    members.push_back(deviceAt(position));
  }
  return members;
}

bool Mesh::teamsSpanNodes(const std::vector<int64_t> &axes,
                          int64_t ranksPerNode) const {
  for (int64_t device : devices) {
    int64_t node = device / ranksPerNode;
    for (int64_t member : team(device, axes))
      if (member / ranksPerNode != node)
        return true;
  }
  return false;
}

std::optional<int64_t> Mesh::indexInTeam(int64_t device,
                                         const std::vector<int64_t> &axes) const {
  std::vector<int64_t> members = team(device, axes);
  auto it = std::find(members.begin(), members.end(), device);
  if (it == members.end())
    return std::nullopt;
  return static_cast<int64_t>(it - members.begin());
}

std::string checkDivisible(const Shape &globalShape, const DimAxes &dimAxes,
                           const Mesh &mesh) {
  for (size_t dim = 0; dim < globalShape.size() && dim < dimAxes.size(); ++dim) {
    int64_t parts = mesh.axesSize(dimAxes[dim]);
    if (globalShape[dim] == kDynamicSize || globalShape[dim] % parts == 0)
      continue;
    std::ostringstream message;
    message << "dim " << dim << " of size " << globalShape[dim]
            << " is not divisible by " << parts << " (mesh axes [";
    for (size_t i = 0; i < dimAxes[dim].size(); ++i)
      message << (i ? ", " : "") << dimAxes[dim][i];
    message << "] of sizes ";
    for (size_t i = 0; i < dimAxes[dim].size(); ++i)
      message << (i ? "x" : "") << mesh.shape[dimAxes[dim][i]];
    message << ")";
    return message.str();
  }
  return {};
}

Shape localShape(const Shape &globalShape, const DimAxes &dimAxes,
                 const Mesh &mesh) {
  assert(globalShape.size() == dimAxes.size() && "one axis list per dim");
  assert(checkDivisible(globalShape, dimAxes, mesh).empty());
  Shape local(globalShape);
  for (size_t dim = 0; dim < local.size(); ++dim)
    if (local[dim] != kDynamicSize)
      local[dim] /= mesh.axesSize(dimAxes[dim]);
  return local;
}

std::optional<Shape> localShapeOn(const Shape &globalShape,
                                  const DimAxes &dimAxes, const Mesh &mesh,
                                  int64_t device) {
  if (!mesh.linearIndexOf(device))
    return std::nullopt;
  return localShape(globalShape, dimAxes, mesh);
}

std::optional<Shape> shardOffsetOn(const Shape &globalShape,
                                   const DimAxes &dimAxes, const Mesh &mesh,
                                   int64_t device) {
  std::optional<Shape> coordinates = mesh.coordinatesOf(device);
  if (!coordinates)
    return std::nullopt;
  Shape offsets(globalShape.size(), 0);
  for (size_t dim = 0; dim < globalShape.size(); ++dim) {
    assert(globalShape[dim] != kDynamicSize && "offsets need static shapes");
    // Nested outer splits: each axis picks a block of the block chosen by
    // the axes outside it.
    int64_t blockSize = globalShape[dim];
    for (int64_t axis : dimAxes[dim]) {
      blockSize /= mesh.shape[axis];
      offsets[dim] += (*coordinates)[axis] * blockSize;
    }
  }
  return offsets;
}

std::vector<Transfer> planTransfers(const Shape &globalShape, const Mesh &from,
                                    const DimAxes &fromAxes, const Mesh &to,
                                    const DimAxes &toAxes) {
  // The distinct blocks of the source, each with the devices holding it.
  Shape sourceSizes = localShape(globalShape, fromAxes, from);
  std::vector<std::pair<Shape, std::vector<int64_t>>> blocks;
  for (int64_t device : from.devices) {
    Shape offsets = *shardOffsetOn(globalShape, fromAxes, from, device);
    auto block = std::find_if(blocks.begin(), blocks.end(), [&](const auto &b) {
      return b.first == offsets;
    });
    if (block == blocks.end())
      blocks.push_back({offsets, {device}});
    else
      block->second.push_back(device);
  }
  Shape targetSizes = localShape(globalShape, toAxes, to);
  std::vector<Transfer> transfers;
  for (size_t index = 0; index < to.devices.size(); ++index) {
    int64_t target = to.devices[index];
    Shape targetOffsets = *shardOffsetOn(globalShape, toAxes, to, target);
    for (const auto &[blockOffsets, holders] : blocks) {
      Transfer transfer{0, target, Shape(globalShape.size()),
                        Shape(globalShape.size())};
      bool overlaps = true;
      for (size_t dim = 0; dim < globalShape.size(); ++dim) {
        int64_t begin = std::max(blockOffsets[dim], targetOffsets[dim]);
        int64_t end = std::min(blockOffsets[dim] + sourceSizes[dim],
                               targetOffsets[dim] + targetSizes[dim]);
        overlaps = overlaps && begin < end;
        transfer.offsets[dim] = begin;
        transfer.sizes[dim] = end - begin;
      }
      if (!overlaps)
        continue;
      auto self = std::find(holders.begin(), holders.end(), target);
      transfer.source =
          self != holders.end() ? target : holders[index % holders.size()];
      transfers.push_back(std::move(transfer));
    }
  }
  return transfers;
}

} // namespace fuser
