//===- StreamPipeline.cpp - stream-split groups chunk by chunk -------------===//
//
// Collective-based pipelining: a group of consecutive ops stream-split into
// the same chunks runs in one loop, each step on the chunks of its buffers
// (docs/stream-pipelining.md).
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fuser;

MemRefType mlir::fuser::getChunkType(MemRefType type, int64_t dim,
                                     int64_t chunks) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= chunks;
  SmallVector<int64_t> strides;
  int64_t offset;
  // Local buffers always have strides: identity or strided layouts.
  (void)type.getStridesAndOffset(strides, offset);
  return MemRefType::get(shape, type.getElementType(),
                         StridedLayoutAttr::get(type.getContext(),
                                                ShapedType::kDynamic, strides));
}

/// A view of chunk `index` of `buffer` split along `dim` into `chunks`.
Value HostLowering::chunkOf(Location loc, Value buffer, Value index,
                            int64_t dim, int64_t chunks) {
  auto type = getChunkType(cast<MemRefType>(buffer.getType()), dim, chunks);
  return hostir::AliasSelectOp::create(builder, loc, type, buffer, index,
                                       static_cast<uint64_t>(dim),
                                       static_cast<uint64_t>(chunks));
}

/// Slot `index` of `slots` (the chunks of one value, outermost), without
/// the slot dim.
Value HostLowering::slotOf(Location loc, Value slots, Value index) {
  auto type = cast<MemRefType>(slots.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
  offsets.front() = index;
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(builder.getContext(), type.getShape());
  sizes.front() = builder.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, builder.getIndexAttr(1));
  auto view = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(builder, loc, cast<MemRefType>(view), slots,
                                   offsets, sizes, strides);
}

/// The number of stream chunks `op` can be run in, one chunk per pipeline
/// step, if any: its result is stream-split, and every operand holding the
/// same data is split into the same chunks (a library call's other operands
/// are read whole). A communication qualifies when it moves blocks of
/// another dim than the stream dim; whether its chunk buffers suit the
/// library is checked once the whole pipeline is known. Records the values
/// to chunk.
std::optional<int64_t> HostLowering::getPipelineChunks(Operation *op) {
  bool library = op->hasTrait<mlir::fuser::OpTrait::LibraryCall>();
  if (!library && !isa<AllgatherOp, AllreduceOp, ReduceScatterOp, AllToAllOp>(op))
    return std::nullopt;
  Value result = op->getResult(0);
  ShardingAttr sharding = getSharding(result);
  if (!sharding || !sharding.getStreamDim())
    return std::nullopt;
  int64_t dim = *sharding.getStreamDim(), chunks = sharding.getStreamChunks();
  SmallVector<Value> split{result};
  if (library) {
    ShardingRule rule = cast<ShardingRuleOpInterface>(op).getShardingRule();
    if (rule.results.front()[dim].empty())
      return std::nullopt;
    int64_t factor = rule.results.front()[dim].front();
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      const DimFactors &dims = rule.operands[index];
      auto it = llvm::find_if(dims, [&](const SmallVector<int64_t, 2> &f) {
        return llvm::is_contained(f, factor);
      });
      if (it == dims.end())
        continue;
      ShardingAttr other = getSharding(operand);
      int64_t operandDim = it - dims.begin();
      if (it->front() != factor || !other ||
          other.getStreamDim() != operandDim ||
          other.getStreamChunks() != chunks)
        return std::nullopt;
      split.push_back(operand);
    }
  } else {
    if (!cast<CommunicationOpInterface>(op).getChunkwiseStreamDim())
      return std::nullopt;
    split.push_back(op->getOperand(0));
  }
  chunked.insert(split.begin(), split.end());
  return chunks;
}

DenseSet<Value> HostLowering::getSlotValues(ArrayRef<Operation *> group) {
  DenseSet<Value> slotted;
  for (Operation *op : group) {
    Value result = op->getResult(0);
    ShardingAttr sharding = getSharding(result);
    if (sharding.getStreamChunked() && !sharding.statesLayout() &&
        llvm::all_of(result.getUsers(), [&](Operation *user) {
          return llvm::is_contained(group, user);
        }))
      slotted.insert(result);
  }
  return slotted;
}

/// Whether every communication of `group` can run on its chunk buffers: a
/// chunk must be one contiguous piece (a slot, or a chunk of the stream dim
/// outermost in its buffer) with the dim whose blocks it moves outermost.
bool HostLowering::chunksServeCommunications(ArrayRef<Operation *> group,
                                             int64_t chunks,
                                             const DenseSet<Value> &slotted) {
  return llvm::all_of(group, [&](Operation *op) {
    auto comm = dyn_cast<CommunicationOpInterface>(op);
    if (!comm)
      return true;
    for (auto [value, resultSide] : {std::pair<Value, bool>{op->getOperand(0), false},
                                     {op->getResult(0), true}}) {
      ShardingAttr sharding = getSharding(value);
      int64_t dim = *sharding.getStreamDim();
      SmallVector<int64_t> shape = sharding.getLocalShape(
          cast<RankedTensorType>(value.getType()).getShape());
      std::optional<int64_t> blockDim = comm.getBlockDim(resultSide);
      // A slot is a row-major chunk of its own.
      if (slotted.contains(value)) {
        shape[dim] /= chunks;
        if (!servesCommunication(Layout::rowMajor(shape.size()), shape,
                                 blockDim))
          return false;
      } else if (!servesChunkwiseCommunication(Layout::of(sharding), shape,
                                               dim, chunks, blockDim)) {
        return false;
      }
    }
    return true;
  });
}

scf::ForOp HostLowering::createStreamParallelLoop(Location loc,
                                                  int64_t steps) {
  auto loop = scf::ForOp::create(builder, loc, index(loc, 0),
                                 index(loc, steps), index(loc, 1));
  loop->setAttr(hostir::HostIRDialect::getStreamParallelAttrName(),
                builder.getUnitAttr());
  return loop;
}

Pipelining HostLowering::getPipelining(ArrayRef<Operation *> group) const {
  for (Operation *op : group)
    if (auto plan = op->getAttrOfType<PipeliningAttr>(
            FuserDialect::getPipeliningAttrName()))
      return plan.getValue();
  return pipelining;
}

/// Runs `group` chunk by chunk in a loop whose iterations may run on
/// different streams (`hostir.stream_parallel`; hostir-assign-streams
/// gives them streams). Values that live only inside the group get one
/// contiguous slot per chunk, so each step owns its staging buffer. When a
/// communication's chunks do not suit its library, or the plan is `none`,
/// the group runs whole. With ring pipelining, groups that have a ring form
/// take it.
LogicalResult HostLowering::lowerPipeline(ArrayRef<Operation *> group,
                                          int64_t chunks) {
  Location loc = group.front()->getLoc();
  Pipelining plan = getPipelining(group);
  if (plan == Pipelining::Ring) {
    FailureOr<bool> ring = lowerRing(group, chunks);
    if (failed(ring) || *ring)
      return ring;
  }
  DenseSet<Value> slotted = getSlotValues(group);
  if (plan == Pipelining::None ||
      !chunksServeCommunications(group, chunks, slotted)) {
    for (Operation *op : group)
      if (failed(lower(op)))
        return failure();
    return success();
  }
  DenseMap<Value, Value> slots;
  for (Operation *op : group) {
    Value result = op->getResult(0);
    if (!slotted.contains(result)) {
      buffers.map(result, allocate(loc, result));
      continue;
    }
    auto whole = getLocalBufferType(cast<RankedTensorType>(result.getType()));
    SmallVector<int64_t> shape(whole.getShape());
    shape[*getSharding(result).getStreamDim()] /= chunks;
    shape.insert(shape.begin(), chunks);
    slots[result] =
        allocate(loc, MemRefType::get(shape, whole.getElementType()));
  }
  scf::ForOp loop = createStreamParallelLoop(loc, chunks);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  Value step = loop.getInductionVar();
  DenseMap<Value, Value> chunkOfValue;
  auto bufferFor = [&](Value value) -> Value {
    if (!chunked.contains(value))
      return bufferOf(value);
    Value &view = chunkOfValue[value];
    if (!view)
      view = slots.count(value)
                 ? slotOf(loc, slots.lookup(value), step)
                 : chunkOf(loc, bufferOf(value), step,
                           *getSharding(value).getStreamDim(), chunks);
    return view;
  };
  for (Operation *op : group) {
    LogicalResult emitted = op->hasTrait<mlir::fuser::OpTrait::LibraryCall>()
                                ? emitLibraryCall(op, bufferFor)
                                : emitCommunication(op, bufferFor);
    if (failed(emitted))
      return failure();
  }
  return success();
}

