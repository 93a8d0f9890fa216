//===- RingPipeline.cpp - p2p ring steps for AG+GEMM and GEMM+RS ----------===//
//
// The ring form of a pipelined allgather read by library calls (linears,
// matmuls) as their rows, and of a library call whose partial result is
// reduce-scattered. In the exposed form
// (fuser-expose-pipelined-axes) the team's blocks lie along one dim and the
// stream chunks along another. A step handles chunk i together with the
// team members j places away: the rank at team index r sends to r + j and
// receives from r - j (mod n). AG+GEMM: step k = i*n + j, no step waits
// for another, so each may run on a stream of its own, and step j = 0 stays
// local, on the rank's input. GEMM+RS: one stream per chunk, the distances
// in reverse, the local product last and added to what the peers sent.
// Over cuda_ipc, AG+GEMM pushes (a rank writes its chunks into its peers'
// buffers) and GEMM+RS pulls (a rank reads the partials its peers computed
// in their buffers).
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// The communication a ring replaces and where its blocks and chunks lie.
struct Ring {
  Location loc;
  Value team;
  /// The executing rank's index in the team.
  Value self;
  int64_t size;
  int64_t blockDim;
  int64_t streamDim;
  int64_t chunks;
  /// The IPC handles of the buffer peers read from (cuda_ipc only).
  Value handles;
};

/// Which side of a cuda_ipc transfer copies, through the other's shared
/// buffer.
enum class IpcCopy { Push, Pull };

/// The indices of one ring step.
struct RingStep {
  Value chunk;
  /// Distance j to the peers, and the peers r + j and r - j.
  Value distance;
  Value forward;
  Value backward;
};

/// Emits the ring form of a pipeline group through a HostBuilder.
class RingLowering {
public:
  explicit RingLowering(HostBuilder &host)
      : host(host), rewriter(host.rewriter) {}

  /// Lowers `group` as a ring when it has a ring form; false when not.
  FailureOr<bool> lower(const PipelineGroup &group);

private:
  LogicalResult lowerAllgatherRing(AllgatherOp gather,
                                   ArrayRef<Operation *> calls,
                                   int64_t blockDim, int64_t streamDim,
                                   int64_t chunks);
  /// GEMM+RS, and GEMM+allreduce when `gather` (the allgather of the
  /// reduced blocks) is set.
  LogicalResult lowerReduceScatterRing(Operation *call, ReduceScatterOp scatter,
                                       AllgatherOp gather, int64_t blockDim,
                                       int64_t streamDim, int64_t chunks);
  void emitGatherOfReducedChunk(const Ring &ring, Value reduced, Value gathered,
                                Value chunk);
  Ring createRing(Operation *communication, int64_t axis, int64_t blockDim,
                  int64_t streamDim, int64_t chunks, Value shared);
  /// The team member `distance` places on from the rank (or back).
  Value ringPeer(const Ring &ring, Value distance, bool forward);
  /// Emits `body` in a loop over the distances 1, ..., n - 1 to the peers.
  LogicalResult
  emitForEachPeerDistance(const Ring &ring,
                          function_ref<LogicalResult(Value distance)> body);
  /// The chunk and peers of pipeline step `step`: distances 0, 1, ....
  RingStep beginRingStep(const Ring &ring, Value step);
  /// Chunk `chunk` of block `block` of `buffer`.
  Value ringView(const Ring &ring, Value buffer, Value block, Value chunk);
  /// Sends `send` to `sendPeer` while receiving `receive` from
  /// `receivePeer`. For cuda_ipc, `peerView` gives the view of a peer's
  /// shared buffer the copy goes through: where `send` goes in
  /// `sendPeer`'s (push), or where `receive` comes from in `receivePeer`'s
  /// (pull).
  void emitRingTransfer(const Ring &ring, IpcCopy direction, Value send,
                        Value sendPeer, Value receive, Value receivePeer,
                        function_ref<Value()> peerView);
  void emitSharedBufferHandshake(const Ring &ring);

  HostBuilder &host;
  ConversionPatternRewriter &rewriter;
};
} // namespace

Value RingLowering::ringPeer(const Ring &ring, Value distance, bool forward) {
  Location loc = ring.loc;
  Value size = host.index(loc, ring.size);
  Value shifted;
  if (forward)
    shifted = arith::AddIOp::create(rewriter, loc, ring.self, distance);
  else
    shifted = arith::SubIOp::create(
        rewriter, loc, arith::AddIOp::create(rewriter, loc, ring.self, size),
        distance);
  return arith::RemUIOp::create(rewriter, loc, shifted, size);
}

LogicalResult RingLowering::emitForEachPeerDistance(
    const Ring &ring, function_ref<LogicalResult(Value distance)> body) {
  auto loop = scf::ForOp::create(rewriter, ring.loc, host.index(ring.loc, 1),
                                 host.index(ring.loc, ring.size),
                                 host.index(ring.loc, 1));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  return body(loop.getInductionVar());
}

RingStep RingLowering::beginRingStep(const Ring &ring, Value step) {
  Value size = host.index(ring.loc, ring.size);
  Value distance = arith::RemUIOp::create(rewriter, ring.loc, step, size);
  return {arith::DivUIOp::create(rewriter, ring.loc, step, size), distance,
          ringPeer(ring, distance, /*forward=*/true),
          ringPeer(ring, distance, /*forward=*/false)};
}

Value RingLowering::ringView(const Ring &ring, Value buffer, Value block,
                             Value chunk) {
  return host.chunkOf(
      ring.loc, host.chunkOf(ring.loc, buffer, block, ring.blockDim, ring.size),
      chunk, ring.streamDim, ring.chunks);
}

/// Whether chunk views of blocks of `type` are contiguous, as
/// point-to-point transfers need.
static bool hasContiguousRingViews(MemRefType type, int64_t blockDim,
                                   int64_t size, int64_t streamDim,
                                   int64_t chunks) {
  return memref::isStaticShapeAndContiguousRowMajor(getChunkType(
      getChunkType(type, blockDim, size), streamDim, chunks));
}

void RingLowering::emitRingTransfer(const Ring &ring, IpcCopy direction,
                                    Value send, Value sendPeer, Value receive,
                                    Value receivePeer,
                                    function_ref<Value()> peerView) {
  Location loc = ring.loc;
  if (ring.handles) {
    // Push: write into the peer's buffer, then tell it the data is there.
    // Pull: tell the reader of our data that it is in place, wait until
    // the peer we read from says the same, then copy from its buffer.
    // Either way the receiver's wait returns once its data is in place.
    if (direction == IpcCopy::Push)
      hostir::CopyOp::create(rewriter, loc, send, peerView());
    hostir::IpcSignalOp::create(rewriter, loc, ring.handles, sendPeer);
    hostir::IpcWaitOp::create(rewriter, loc, ring.handles, receivePeer);
    if (direction == IpcCopy::Pull)
      hostir::CopyOp::create(rewriter, loc, peerView(), receive);
    return;
  }
  auto workType = hostir::WorkType::get(rewriter.getContext());
  auto group = hostir::CoalesceOp::create(rewriter, loc, workType);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.createBlock(&group.getBody());
    hostir::SendOp::create(rewriter, loc, workType, send, sendPeer, ring.team,
                           host.program.getLibraryBackend());
    hostir::RecvOp::create(rewriter, loc, workType, receive, receivePeer,
                           ring.team, host.program.getLibraryBackend());
  }
  hostir::WaitOp::create(rewriter, loc, group);
}

/// With cuda_ipc, a rank signals every member j places back and waits for
/// every member j places on (j = 1, ..., n - 1). After a pulling ring's
/// join, it tells the members it read from that it is done and waits until
/// the members that read from it are: the next execution may then
/// overwrite its shared buffer. Before a pushing ring, it tells the
/// members that write into its shared buffer that the buffer is free (all
/// work before on the stream is done, whatever used that memory) and waits
/// until the members it writes into say the same.
void RingLowering::emitSharedBufferHandshake(const Ring &ring) {
  if (!ring.handles)
    return;
  Location loc = ring.loc;
  (void)emitForEachPeerDistance(ring, [&](Value distance) {
    hostir::IpcSignalOp::create(rewriter, loc, ring.handles,
                                ringPeer(ring, distance, /*forward=*/false));
    return success();
  });
  (void)emitForEachPeerDistance(ring, [&](Value distance) {
    hostir::IpcWaitOp::create(rewriter, loc, ring.handles,
                              ringPeer(ring, distance, /*forward=*/true));
    return success();
  });
}

/// Whether the ring of `communication` moves its blocks through CUDA IPC
/// copies: with cuda_ipc, unless its teams hold ranks of different nodes,
/// which only NCCL reaches.
static bool movesOverIpc(const HostProgram &program,
                         Operation *communication) {
  return program.backend == hostir::Backend::CudaIpc &&
         !communication->hasAttr(FuserDialect::getBetweenNodesAttrName());
}

/// The memory of the buffer a ring shares with its team: CUDA IPC exports
/// only memory of its own allocations (cudaMalloc), not the runtime's
/// stream-ordered pool, so rings over IPC share symmetric memory.
static hostir::MemoryKind getSharedMemory(bool overIpc) {
  return overIpc ? hostir::MemoryKind::Symmetric : hostir::MemoryKind::Device;
}

/// Sets up the ring of `communication` (its team, the rank's index in it),
/// sharing `shared` with the team where it moves over IPC.
Ring RingLowering::createRing(Operation *communication, int64_t axis,
                              int64_t blockDim, int64_t streamDim,
                              int64_t chunks, Value shared) {
  Location loc = communication->getLoc();
  MeshAttr mesh = getSharding(communication->getOperand(0)).getMesh();
  Value members = host.team(loc, mesh, axis);
  Value self = hostir::TeamIndexOp::create(rewriter, loc,
                                           rewriter.getIndexType(), members);
  Value handles;
  if (movesOverIpc(host.program, communication))
    handles = hostir::IpcShareOp::create(
        rewriter, loc,
        hostir::IpcHandlesType::get(rewriter.getContext(),
                                    cast<MemRefType>(shared.getType())),
        shared, members);
  return {loc,       members,   self,   mesh.getAxisSize(axis),
          blockDim, streamDim, chunks, handles};
}

/// AG+GEMM: step (i, j) runs the calls on chunk i of the block of the
/// member j places back: the rank's own input for j = 0, else the chunk
/// that member sends (pushes, over cuda_ipc). So the local GEMMs wait for
/// no copy; the rank's block goes into its place of the gathered buffer
/// only when something besides the calls reads that buffer.
LogicalResult RingLowering::lowerAllgatherRing(AllgatherOp gather,
                                               ArrayRef<Operation *> calls,
                                               int64_t blockDim,
                                               int64_t streamDim,
                                               int64_t chunks) {
  Location loc = gather.getLoc();
  Value input = host.bufferOf(gather.getInput());
  Value gathered =
      host.allocate(loc, gather.getResult(),
                    getSharedMemory(movesOverIpc(host.program, gather)));
  host.map(gather.getResult(), gathered);
  for (Operation *call : calls)
    host.map(call->getResult(0), host.allocate(loc, call->getResult(0)));
  bool othersReadGathered =
      llvm::any_of(gather.getResult().getUsers(), [&](Operation *user) {
        return !llvm::is_contained(calls, user);
      });
  Ring ring = createRing(gather, gather.getAxis(), blockDim, streamDim, chunks,
                         gathered);
  emitSharedBufferHandshake(ring);

  scf::ForOp loop = host.createStreamParallelLoop(loc, chunks * ring.size);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  RingStep step = beginRingStep(ring, loop.getInductionVar());
  auto emitCalls = [&](Value rows) {
    for (Operation *call : calls) {
      Value output = call->getResult(0);
      Value outputView =
          ringView(ring, host.bufferOf(output), step.backward, step.chunk);
      if (failed(host.emitLibraryCall(call, [&](Value value) {
            if (value == gather.getResult())
              return rows;
            return value == output ? outputView : host.bufferOf(value);
          })))
        return failure();
    }
    return success();
  };
  Value ownChunk = host.chunkOf(loc, input, step.chunk, streamDim, chunks);
  Value remote = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                       step.distance, host.index(loc, 0));
  auto branches = scf::IfOp::create(rewriter, loc, remote,
                                    /*withElseRegion=*/true);
  rewriter.setInsertionPoint(branches.thenBlock()->getTerminator());
  Value received = ringView(ring, gathered, step.backward, step.chunk);
  emitRingTransfer(ring, IpcCopy::Push, ownChunk, step.forward, received,
                   step.backward, [&] {
                     Value peer = hostir::IpcPeerBufferOp::create(
                         rewriter, loc, gathered.getType(), ring.handles,
                         step.forward);
                     return ringView(ring, peer, ring.self, step.chunk);
                   });
  if (failed(emitCalls(received)))
    return failure();
  rewriter.setInsertionPoint(branches.elseBlock()->getTerminator());
  if (failed(emitCalls(ownChunk)))
    return failure();
  if (othersReadGathered)
    hostir::CopyOp::create(rewriter, loc, ownChunk,
                           ringView(ring, gathered, ring.self, step.chunk));
  return success();
}

/// GEMM+RS: iteration i (a stream of its own) handles chunk i. For the
/// distances j = n - 1, ..., 1 it computes chunk i of the partial result
/// for the member j places on and receives that member's counterpart from
/// the member j places back; the received partials go straight into the
/// result (n = 2) or are reduced into it (n > 2); then the rank's own
/// product is added to them in the GEMM's epilogue (`accumulate`). So no
/// pass over memory follows the last GEMM, and with two chunks or more the
/// GEMMs of one chunk hide the transfers of the chunk before. With
/// `gather` (GEMM+allreduce) the iteration then puts its reduced chunk in
/// place in the gathered result and brings every peer's, so that only the
/// last chunk's exchange follows the last GEMM.
LogicalResult
RingLowering::lowerReduceScatterRing(Operation *call, ReduceScatterOp scatter,
                                     AllgatherOp gather, int64_t blockDim,
                                     int64_t streamDim, int64_t chunks) {
  Location loc = scatter.getLoc();
  hostir::MemoryKind shared =
      getSharedMemory(movesOverIpc(host.program, scatter));
  Value partial = host.allocate(loc, call->getResult(0), shared);
  host.map(call->getResult(0), partial);
  auto partialType = cast<MemRefType>(partial.getType());
  // Peers read the reduced blocks the gather brings from this buffer, so
  // it is shared; the gathered result, which may escape, is not.
  Value result =
      host.allocate(loc, scatter.getResult(),
                    gather ? shared : hostir::MemoryKind::Device);
  host.map(scatter.getResult(), result);
  Value gathered;
  if (gather) {
    gathered = host.allocate(loc, gather.getResult());
    host.map(gather.getResult(), gathered);
  }
  Ring ring = createRing(scatter, scatter.getAxis(), blockDim, streamDim,
                         chunks, partial);
  std::optional<Ring> gatherRing;
  if (gather)
    gatherRing = createRing(gather, gather.getAxis(), blockDim, streamDim,
                            chunks, result);
  // With more than one peer, a slab per chunk takes the peers' partials
  // (one block each, by distance) for reduce_blocks.
  Value slabs;
  if (ring.size > 2) {
    auto chunkType = getChunkType(
        getChunkType(partialType, blockDim, ring.size), streamDim, chunks);
    SmallVector<int64_t> shape = {chunks, ring.size - 1};
    llvm::append_range(shape, chunkType.getShape());
    slabs = host.allocate(loc,
                          MemRefType::get(shape, partialType.getElementType()));
  }

  scf::ForOp loop = host.createStreamParallelLoop(loc, chunks);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  Value chunk = loop.getInductionVar();
  Value resultChunk = host.chunkOf(loc, result, chunk, streamDim, chunks);
  Value slab = slabs ? host.slotOf(loc, slabs, chunk) : Value();
  auto emitProduct = [&](Value block, Value out, bool accumulate) {
    Value input =
        ringView(ring, host.bufferOf(call->getOperand(0)), block, chunk);
    return host.emitLibraryCall(
        call,
        [&](Value value) {
          if (value == call->getOperand(0))
            return input;
          return value == call->getResult(0) ? out : host.bufferOf(value);
        },
        accumulate);
  };

  if (failed(emitForEachPeerDistance(ring, [&](Value step) {
        // Distances n - 1, ..., 1.
        Value distance = arith::SubIOp::create(
            rewriter, loc, host.index(loc, ring.size), step);
        Value forward = ringPeer(ring, distance, /*forward=*/true);
        Value backward = ringPeer(ring, distance, /*forward=*/false);
        Value computed = ringView(ring, partial, forward, chunk);
        if (failed(emitProduct(forward, computed, /*accumulate=*/false)))
          return failure();
        Value arrived =
            slab ? host.slotOf(loc, slab,
                               arith::SubIOp::create(rewriter, loc, distance,
                                                     host.index(loc, 1)))
                 : resultChunk;
        emitRingTransfer(
            ring, IpcCopy::Pull, computed, forward, arrived, backward, [&] {
              Value peer = hostir::IpcPeerBufferOp::create(
                  rewriter, loc, partialType, ring.handles, backward);
              return ringView(ring, peer, ring.self, chunk);
            });
        return success();
      })))
    return failure();
  if (slab)
    hostir::ReduceBlocksOp::create(
        rewriter, loc, slab, resultChunk,
        getSharding(call->getResult(0)).getPartialKind());
  if (failed(emitProduct(ring.self, resultChunk, /*accumulate=*/true)))
    return failure();
  if (gatherRing)
    emitGatherOfReducedChunk(*gatherRing, result, gathered, chunk);
  rewriter.setInsertionPointAfter(loop);
  emitSharedBufferHandshake(ring);
  if (gatherRing)
    emitSharedBufferHandshake(*gatherRing);
  return success();
}

/// Chunk `chunk` of the rank's reduced block (of `reduced`, shared with the
/// team by `ring`) goes to its place in `gathered`, and every peer's
/// counterpart, from the member j places back for j = 1, ..., n - 1, to
/// theirs.
void RingLowering::emitGatherOfReducedChunk(const Ring &ring, Value reduced,
                                            Value gathered, Value chunk) {
  Location loc = ring.loc;
  Value own = host.chunkOf(loc, reduced, chunk, ring.streamDim, ring.chunks);
  hostir::CopyOp::create(rewriter, loc, own,
                         ringView(ring, gathered, ring.self, chunk));
  (void)emitForEachPeerDistance(ring, [&](Value distance) {
    Value backward = ringPeer(ring, distance, /*forward=*/false);
    emitRingTransfer(
        ring, IpcCopy::Pull, own, ringPeer(ring, distance, /*forward=*/true),
        ringView(ring, gathered, backward, chunk), backward, [&] {
          Value peer = hostir::IpcPeerBufferOp::create(
              rewriter, loc, reduced.getType(), ring.handles, backward);
          return host.chunkOf(loc, peer, chunk, ring.streamDim, ring.chunks);
        });
    return success();
  });
}

/// The ring form of `group` when it has one: an allgather whose result only
/// library calls read as their rows, or a library call whose partial
/// result is reduce-scattered, in
/// the exposed form (the team's blocks along a dim no mesh axis splits on
/// the other side) with contiguous chunks of blocks, the partial blocks
/// along the leading dim (the one reduce_blocks reduces), and for cuda_ipc
/// a shared buffer symmetric memory can hold. False (no diagnostic)
/// otherwise.
FailureOr<bool> RingLowering::lower(const PipelineGroup &pipeline) {
  ArrayRef<Operation *> group = pipeline.ops;
  int64_t chunks = pipeline.chunks;
  auto typeOf = [](Value value) {
    return getLocalBufferType(cast<RankedTensorType>(value.getType()));
  };
  // Symmetric buffers are shared whole, with the identity layout.
  // The allgather, or the reduce_scatter after the library call.
  Operation *communication = isa<AllgatherOp>(group.front()) || group.size() < 2
                                 ? group.front()
                                 : group[1];
  bool overIpc = movesOverIpc(host.program, communication);
  auto shareable = [&](MemRefType shared) {
    return !overIpc || shared.getLayout().isIdentity();
  };
  if (auto gather = dyn_cast<AllgatherOp>(group.front())) {
    ArrayRef<Operation *> calls = group.drop_front();
    std::optional<int64_t> blockDim = gather.getBlockDim(false);
    std::optional<int64_t> streamDim = gather.getChunkwiseStreamDim();
    int64_t size = getSharding(gather.getInput())
                       .getMesh()
                       .getAxisSize(gather.getAxis());
    if (!blockDim || !streamDim || calls.empty() ||
        typeOf(gather.getInput()).getDimSize(*blockDim) != 1 ||
        !hasContiguousRingViews(typeOf(gather.getResult()), *blockDim, size,
                                *streamDim, chunks) ||
        !shareable(typeOf(gather.getResult())) ||
        !memref::isStaticShapeAndContiguousRowMajor(getChunkType(
            typeOf(gather.getInput()), *streamDim, chunks)))
      return false;
    for (Operation *call : calls) {
      if (!isa<LinearOp, MatmulOp>(call) ||
          call->getOperand(0) != gather.getResult() ||
          !getSharding(call->getResult(0)).getDimAxes(*blockDim).empty())
        return false;
    }
    if (failed(lowerAllgatherRing(gather, calls, *blockDim, *streamDim,
                                  chunks)))
      return failure();
    return true;
  }
  if (group.size() != 2 && group.size() != 3)
    return false;
  Operation *call = group[0];
  auto scatter = dyn_cast<ReduceScatterOp>(group[1]);
  // The ring never writes the rank's own block of the partial result (its
  // product goes to the result), so nothing else may read it.
  if (!isa<LinearOp, MatmulOp>(call) || !scatter ||
      scatter.getInput() != call->getResult(0) ||
      !call->getResult(0).hasOneUse())
    return false;
  std::optional<int64_t> blockDim = scatter.getBlockDim(true);
  std::optional<int64_t> streamDim = scatter.getChunkwiseStreamDim();
  MemRefType partialType = typeOf(call->getResult(0));
  int64_t size = getSharding(call->getResult(0))
                     .getMesh()
                     .getAxisSize(scatter.getAxis());
  // GEMM+allreduce: the reduced blocks gathered back in the same chunks.
  AllgatherOp gather;
  if (group.size() == 3) {
    gather = dyn_cast<AllgatherOp>(group[2]);
    if (!gather || !blockDim || gather.getInput() != scatter.getResult() ||
        !scatter.getResult().hasOneUse() ||
        gather.getAxis() != scatter.getAxis() ||
        gather.getBlockDim(false) != blockDim ||
        gather.getChunkwiseStreamDim() != streamDim || !streamDim ||
        !hasContiguousRingViews(typeOf(gather.getResult()), *blockDim, size,
                                *streamDim, chunks) ||
        !shareable(typeOf(scatter.getResult())))
      return false;
  }
  // The received partial blocks are reduced along the leading dim, and
  // the product adds to them: a sum.
  if (blockDim != 0 || !streamDim ||
      getSharding(call->getResult(0)).getPartialKind() != ReductionKind::Sum ||
      typeOf(scatter.getResult()).getDimSize(*blockDim) != 1 ||
      !getSharding(call->getOperand(0)).getDimAxes(*blockDim).empty() ||
      !hasContiguousRingViews(partialType, *blockDim, size, *streamDim,
                              chunks) ||
      !shareable(partialType))
    return false;
  if (failed(lowerReduceScatterRing(call, scatter, gather, *blockDim,
                                    *streamDim, chunks)))
    return failure();
  return true;
}

FailureOr<bool> HostBuilder::lowerRing(const PipelineGroup &group) {
  return RingLowering(*this).lower(group);
}
