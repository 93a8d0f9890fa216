//===- MeshMath.h - Device-mesh and shard arithmetic ------------*- C++ -*-===//
//
// Plain C++ (no LLVM/MLIR) so that the runtime, which is built on machines
// without MLIR, computes local shapes and teams exactly like the compiler.
//
// Conventions: a mesh is an n-D array of device ids in row-major order. A dim
// sharding lists the mesh axes that split a tensor dim, outermost first: the
// dim is split into size(axes[0]) blocks, each block into size(axes[1]) blocks
// and so on; the block a rank holds is chosen by its mesh coordinates.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_SUPPORT_MESHMATH_H
#define FUSER_SUPPORT_MESHMATH_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuser {

/// Marks a dimension whose size is not known statically (same value as
/// mlir::ShapedType::kDynamic).
inline constexpr int64_t kDynamicSize = INT64_MIN;

using Shape = std::vector<int64_t>;
/// Per tensor dim, the mesh axes that split it, outermost first.
using DimAxes = std::vector<std::vector<int64_t>>;

/// A device mesh: a shape and the device id at each position (row-major).
struct Mesh {
  Shape shape;
  std::vector<int64_t> devices;

  /// A mesh whose device ids are 0 .. numDevices-1 in row-major order.
  static Mesh iota(Shape shape);
  int64_t numDevices() const;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  /// Position of `device` in `devices`, if it is part of the mesh.
  std::optional<int64_t> linearIndexOf(int64_t device) const;
  /// Mesh coordinates of `device`, if it is part of the mesh.
  std::optional<Shape> coordinatesOf(int64_t device) const;
  /// Device id at the given mesh coordinates.
  int64_t deviceAt(const Shape &coordinates) const;

  /// The devices of the mesh slice that contains `device` and spans `axes`
  /// (all other coordinates fixed), ordered row-major over `axes` in the
  /// order given. This is the team a communication along `axes` runs on.
  /// Empty when `device` is not in the mesh.
  std::vector<int64_t> team(int64_t device, const std::vector<int64_t> &axes) const;
  /// Index of `device` within team(device, axes); nullopt when not in the mesh.
  std::optional<int64_t> indexInTeam(int64_t device,
                                     const std::vector<int64_t> &axes) const;
  /// Product of the sizes of `axes`.
  int64_t axesSize(const std::vector<int64_t> &axes) const;
  /// Whether some team along `axes` holds devices of different nodes, when
  /// each node runs `ranksPerNode` consecutive ranks (device id = rank):
  /// such teams can reach each other only over the network.
  bool teamsSpanNodes(const std::vector<int64_t> &axes,
                      int64_t ranksPerNode) const;
};

/// The most positions a mesh may have. Meshes are materialized (a device id
/// per position, teams, coordinates), so a bound on their size keeps a typo
/// such as `[4000000000, 4000000000]` a diagnostic rather than an
/// allocation that cannot succeed; it also keeps every product of axis
/// sizes within int64_t.
inline constexpr int64_t kMaxMeshDevices = int64_t(1) << 20;

/// Describes why `devices` (row-major; empty: the implied 0 .. N-1) cannot
/// be the device ids of a mesh of `shape`: no axes, a non-positive axis
/// size, more than kMaxMeshDevices positions, a count that is not the
/// number of positions, a negative or a repeated id. Empty when they can.
std::string checkMesh(const Shape &shape, const std::vector<int64_t> &devices);

/// Describes why a sharding cannot be applied to a shape, naming the dim.
/// Empty when every static dim divides evenly.
std::string checkDivisible(const Shape &globalShape, const DimAxes &dimAxes,
                           const Mesh &mesh);

/// Local (per-rank) shape: each static dim divided by the product of the
/// sizes of its mesh axes. Dynamic dims stay dynamic. Requires divisibility.
Shape localShape(const Shape &globalShape, const DimAxes &dimAxes,
                 const Mesh &mesh);

/// Local shape held by `device`; nullopt when the device is not in the mesh
/// (it holds no part of the value).
std::optional<Shape> localShapeOn(const Shape &globalShape,
                                  const DimAxes &dimAxes, const Mesh &mesh,
                                  int64_t device);

/// Offset of `device`'s shard in the global tensor, per dim (static shapes
/// only); nullopt when the device is not in the mesh.
std::optional<Shape> shardOffsetOn(const Shape &globalShape,
                                   const DimAxes &dimAxes, const Mesh &mesh,
                                   int64_t device);

/// One block of a value moved between two placements: the part of the
/// `target` device's shard that it takes from the `source` device's shard,
/// as global offsets and sizes.
struct Transfer {
  int64_t source;
  int64_t target;
  Shape offsets;
  Shape sizes;
};

/// The transfers that give every device of `to` its shard (as `toAxes`
/// place it) of a value of static `globalShape` held as `fromAxes` on
/// `from`. Each part of a target shard comes from one device holding it:
/// the target itself where it does (a transfer to itself is a local copy),
/// otherwise the holders of a replicated block take turns by target. Lists
/// the transfers by target, in mesh order.
std::vector<Transfer> planTransfers(const Shape &globalShape, const Mesh &from,
                                    const DimAxes &fromAxes, const Mesh &to,
                                    const DimAxes &toAxes);

} // namespace fuser

#endif // FUSER_SUPPORT_MESHMATH_H
