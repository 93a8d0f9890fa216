//===- ExposePipelinedAxes.cpp - a pipelined mesh axis gets its own dim ---===//
//
// A stream split chunks the local piece of a dim. An allgather of that dim
// (or a reduce_scatter into it) therefore moves, at step i, chunk i of every
// rank's block: rows strided across the gathered dim, which no chunk of the
// dim as a whole describes. Reshaping the dim [M] into [n, M/n] gives the
// mesh axis its own dim; the stream split then chunks the inner dim on both
// sides of the communication, and the library call next to it computes on
// the same chunks.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_EXPOSEPIPELINEDAXES
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Dim `dim` of the values around one communication over a mesh axis of
/// `size` ranks, pipelined in `chunks` stream chunks.
struct Exposure {
  int64_t dim;
  int64_t size;
  int64_t chunks;

  /// `type` with `dim` reshaped into [size, rest]: the dim's mesh axes go
  /// to the outer dim; the stream split (on `dim` or elsewhere) moves with
  /// its dim, so a stream split of `dim` chunks the inner dim.
  RankedTensorType expose(RankedTensorType type) const {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] /= size;
    shape.insert(shape.begin() + dim, size);
    ShardingAttr sharding = getSharding(type);
    SmallVector<SmallVector<int64_t>> axes = sharding.getDimAxesList();
    axes.insert(axes.begin() + dim + 1, SmallVector<int64_t>{});
    std::optional<int64_t> stream = sharding.getStreamDim();
    if (stream && *stream >= dim)
      ++*stream;
    auto exposed = ShardingAttr::get(
        sharding.getMesh(), axes, sharding.getPartialAxes(),
        sharding.getPartialKind(), stream, sharding.getStreamChunks());
    return RankedTensorType::get(shape, type.getElementType(), exposed);
  }
  /// The same, with the stream split on the inner dim of `dim`.
  RankedTensorType exposeStreamed(RankedTensorType type) const {
    RankedTensorType exposed = expose(type);
    return exposed.cloneWithEncoding(
        getSharding(exposed).withStream(dim + 1, chunks, /*chunked=*/false));
  }
};
} // namespace

/// The exposure for `comm`, which moves blocks of a dim over `axis`, when
/// `streamed` (its split side) is stream-split on that dim and the axis
/// alone splits it, and the other side is the input or result of each of
/// `linears` on a row dim (not contracted) that no mesh axis splits.
static std::optional<Exposure> getExposure(Operation *comm, int64_t axis,
                                           Value streamed,
                                           ArrayRef<LinearOp> linears) {
  ShardingAttr sharding = getSharding(streamed);
  std::optional<int64_t> dim = sharding.getStreamDim();
  if (linears.empty() || !dim ||
      sharding.getDimAxes(*dim) != ArrayRef<int64_t>{axis})
    return std::nullopt;
  for (LinearOp linear : linears) {
    if (*dim >= linear.getInput().getType().getRank() - 1)
      return std::nullopt;
    for (Value value : std::initializer_list<Value>{
             comm->getOperand(0), comm->getResult(0), linear.getInput(),
             linear.getResult()}) {
      ShardingAttr other = getSharding(value);
      if (other.statesLayout() ||
          (value != streamed && !other.getDimAxes(*dim).empty()))
        return std::nullopt;
    }
  }
  return Exposure{*dim, sharding.getMesh().getAxisSize(axis),
                  sharding.getStreamChunks()};
}

static Value reshape(OpBuilder &builder, Location loc, Value value,
                     RankedTensorType type) {
  return ReshapeOp::create(builder, loc, type, value);
}

/// allgather(x) -> linears  becomes  reshape(x) -> allgather -> linears ->
/// reshapes back, when every user of the gathered value is a linear reading
/// it as its input.
static void exposeAllgather(AllgatherOp gather) {
  SmallVector<LinearOp> linears;
  for (OpOperand &use : gather.getResult().getUses()) {
    auto linear = dyn_cast<LinearOp>(use.getOwner());
    if (!linear || linear.getInput() != gather.getResult())
      return;
    linears.push_back(linear);
  }
  std::optional<Exposure> exposure =
      getExposure(gather, gather.getAxis(), gather.getInput(), linears);
  if (!exposure)
    return;
  OpBuilder builder(gather);
  Location loc = gather.getLoc();
  Value input = reshape(builder, loc, gather.getInput(),
                        exposure->expose(gather.getInput().getType()));
  Value gathered = AllgatherOp::create(
      builder, loc, exposure->exposeStreamed(gather.getType()), input,
      gather.getAxis());
  for (LinearOp linear : linears) {
    builder.setInsertionPoint(linear);
    auto exposedLinear = cast<LinearOp>(builder.clone(*linear));
    exposedLinear.getInputMutable().assign(gathered);
    exposedLinear.getResult().setType(
        exposure->exposeStreamed(linear.getType()));
    linear.getResult().replaceAllUsesWith(reshape(
        builder, linear.getLoc(), exposedLinear.getResult(), linear.getType()));
    linear.erase();
  }
  gather.erase();
}

/// linear -> reduce_scatter  becomes  reshape(input) -> linear ->
/// reduce_scatter -> reshape back.
static void exposeReduceScatter(ReduceScatterOp scatter) {
  auto linear = scatter.getInput().getDefiningOp<LinearOp>();
  if (!linear || !linear.getResult().hasOneUse())
    return;
  std::optional<Exposure> exposure =
      getExposure(scatter, scatter.getAxis(), scatter.getResult(), {linear});
  if (!exposure)
    return;
  OpBuilder builder(scatter);
  Location loc = linear.getLoc();
  Value input = reshape(builder, loc, linear.getInput(),
                        exposure->exposeStreamed(linear.getInput().getType()));
  auto exposedLinear = cast<LinearOp>(builder.clone(*linear));
  exposedLinear.getInputMutable().assign(input);
  exposedLinear.getResult().setType(
      exposure->exposeStreamed(linear.getType()));
  Value scattered = ReduceScatterOp::create(
      builder, scatter.getLoc(), exposure->expose(scatter.getType()),
      exposedLinear.getResult(), scatter.getAxis());
  scatter.getResult().replaceAllUsesWith(
      reshape(builder, scatter.getLoc(), scattered, scatter.getType()));
  scatter.erase();
  linear.erase();
}

namespace {
struct ExposePipelinedAxesPass
    : public mlir::fuser::impl::ExposePipelinedAxesBase<
          ExposePipelinedAxesPass> {
  void runOnOperation() override {
    SmallVector<Operation *> communications;
    getOperation().walk([&](Operation *op) {
      if (isa<AllgatherOp, ReduceScatterOp>(op))
        communications.push_back(op);
    });
    for (Operation *op : communications) {
      if (auto gather = dyn_cast<AllgatherOp>(op))
        exposeAllgather(gather);
      else
        exposeReduceScatter(cast<ReduceScatterOp>(op));
    }
  }
};
} // namespace
