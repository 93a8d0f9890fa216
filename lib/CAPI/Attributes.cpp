//===- Attributes.cpp - meshes and shardings from C -----------------------===//

#include "fuser-c/Attributes.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using mlir::fuser::MeshAttr;
using mlir::fuser::ShardingAttr;

namespace {
MeshAttr unwrapMesh(MlirAttribute mesh) { return cast<MeshAttr>(unwrap(mesh)); }
ShardingAttr unwrapSharding(MlirAttribute sharding) {
  return cast<ShardingAttr>(unwrap(sharding));
}
} // namespace

MlirAttribute fuserMeshAttrGet(MlirContext context, intptr_t rank,
                               const int64_t *shape, intptr_t numDevices,
                               const int64_t *devices) {
  MLIRContext *mlirContext = unwrap(context);
  return wrap(MeshAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(mlirContext)); }, mlirContext,
      ArrayRef<int64_t>(shape, rank), ArrayRef<int64_t>(devices, numDevices)));
}

bool fuserAttributeIsAMesh(MlirAttribute attribute) {
  return isa<MeshAttr>(unwrap(attribute));
}

intptr_t fuserMeshAttrGetRank(MlirAttribute mesh) {
  return unwrapMesh(mesh).getRank();
}

int64_t fuserMeshAttrGetAxisSize(MlirAttribute mesh, intptr_t axis) {
  return unwrapMesh(mesh).getAxisSize(axis);
}

intptr_t fuserMeshAttrGetNumDevices(MlirAttribute mesh) {
  return unwrapMesh(mesh).getNumDevices();
}

int64_t fuserMeshAttrGetDevice(MlirAttribute mesh, intptr_t position) {
  return unwrapMesh(mesh).getDeviceIds()[position];
}

MlirAttribute fuserShardingAttrGet(
    MlirAttribute mesh, intptr_t rank, const intptr_t *numDimAxes,
    const int64_t *dimAxes, intptr_t numPartialAxes, const int64_t *partialAxes,
    MlirStringRef partialKind, int64_t streamDim, int64_t streamChunks) {
  auto meshAttr = dyn_cast_or_null<MeshAttr>(unwrap(mesh));
  if (!meshAttr)
    return MlirAttribute{nullptr};
  MLIRContext *context = meshAttr.getContext();
  auto emit = [&] { return emitError(UnknownLoc::get(context)); };
  SmallVector<SmallVector<int64_t>> axes;
  for (intptr_t dim = 0, offset = 0; dim < rank; offset += numDimAxes[dim++])
    axes.emplace_back(dimAxes + offset, dimAxes + offset + numDimAxes[dim]);
  mlir::fuser::PartialAttr partial;
  if (numPartialAxes) {
    std::optional<mlir::fuser::ReductionKind> kind =
        mlir::fuser::symbolizeReductionKind(unwrap(partialKind));
    if (!kind) {
      emit() << "unknown partial kind '" << unwrap(partialKind)
             << "' (sum, prod, max, min or avg)";
      return MlirAttribute{nullptr};
    }
    partial = mlir::fuser::PartialAttr::getChecked(
        emit, context, ArrayRef<int64_t>(partialAxes, numPartialAxes), *kind);
    if (!partial)
      return MlirAttribute{nullptr};
  }
  mlir::fuser::StreamAttr stream;
  if (streamDim >= 0)
    stream = mlir::fuser::StreamAttr::get(context, streamDim, streamChunks,
                                          /*chunked=*/false);
  return wrap(ShardingAttr::getChecked(emit, meshAttr, axes, partial, stream));
}

bool fuserAttributeIsASharding(MlirAttribute attribute) {
  return isa<ShardingAttr>(unwrap(attribute));
}

MlirAttribute fuserShardingAttrGetMesh(MlirAttribute sharding) {
  return wrap(unwrapSharding(sharding).getMesh());
}

intptr_t fuserShardingAttrGetRank(MlirAttribute sharding) {
  return unwrapSharding(sharding).getDimAxesList().size();
}

intptr_t fuserShardingAttrGetNumDimAxes(MlirAttribute sharding, intptr_t dim) {
  return unwrapSharding(sharding).getDimAxes(dim).size();
}

int64_t fuserShardingAttrGetDimAxis(MlirAttribute sharding, intptr_t dim,
                                    intptr_t position) {
  return unwrapSharding(sharding).getDimAxes(dim)[position];
}

intptr_t fuserShardingAttrGetNumPartialAxes(MlirAttribute sharding) {
  return unwrapSharding(sharding).getPartialAxes().size();
}

int64_t fuserShardingAttrGetPartialAxis(MlirAttribute sharding,
                                        intptr_t position) {
  return unwrapSharding(sharding).getPartialAxes()[position];
}

MlirStringRef fuserShardingAttrGetPartialKind(MlirAttribute sharding) {
  return wrap(mlir::fuser::stringifyReductionKind(
      unwrapSharding(sharding).getPartialKind()));
}

int64_t fuserShardingAttrGetStreamDim(MlirAttribute sharding) {
  return unwrapSharding(sharding).getStreamDim().value_or(-1);
}

int64_t fuserShardingAttrGetStreamChunks(MlirAttribute sharding) {
  return unwrapSharding(sharding).getStreamChunks();
}

MlirAttribute fuserTypeGetSharding(MlirType type) {
  return wrap(mlir::fuser::getSharding(unwrap(type)));
}
