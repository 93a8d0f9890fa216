//===- ReorderShardedAxis.cpp - communication-ready buffer layouts --------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_REORDERSHARDEDAXIS
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

static RankedTensorType withLayoutType(Type type, const Layout &layout) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.cloneWithEncoding(
      getSharding(tensor).withLayout(layout.order, layout.contiguity));
}

/// The local shape of `value` as its sharding places it.
static SmallVector<int64_t> localShapeOf(Value value) {
  return getSharding(value).getLocalShape(
      cast<RankedTensorType>(value.getType()).getShape());
}

/// Whether `value`, laid out as its sharding says, serves `comm`; if not,
/// the layout it needs. A communication host lowering runs chunk by chunk
/// is best served chunk by chunk: the stream dim outermost, then the block
/// dim, which works when a chunk holds one index of the stream dim or the
/// block dim needs no reordering. Otherwise the whole buffer must serve it
/// (the lowering then stages chunks in slots of their own, or runs the
/// communication whole).
static std::optional<Layout> neededLayout(CommunicationOpInterface comm,
                                          Value value, bool resultSide) {
  ShardingAttr sharding = getSharding(value);
  SmallVector<int64_t> local = localShapeOf(value);
  Layout current = Layout::of(sharding);
  std::optional<int64_t> outerDim = comm.getBlockDim(resultSide);
  if (std::optional<int64_t> stream = comm.getChunkwiseStreamDim()) {
    int64_t chunks = sharding.getStreamChunks();
    if (servesChunkwiseCommunication(current, local, *stream, chunks, outerDim))
      return std::nullopt;
    Layout chunkwise =
        communicationLayout(communicationLayout(current, outerDim), *stream);
    if (servesChunkwiseCommunication(chunkwise, local, *stream, chunks,
                                     outerDim))
      return chunkwise;
  }
  if (servesCommunication(current, local, outerDim))
    return std::nullopt;
  return communicationLayout(current, outerDim);
}

/// The dims of `layout` in memory order, outermost first, without those of
/// size 1 in both `operandShape` and `resultShape`, which sit anywhere
/// without moving an element.
static SmallVector<int64_t> nonUnitOrder(const Layout &layout,
                                         ArrayRef<int64_t> operandShape,
                                         ArrayRef<int64_t> resultShape) {
  SmallVector<int64_t> order;
  for (int64_t dim : layout.order)
    if (operandShape[dim] != 1 || resultShape[dim] != 1)
      order.push_back(dim);
  return order;
}

/// The layout `comm`'s result needs to order its elements as the operand
/// does. The libraries see buffers as flat arrays: an allreduce, reduce or
/// broadcast copies them element for element, and an allgather, gather,
/// scatter or reduce_scatter moves whole blocks of the block dim, which
/// both sides have outermost, so every other dim must follow in the same
/// order on both sides. None for communications that reorder blocks
/// (all_to_all), move none (all_slice, a view) or pack blocks of other
/// shapes (a send_recv between meshes of different shapes), and where the
/// result already orders them so.
static std::optional<Layout> operandOrderFor(CommunicationOpInterface comm) {
  if (isa<AllToAllOp, AllSliceOp>(comm))
    return std::nullopt;
  Value operand = comm->getOperand(0), result = comm->getResult(0);
  SmallVector<int64_t> operandShape = localShapeOf(operand);
  SmallVector<int64_t> resultShape = localShapeOf(result);
  if (isa<SendRecvOp>(comm) && operandShape != resultShape)
    return std::nullopt;
  Layout source = Layout::of(getSharding(operand));
  if (nonUnitOrder(source, operandShape, resultShape) ==
      nonUnitOrder(Layout::of(getSharding(result)), operandShape, resultShape))
    return std::nullopt;
  return source;
}

namespace {
/// Lays out the buffers of the communications of one function. A buffer one
/// communication laid out is fixed for the next (a value may feed several).
class CommunicationLayouts {
public:
  void layOutOperand(CommunicationOpInterface comm);
  void layOutResult(CommunicationOpInterface comm);

private:
  bool isFree(Value value) const {
    return hasFreeLayout(value) && !decided.contains(value);
  }
  DenseSet<Value> decided;
};
} // namespace

void CommunicationLayouts::layOutOperand(CommunicationOpInterface comm) {
  OpOperand &operand = comm->getOpOperand(0);
  Value value = operand.get();
  std::optional<Layout> needed = neededLayout(comm, value, /*resultSide=*/false);
  if (!needed) {
    decided.insert(value);
    return;
  }
  if (isFree(value)) {
    decided.insert(value);
    value.setType(withLayoutType(value.getType(), *needed));
    return;
  }
  // The operand's layout is fixed: transpose a copy for the communication.
  OpBuilder builder(comm);
  operand.set(SetOp::create(builder, comm->getLoc(),
                            withLayoutType(value.getType(), *needed), value));
}

void CommunicationLayouts::layOutResult(CommunicationOpInterface comm) {
  Value result = comm->getResult(0);
  std::optional<Layout> needed = operandOrderFor(comm);
  if (!needed)
    needed = neededLayout(comm, result, /*resultSide=*/true);
  bool free = isFree(result);
  decided.insert(result);
  if (!needed)
    return;
  if (free) {
    result.setType(withLayoutType(result.getType(), *needed));
    return;
  }
  // The result's layout is fixed: communicate into the needed layout and
  // copy into the fixed one after.
  Type fixed = result.getType();
  SmallVector<OpOperand *> uses =
      llvm::map_to_vector(result.getUses(), [](OpOperand &use) { return &use; });
  result.setType(withLayoutType(fixed, *needed));
  OpBuilder builder(comm->getContext());
  builder.setInsertionPointAfter(comm);
  Value copy = SetOp::create(builder, comm->getLoc(), fixed, result);
  for (OpOperand *use : uses)
    use->set(copy);
}

namespace {
struct ReorderShardedAxisPass
    : public mlir::fuser::impl::ReorderShardedAxisBase<ReorderShardedAxisPass> {
  void runOnOperation() override {
    SmallVector<CommunicationOpInterface> comms;
    getOperation().walk(
        [&](CommunicationOpInterface comm) { comms.push_back(comm); });
    CommunicationLayouts layouts;
    for (CommunicationOpInterface comm : comms) {
      layouts.layOutOperand(comm);
      layouts.layOutResult(comm);
    }
  }
};
} // namespace
