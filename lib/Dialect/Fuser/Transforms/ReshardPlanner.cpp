//===- ReshardPlanner.cpp - one sharding into another, axis by axis -------===//
//
// Turns a value's placement into a target placement with a sequence of
// fuser.comm ops, each changing one mesh axis, so that every step lowers to
// exactly one communication (or, for all_slice, none):
//
//   mesh change   send_recv (same shape), gather / reduce (onto a slice),
//                 scatter / broadcast (from a slice), otherwise send_recv of
//                 the resolved shards (point to point)
//   same mesh     1. axes leaving a dim, innermost first: all_to_all when the
//                    axis goes to another dim that is ready for it, else
//                    allgather;
//                 2. partial axes resolved: reduce_scatter into the dim that
//                    takes the axis next, else allreduce;
//                 3. axes joining a dim, outermost first: all_slice.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/Transforms/ReshardPlanner.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
class ReshardPlanner {
public:
  ReshardPlanner(OpBuilder &builder, Location loc, Value value)
      : builder(builder), loc(loc), current(value),
        sharding(placementOf(getSharding(value))) {}

  LogicalResult convertTo(ShardingAttr target);
  Value getResult() const { return current; }

private:
  LogicalResult convertOnMesh(ShardingAttr target);
  LogicalResult convertFromSlice(ShardingAttr target, int64_t axis,
                                 int64_t root);
  LogicalResult convertToSlice(ShardingAttr target, int64_t axis,
                               int64_t root);

  /// Emits `OpT` from the current value to a value placed as `next`.
  template <typename OpT, typename... Args>
  void step(ShardingAttr next, Args... attributes) {
    auto resultType =
        cast<RankedTensorType>(current.getType()).cloneWithEncoding(next);
    current = OpT::create(builder, loc, resultType, current, attributes...);
    sharding = next;
  }

  InFlightDiagnostic error() { return emitError(loc); }

  OpBuilder &builder;
  Location loc;
  Value current;
  ShardingAttr sharding;
};
} // namespace

/// Mesh axes of `sharding` in `dim` followed by `axis` (which splits no
/// dim yet), the rest unchanged.
static ShardingAttr withAxisAppended(ShardingAttr sharding, int64_t dim,
                                     int64_t axis) {
  return sharding.withAxisOnDim(axis, dim, sharding.getDimAxes(dim).size());
}

/// The dim of `target` that `axis` splits and its position there.
static std::optional<std::pair<int64_t, size_t>> findAxis(ShardingAttr target,
                                                          int64_t axis) {
  for (auto [dim, axes] : llvm::enumerate(target.getDims())) {
    ArrayRef<int64_t> list = axes.asArrayRef();
    auto it = llvm::find(list, axis);
    if (it != list.end())
      return std::make_pair(static_cast<int64_t>(dim),
                            static_cast<size_t>(it - list.begin()));
  }
  return std::nullopt;
}

/// Whether `dim` of `current` holds exactly the first `position` axes of the
/// same dim of `target`, so that the next axis of `target` can be appended.
static bool isReadyFor(ShardingAttr current, ShardingAttr target, int64_t dim,
                       size_t position) {
  ArrayRef<int64_t> have = current.getDimAxes(dim);
  ArrayRef<int64_t> want = target.getDimAxes(dim);
  return have.size() == position && want.take_front(position) == have;
}

LogicalResult ReshardPlanner::convertOnMesh(ShardingAttr target) {
  // Axes partial on both sides stay pending, which only one kind can be.
  if (sharding.isPartial() && target.isPartial() &&
      sharding.getPartialKind() != target.getPartialKind())
    return error() << "cannot turn a partial "
                   << stringifyReductionKind(sharding.getPartialKind())
                   << " into a partial "
                   << stringifyReductionKind(target.getPartialKind())
                   << ": resharding only resolves partial values";
  for (int64_t axis : target.getPartialAxes())
    if (!sharding.isPartialOver(axis))
      return error() << "cannot make a value partial over mesh axis " << axis
                     << ": resharding only resolves partial values";

  // 1. Axes that leave a dim, innermost first.
  for (int64_t dim = 0, rank = sharding.getRank(); dim < rank; ++dim) {
    // The axes both have in the same order, outermost first, stay.
    ArrayRef<int64_t> want = target.getDimAxes(dim);
    size_t keep = 0;
    while (keep < want.size() && keep < sharding.getDimAxes(dim).size() &&
           sharding.getDimAxes(dim)[keep] == want[keep])
      ++keep;
    while (sharding.getDimAxes(dim).size() > keep) {
      int64_t axis = sharding.getDimAxes(dim).back();
      std::optional<std::pair<int64_t, size_t>> to = findAxis(target, axis);
      if (to && to->first != dim &&
          isReadyFor(sharding, target, to->first, to->second)) {
        step<AllToAllOp>(withAxisAppended(sharding, to->first, axis), axis);
        continue;
      }
      step<AllgatherOp>(sharding.withoutAxis(axis), axis);
    }
  }

  // 2. Partial axes the target no longer has.
  for (int64_t axis : SmallVector<int64_t>(sharding.getPartialAxes())) {
    if (target.isPartialOver(axis))
      continue;
    ShardingAttr resolved = sharding.withoutPartialAxis(axis);
    std::optional<std::pair<int64_t, size_t>> to = findAxis(target, axis);
    if (to && isReadyFor(sharding, target, to->first, to->second)) {
      step<ReduceScatterOp>(withAxisAppended(resolved, to->first, axis), axis);
      continue;
    }
    step<AllreduceOp>(resolved, axis);
  }

  // 3. Axes that join a dim, outermost first.
  for (int64_t dim = 0, rank = target.getRank(); dim < rank; ++dim) {
    ArrayRef<int64_t> want = target.getDimAxes(dim);
    for (size_t position = sharding.getDimAxes(dim).size();
         position < want.size(); ++position)
      step<AllSliceOp>(withAxisAppended(sharding, dim, want[position]),
                       want[position]);
  }
  return success();
}

/// The axis and index at which `slice` is a size-1 slice of `mesh`.
static std::optional<std::pair<int64_t, int64_t>> findSlice(MeshAttr mesh,
                                                            MeshAttr slice) {
  if (mesh.getRank() != slice.getRank())
    return std::nullopt;
  for (int64_t axis = 0; axis < mesh.getRank(); ++axis) {
    if (slice.getAxisSize(axis) != 1 || mesh.getAxisSize(axis) == 1)
      continue;
    for (int64_t root = 0; root < mesh.getAxisSize(axis); ++root)
      if (mesh.getSlice(axis, root) == slice)
        return std::make_pair(axis, root);
  }
  return std::nullopt;
}

LogicalResult ReshardPlanner::convertToSlice(ShardingAttr target, int64_t axis,
                                             int64_t root) {
  // The collapsing axis either splits a dim or is summed onto the root;
  // the slice can hold no partial state of its own over it.
  if (target.isPartialOver(axis))
    return error() << "cannot move a value onto the slice at index " << root
                   << " of mesh axis " << axis
                   << " as partial over that axis: the slice holds one "
                      "device of it";
  // The collectives onto a slice (gather, reduce) leave the collapsed axis
  // splitting nothing.
  if (std::optional<int64_t> dim = target.getDimSplitBy(axis))
    return error() << "cannot move a value onto the slice at index " << root
                   << " of mesh axis " << axis << " with dim " << *dim
                   << " split over that axis, which has one device there: "
                      "state the dim unsplit on the slice";
  // Arrange everything on the source mesh, leaving only `axis` to collapse.
  ShardingAttr onSource = target.withMesh(sharding.getMesh());
  if (std::optional<int64_t> dim = sharding.getDimSplitBy(axis)) {
    if (failed(convertOnMesh(withAxisAppended(onSource, *dim, axis))))
      return failure();
    step<GatherOp>(target, axis, root);
    return success();
  }
  if (sharding.isPartialOver(axis)) {
    SmallVector<int64_t> partial(onSource.getPartialAxes());
    partial.push_back(axis);
    llvm::sort(partial);
    if (failed(convertOnMesh(
            onSource.withPartial(partial, sharding.getPartialKind()))))
      return failure();
    step<ReduceOp>(target, axis, root);
    return success();
  }
  // Replicated along the axis: the slice's device already holds its piece,
  // which a send_recv copies where it lies (the adjoint of a broadcast from
  // the slice places a cotangent so).
  if (failed(convertOnMesh(onSource)))
    return failure();
  step<SendRecvOp>(target);
  return success();
}

LogicalResult ReshardPlanner::convertFromSlice(ShardingAttr target,
                                               int64_t axis, int64_t root) {
  ShardingAttr onTarget = sharding.withMesh(target.getMesh());
  if (std::optional<int64_t> dim = target.getDimSplitBy(axis))
    step<ScatterOp>(withAxisAppended(onTarget, *dim, axis), axis, root);
  else
    step<BroadcastCommOp>(onTarget, axis, root);
  return convertOnMesh(target);
}

LogicalResult ReshardPlanner::convertTo(ShardingAttr target) {
  target = placementOf(target);
  if (sharding.hasSamePlacement(target))
    return success();
  MeshAttr from = sharding.getMesh(), to = target.getMesh();
  if (from == to)
    return convertOnMesh(target);
  if (from.getShape() == to.getShape()) {
    if (failed(convertOnMesh(target.withMesh(from))))
      return failure();
    step<SendRecvOp>(target);
    return success();
  }
  if (auto slice = findSlice(from, to))
    return convertToSlice(target, slice->first, slice->second);
  if (auto slice = findSlice(to, from))
    return convertFromSlice(target, slice->first, slice->second);
  // Meshes no collective connects: resolved shards move point to point.
  if (target.isPartial())
    return error() << "cannot move a value onto mesh " << to
                   << " as a partial value: between meshes of different "
                      "shapes only shards move";
  if (failed(convertOnMesh(sharding.withPartial({}, ReductionKind::Sum))))
    return failure();
  step<SendRecvOp>(target);
  return success();
}

FailureOr<Value> mlir::fuser::emitReshard(OpBuilder &builder, Location loc,
                                          Value value, ShardingAttr target) {
  ReshardPlanner planner(builder, loc, value);
  if (failed(planner.convertTo(target)))
    return failure();
  Value result = planner.getResult();
  // The steps work on placements; the last one also takes the target's
  // stream split and layout.
  if (result != value)
    result.setType(
        cast<RankedTensorType>(result.getType()).cloneWithEncoding(target));
  return result;
}
