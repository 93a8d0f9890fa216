//===- CommunicationOps.cpp - verifiers of fuser.comm.* ops ---------------===//
//
// Each verifier derives the sharding the other side must have from the
// communication kind and compares placements (mesh, dim axes, partial
// state); stream splits and layouts are free on both sides.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// The shardings of a communication op's two sides, checked present.
struct CommSides {
  ShardingAttr input;
  ShardingAttr result;
};
} // namespace

static FailureOr<CommSides> getSides(Operation *op) {
  ShardingAttr input = getSharding(op->getOperand(0));
  ShardingAttr result = getSharding(op->getResult(0));
  if (!input)
    return op->emitOpError("operand has no sharding; communication ops move "
                           "data between sharded values");
  if (!result)
    return op->emitOpError("result has no sharding; communication ops move "
                           "data between sharded values");
  return CommSides{input, result};
}

static LogicalResult checkAxis(Operation *op, ShardingAttr sharding,
                               StringRef side, int64_t axis) {
  int64_t rank = sharding.getMesh().getRank();
  if (axis < 0 || axis >= rank)
    return op->emitOpError("mesh axis ")
           << axis << " is out of range for the " << side << "'s mesh of "
           << rank << " axes";
  return success();
}

static LogicalResult checkRoot(Operation *op, MeshAttr mesh, int64_t axis,
                               int64_t root) {
  if (root < 0 || root >= mesh.getAxisSize(axis))
    return op->emitOpError("root ")
           << root << " is out of range for mesh axis " << axis << " of size "
           << mesh.getAxisSize(axis);
  return success();
}

static LogicalResult checkSameMesh(Operation *op, CommSides sides) {
  if (sides.input.getMesh() != sides.result.getMesh())
    return op->emitOpError("keeps the mesh, but the operand is on ")
           << sides.input.getMesh() << " and the result on "
           << sides.result.getMesh();
  return success();
}

/// The dim of `sharding` split by `axis`, or an error naming the side.
static FailureOr<int64_t> getSplitDim(Operation *op, ShardingAttr sharding,
                                      StringRef side, int64_t axis) {
  std::optional<int64_t> dim = sharding.getDimSplitBy(axis);
  if (!dim)
    return op->emitOpError() << side << " is not split along mesh axis "
                             << axis;
  return *dim;
}

static LogicalResult checkPartialOver(Operation *op, ShardingAttr sharding,
                                      int64_t axis) {
  if (!sharding.isPartialOver(axis))
    return op->emitOpError("operand is not partial over mesh axis ") << axis;
  return success();
}

/// Reports a mismatch between the actual and the required sharding of one
/// side, printing the required one.
static LogicalResult checkPlacement(Operation *op, StringRef side,
                                    ShardingAttr actual, ShardingAttr expected,
                                    StringRef why) {
  if (actual.hasSamePlacement(expected))
    return success();
  return op->emitOpError() << side << " sharding must be " << expected << " ("
                           << why << "), got " << actual;
}

/// `source` with `axis` placed on `dim` at the position it has in
/// `target`, so that the only difference is where `axis` sits.
static ShardingAttr withAxisAsIn(ShardingAttr source, ShardingAttr target,
                                 int64_t axis, int64_t dim) {
  ArrayRef<int64_t> targetAxes = target.getDimAxes(dim);
  return source.withAxisOnDim(axis, dim,
                              llvm::find(targetAxes, axis) - targetAxes.begin());
}

LogicalResult AllgatherOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkSameMesh(*this, *sides)) ||
      failed(getSplitDim(*this, sides->input, "operand", axis)))
    return failure();
  return checkPlacement(*this, "result", sides->result,
                        sides->input.withoutAxis(axis),
                        "the operand's without the gathered axis");
}

LogicalResult AllSliceOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkSameMesh(*this, *sides)))
    return failure();
  if (sides->input.getDimSplitBy(axis) || sides->input.isPartialOver(axis))
    return emitOpError("operand already uses mesh axis ")
           << axis << "; all_slice splits a value replicated along it";
  FailureOr<int64_t> dim = getSplitDim(*this, sides->result, "result", axis);
  if (failed(dim))
    return failure();
  ShardingAttr expected =
      withAxisAsIn(sides->input, sides->result, axis, *dim);
  return checkPlacement(*this, "result", sides->result, expected,
                        "the operand's, split along the axis");
}

LogicalResult AllreduceOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkSameMesh(*this, *sides)) ||
      failed(checkPartialOver(*this, sides->input, axis)))
    return failure();
  return checkPlacement(*this, "result", sides->result,
                        sides->input.withoutPartialAxis(axis),
                        "the operand's, no longer partial over the axis");
}

LogicalResult ReduceScatterOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkSameMesh(*this, *sides)) ||
      failed(checkPartialOver(*this, sides->input, axis)))
    return failure();
  FailureOr<int64_t> dim = getSplitDim(*this, sides->result, "result", axis);
  if (failed(dim))
    return failure();
  ShardingAttr resolved = sides->input.withoutPartialAxis(axis);
  ShardingAttr expected = withAxisAsIn(resolved, sides->result, axis, *dim);
  return checkPlacement(*this, "result", sides->result, expected,
                        "the operand's, resolved and split along the axis");
}

LogicalResult ReduceOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkRoot(*this, sides->input.getMesh(), axis, getRoot())) ||
      failed(checkPartialOver(*this, sides->input, axis)))
    return failure();
  ShardingAttr expected = sides->input.withoutPartialAxis(axis).withMesh(
      sides->input.getMesh().getSlice(axis, getRoot()));
  return checkPlacement(*this, "result", sides->result, expected,
                        "resolved onto the root's slice of the mesh");
}

LogicalResult BroadcastCommOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->result, "result", axis)) ||
      failed(checkRoot(*this, sides->result.getMesh(), axis, getRoot())))
    return failure();
  if (sides->result.getDimSplitBy(axis) || sides->result.isPartialOver(axis))
    return emitOpError("result uses mesh axis ")
           << axis << "; a broadcast replicates the value along it";
  ShardingAttr expected = sides->result.withMesh(
      sides->result.getMesh().getSlice(axis, getRoot()));
  return checkPlacement(*this, "operand", sides->input, expected,
                        "the result's, on the root's slice of the mesh");
}

/// Gather and scatter: the side on the full mesh (`full`) is split along
/// `axis`; the other side (`rooted`) holds the whole value on the root's
/// slice of that mesh.
static LogicalResult verifyRootedSplit(Operation *op, ShardingAttr full,
                                       StringRef fullSide, ShardingAttr rooted,
                                       StringRef rootedSide, int64_t axis,
                                       int64_t root) {
  if (failed(checkAxis(op, full, fullSide, axis)) ||
      failed(checkRoot(op, full.getMesh(), axis, root)) ||
      failed(getSplitDim(op, full, fullSide, axis)))
    return failure();
  ShardingAttr expected =
      full.withoutAxis(axis).withMesh(full.getMesh().getSlice(axis, root));
  return checkPlacement(op, rootedSide, rooted, expected,
                        ("the " + fullSide +
                         "'s without the axis, on the root's slice")
                            .str());
}

LogicalResult GatherOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  if (failed(sides))
    return failure();
  return verifyRootedSplit(*this, sides->input, "operand", sides->result,
                           "result", getAxis(), getRoot());
}

LogicalResult ScatterOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  if (failed(sides))
    return failure();
  return verifyRootedSplit(*this, sides->result, "result", sides->input,
                           "operand", getAxis(), getRoot());
}

LogicalResult SendRecvOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  if (failed(sides))
    return failure();
  MeshAttr from = sides->input.getMesh(), to = sides->result.getMesh();
  if (from == to)
    return emitOpError("operand and result are on the same mesh ")
           << from << "; send_recv moves data between two meshes";
  // Between meshes of other shapes, blocks of the shards move; a partial
  // value has no blocks to take apart.
  if (from.getShape() != to.getShape()) {
    for (auto [side, sharding] :
         {std::pair<StringRef, ShardingAttr>{"operand", sides->input},
          {"result", sides->result}})
      if (sharding.isPartial())
        return emitOpError("the ")
               << side << " is partial; between meshes of different shapes ("
               << from << ", " << to
               << ") send_recv moves shards, which partial values are not";
    return success();
  }
  return checkPlacement(*this, "result", sides->result,
                        sides->input.withMesh(to),
                        "the operand's, on the result's mesh");
}

LogicalResult AllToAllOp::verify() {
  FailureOr<CommSides> sides = getSides(*this);
  int64_t axis = getAxis();
  if (failed(sides) || failed(checkAxis(*this, sides->input, "operand", axis)) ||
      failed(checkSameMesh(*this, *sides)))
    return failure();
  FailureOr<int64_t> from = getSplitDim(*this, sides->input, "operand", axis);
  if (failed(from))
    return failure();
  FailureOr<int64_t> to = getSplitDim(*this, sides->result, "result", axis);
  if (failed(to))
    return failure();
  if (*from == *to)
    return emitOpError("mesh axis ")
           << axis << " splits dim " << *from
           << " on both sides; all_to_all moves the split to another dim";
  ShardingAttr expected = withAxisAsIn(sides->input, sides->result, axis, *to);
  return checkPlacement(*this, "result", sides->result, expected,
                        "the operand's with the axis moved to another dim");
}

SmallVector<int64_t> SendRecvOp::getDevicesOfBothMeshes() {
  SmallVector<int64_t> devices =
      getSharding(getInput()).getMesh().getDeviceIds();
  llvm::append_range(devices,
                     getSharding(getResult()).getMesh().getDeviceIds());
  llvm::sort(devices);
  devices.erase(llvm::unique(devices), devices.end());
  return devices;
}

//===----------------------------------------------------------------------===//
// Concatenated dims
//===----------------------------------------------------------------------===//

std::optional<int64_t> AllgatherOp::getBlockDim(bool) {
  return getSharding(getInput()).getDimSplitBy(getAxis());
}
std::optional<int64_t> GatherOp::getBlockDim(bool) {
  return getSharding(getInput()).getDimSplitBy(getAxis());
}
std::optional<int64_t> ScatterOp::getBlockDim(bool) {
  return getSharding(getResult()).getDimSplitBy(getAxis());
}
std::optional<int64_t> ReduceScatterOp::getBlockDim(bool) {
  return getSharding(getResult()).getDimSplitBy(getAxis());
}
std::optional<int64_t> AllToAllOp::getBlockDim(bool resultSide) {
  // Each rank sends the blocks of the dim that becomes split and receives
  // blocks of the dim that was split.
  Value other = resultSide ? getInput() : getResult();
  return getSharding(other).getDimSplitBy(getAxis());
}
