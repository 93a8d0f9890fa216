/*===- fuser-c/Attributes.h - meshes and shardings from C ---------*- C -*-===*\
|*                                                                            *|
|* Constructors and accessors of #fuser.mesh and #fuser.sharding. A sharded   *|
|* tensor is a builtin ranked tensor type whose encoding is a sharding        *|
|* (mlirRankedTensorTypeGet with the sharding as encoding). Constructors      *|
|* return a null attribute and emit a diagnostic on the context when the      *|
|* arguments are invalid.                                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_ATTRIBUTES_H
#define FUSER_C_ATTRIBUTES_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// #fuser.mesh
//===----------------------------------------------------------------------===//

/// A mesh of the given axis sizes; `devices` lists the device ids in
/// row-major order (numDevices = 0: the devices 0..N-1).
MLIR_CAPI_EXPORTED MlirAttribute fuserMeshAttrGet(MlirContext context,
                                                  intptr_t rank,
                                                  const int64_t *shape,
                                                  intptr_t numDevices,
                                                  const int64_t *devices);
MLIR_CAPI_EXPORTED bool fuserAttributeIsAMesh(MlirAttribute attribute);
MLIR_CAPI_EXPORTED intptr_t fuserMeshAttrGetRank(MlirAttribute mesh);
MLIR_CAPI_EXPORTED int64_t fuserMeshAttrGetAxisSize(MlirAttribute mesh,
                                                    intptr_t axis);
MLIR_CAPI_EXPORTED intptr_t fuserMeshAttrGetNumDevices(MlirAttribute mesh);
/// The device id at row-major position `position`.
MLIR_CAPI_EXPORTED int64_t fuserMeshAttrGetDevice(MlirAttribute mesh,
                                                  intptr_t position);

//===----------------------------------------------------------------------===//
// #fuser.sharding
//===----------------------------------------------------------------------===//

/// A sharding on `mesh` of a tensor of rank `rank`: dim d is split by the
/// mesh axes dimAxes[offset(d) .. offset(d) + numDimAxes[d]) (outermost
/// first), where offset(d) is the sum of numDimAxes over the dims before d;
/// the value is partial over `partialAxes` (combined by `partialKind`:
/// sum, prod, max, min or avg; ignored without partial axes); a
/// `streamDim` >= 0 splits that dim into `streamChunks` chunks for
/// pipelining (-1: none).
MLIR_CAPI_EXPORTED MlirAttribute fuserShardingAttrGet(
    MlirAttribute mesh, intptr_t rank, const intptr_t *numDimAxes,
    const int64_t *dimAxes, intptr_t numPartialAxes, const int64_t *partialAxes,
    MlirStringRef partialKind, int64_t streamDim, int64_t streamChunks);
MLIR_CAPI_EXPORTED bool fuserAttributeIsASharding(MlirAttribute attribute);
MLIR_CAPI_EXPORTED MlirAttribute
fuserShardingAttrGetMesh(MlirAttribute sharding);
MLIR_CAPI_EXPORTED intptr_t fuserShardingAttrGetRank(MlirAttribute sharding);
MLIR_CAPI_EXPORTED intptr_t
fuserShardingAttrGetNumDimAxes(MlirAttribute sharding, intptr_t dim);
MLIR_CAPI_EXPORTED int64_t fuserShardingAttrGetDimAxis(MlirAttribute sharding,
                                                       intptr_t dim,
                                                       intptr_t position);
MLIR_CAPI_EXPORTED intptr_t
fuserShardingAttrGetNumPartialAxes(MlirAttribute sharding);
MLIR_CAPI_EXPORTED int64_t
fuserShardingAttrGetPartialAxis(MlirAttribute sharding, intptr_t position);
/// sum, prod, max, min or avg.
MLIR_CAPI_EXPORTED MlirStringRef
fuserShardingAttrGetPartialKind(MlirAttribute sharding);
/// The stream-split dim, or -1.
MLIR_CAPI_EXPORTED int64_t
fuserShardingAttrGetStreamDim(MlirAttribute sharding);
MLIR_CAPI_EXPORTED int64_t
fuserShardingAttrGetStreamChunks(MlirAttribute sharding);

/// The sharding of a ranked tensor type, or a null attribute.
MLIR_CAPI_EXPORTED MlirAttribute fuserTypeGetSharding(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // FUSER_C_ATTRIBUTES_H
