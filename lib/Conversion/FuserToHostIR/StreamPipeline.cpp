//===- StreamPipeline.cpp - stream-split groups chunk by chunk -------------===//
//
// Collective-based pipelining: a group of consecutive ops stream-split into
// the same chunks runs in one loop, each step on the chunks of its buffers
// (docs/stream-pipelining.md).
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

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
Value HostBuilder::chunkOf(Location loc, Value buffer, Value index, int64_t dim,
                           int64_t chunks) {
  auto type = getChunkType(cast<MemRefType>(buffer.getType()), dim, chunks);
  return hostir::AliasSelectOp::create(rewriter, loc, type, buffer, index,
                                       static_cast<uint64_t>(dim),
                                       static_cast<uint64_t>(chunks));
}

/// Slot `index` of `slots` (the chunks of one value, outermost), without
/// the slot dim.
Value HostBuilder::slotOf(Location loc, Value slots, Value index) {
  auto type = cast<MemRefType>(slots.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  offsets.front() = index;
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
  sizes.front() = rewriter.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  auto view = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(rewriter, loc, cast<MemRefType>(view), slots,
                                   offsets, sizes, strides);
}

DenseSet<Value> HostBuilder::getSlotValues(const PipelineGroup &group) {
  DenseSet<Value> slotted;
  for (Operation *op : group.ops) {
    Value result = op->getResult(0);
    ShardingAttr sharding = getSharding(result);
    if (sharding.getStreamChunked() && !sharding.statesLayout() &&
        llvm::all_of(result.getUsers(), [&](Operation *user) {
          return llvm::is_contained(group.ops, user);
        }))
      slotted.insert(result);
  }
  return slotted;
}

/// Whether every communication of `group` can run on its chunk buffers: a
/// chunk must be one contiguous piece (a slot, or a chunk of the stream dim
/// outermost in its buffer) with the dim whose blocks it moves outermost.
bool HostBuilder::chunksServeCommunications(const PipelineGroup &group,
                                            const DenseSet<Value> &slotted) {
  int64_t chunks = group.chunks;
  return llvm::all_of(group.ops, [&](Operation *op) {
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

scf::ForOp HostBuilder::createStreamParallelLoop(Location loc, int64_t steps) {
  auto loop = scf::ForOp::create(rewriter, loc, index(loc, 0),
                                 index(loc, steps), index(loc, 1));
  loop->setAttr(hostir::HostIRDialect::getStreamParallelAttrName(),
                rewriter.getUnitAttr());
  return loop;
}

/// Runs `group` chunk by chunk in a loop whose iterations may run on
/// different streams (`hostir.stream_parallel`; hostir-assign-streams
/// gives them streams). Values that live only inside the group get one
/// contiguous slot per chunk, so each step owns its staging buffer. When a
/// communication's chunks do not suit its library, or the plan is `none`,
/// the group runs whole. With ring pipelining, groups that have a ring form
/// take it.
LogicalResult HostBuilder::lowerPipeline(const PipelineGroup &group) {
  Location loc = group.ops.front()->getLoc();
  int64_t chunks = group.chunks;
  Pipelining plan = program.getPipelining(group);
  if (plan == Pipelining::Ring) {
    FailureOr<bool> ring = lowerRing(group);
    if (failed(ring) || *ring)
      return ring;
  }
  DenseSet<Value> slotted = getSlotValues(group);
  if (plan == Pipelining::None || !chunksServeCommunications(group, slotted)) {
    for (Operation *op : group.ops) {
      LogicalResult lowered = op->hasTrait<mlir::fuser::OpTrait::LibraryCall>()
                                  ? lowerLibraryCall(op)
                                  : lowerCollective(op);
      if (failed(lowered))
        return failure();
    }
    return success();
  }
  DenseMap<Value, Value> slots;
  for (Operation *op : group.ops) {
    Value result = op->getResult(0);
    if (!slotted.contains(result)) {
      map(result, allocate(loc, result));
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
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  Value step = loop.getInductionVar();
  DenseMap<Value, Value> chunkOfValue;
  auto bufferFor = [&](Value value) -> Value {
    if (!program.isChunked(value))
      return bufferOf(value);
    Value &view = chunkOfValue[value];
    if (!view)
      view = slots.count(value)
                 ? slotOf(loc, slots.lookup(value), step)
                 : chunkOf(loc, bufferOf(value), step,
                           *getSharding(value).getStreamDim(), chunks);
    return view;
  };
  for (Operation *op : group.ops) {
    LogicalResult emitted = op->hasTrait<mlir::fuser::OpTrait::LibraryCall>()
                                ? emitLibraryCall(op, bufferFor)
                                : emitCollective(op, bufferFor);
    if (failed(emitted))
      return failure();
  }
  return success();
}

namespace {
/// A pipeline group, rooted at its first op, -> one loop over its chunks
/// (or a ring, or its ops one by one when it runs whole). Replaces every
/// op of the group.
struct PipelineGroupLowering : public HostLoweringPattern {
  PipelineGroupLowering(MLIRContext *context, const HostProgram &program)
      : HostLoweringPattern(program, MatchAnyOpTypeTag(), /*benefit=*/2,
                            context) {}

  LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                      HostBuilder &host) const override {
    const PipelineGroup *group = program.getGroupStartingAt(op);
    if (!group)
      return host.rewriter.notifyMatchFailure(op, "starts no pipeline group");
    for (Operation *member : group->ops)
      for (Value operand : member->getOperands())
        if (!llvm::is_contained(group->ops, operand.getDefiningOp()) &&
            !areBuffers(host.bufferOf(operand)))
          return host.rewriter.notifyMatchFailure(op,
                                                  "an operand has no buffer");
    if (failed(host.onExecutingMeshOnly(
            op, [&] { return host.lowerPipeline(*group); })))
      return failure();
    for (Operation *member : group->ops) {
      // Values that live only inside the pipeline were held in slots.
      if (host.hasBuffers(member))
        host.replace(member);
      else
        host.rewriter.eraseOp(member);
    }
    return success();
  }
};
} // namespace

void mlir::fuser::populatePipelineLoweringPatterns(RewritePatternSet &patterns,
                                                   const HostProgram &program) {
  patterns.add<PipelineGroupLowering>(patterns.getContext(), program);
}
