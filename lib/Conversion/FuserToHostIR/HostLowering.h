//===- HostLowering.h - building one host program ---------------*- C++ -*-===//
//
// Shared by the files of convert-fuser-to-hostir: the straight-line lowering
// of segments (ConvertFuserToHostIR.cpp), the collective-based stream
// pipeline (StreamPipeline.cpp) and the p2p ring (RingPipeline.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef LIB_CONVERSION_FUSERTOHOSTIR_HOSTLOWERING_H
#define LIB_CONVERSION_FUSERTOHOSTIR_HOSTLOWERING_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::fuser {

/// The type of chunk i of a buffer of `type` split along `dim` into
/// `chunks` (an hostir.alias_select view).
MemRefType getChunkType(MemRefType type, int64_t dim, int64_t chunks);

/// Builds the host program of one segmented function.
class HostLowering {
public:
  HostLowering(func::FuncOp function, hostir::Backend backend,
               Pipelining pipelining)
      : function(function), backend(backend), pipelining(pipelining),
        builder(function) {}
  LogicalResult run();

private:
  LogicalResult lower(Operation *op);
  /// Gives the buffer (or the chunk of it) an op reads or writes.
  using BufferFor = function_ref<Value(Value)>;

  LogicalResult lowerCommunication(Operation *op);
  LogicalResult emitCommunication(Operation *op, BufferFor bufferFor);
  /// With `accumulate`, the call adds its product to its output.
  LogicalResult emitLibraryCall(Operation *op, BufferFor bufferFor,
                                bool accumulate = false);
  LogicalResult emitAllToAll(AllToAllOp comm, Value input, Value output);
  template <typename HostOp, typename... Attributes>
  LogicalResult post(Operation *op, Value input, Value output, MeshAttr mesh,
                     int64_t axis, Attributes... attributes);
  LogicalResult lowerView(Operation *op);
  /// The buffer `kernel` reads as its argument #`index`: `buffer` itself,
  /// or a copy of the layout the kernel expects.
  Value passToKernel(Location loc, Value buffer, func::FuncOp kernel,
                     unsigned index);
  /// Launches `kernel` over `arguments` with one thread per element of the
  /// largest output.
  void launch(Location loc, SymbolRefAttr kernel, ValueRange arguments,
              int64_t elements);

  // Collective-based stream pipelining (StreamPipeline.cpp).
  std::optional<int64_t> getPipelineChunks(Operation *op);
  /// The plan a communication of `group` carries, or the pass option's.
  Pipelining getPipelining(ArrayRef<Operation *> group) const;
  LogicalResult lowerPipeline(ArrayRef<Operation *> group, int64_t chunks);
  /// Values of `group` that live only inside it and hold one chunk per step.
  DenseSet<Value> getSlotValues(ArrayRef<Operation *> group);
  bool chunksServeCommunications(ArrayRef<Operation *> group, int64_t chunks,
                                 const DenseSet<Value> &slotted);
  Value chunkOf(Location loc, Value buffer, Value index, int64_t dim,
                int64_t chunks);
  Value slotOf(Location loc, Value slots, Value index);
  /// A loop over `steps` pipeline steps whose iterations may run on
  /// different streams (`hostir.stream_parallel`).
  scf::ForOp createStreamParallelLoop(Location loc, int64_t steps);

  // The p2p ring (RingPipeline.cpp).
  struct Ring;
  struct RingStep;
  /// Lowers `group` as a ring when it has a ring form; false when not.
  FailureOr<bool> lowerRing(ArrayRef<Operation *> group, int64_t chunks);
  LogicalResult lowerAllgatherRing(AllgatherOp gather,
                                   ArrayRef<Operation *> calls,
                                   int64_t blockDim, int64_t streamDim,
                                   int64_t chunks);
  /// GEMM+RS, and GEMM+allreduce when `gather` (the allgather of the
  /// reduced blocks) is set.
  LogicalResult lowerReduceScatterRing(Operation *call,
                                       ReduceScatterOp scatter,
                                       AllgatherOp gather, int64_t blockDim,
                                       int64_t streamDim, int64_t chunks);
  void emitGatherOfReducedChunk(const Ring &ring, Value reduced,
                                Value gathered, Value chunk);
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
  /// `receivePeer` (the peer's buffer view `peerSource` gives, for cuda_ipc).
  void emitRingTransfer(const Ring &ring, Value send, Value sendPeer,
                        Value receive, Value receivePeer,
                        function_ref<Value()> peerSource);
  void emitRingEpilogue(const Ring &ring);

  // Programs over several meshes (MeshGuards.cpp).
  /// The devices of every mesh the function's values live on.
  void collectProgramDevices();
  /// The mesh whose devices run `op`, or null when every rank runs it
  /// (views, returns, unsharded programs) or it guards itself (send_recv).
  MeshAttr getExecutingMesh(Operation *op);
  /// Runs `emit` on the devices of `mesh` only, when the program has
  /// others. Buffers it allocates are allocated by every rank (placeholders
  /// outside the mesh), so later views of them need no guard.
  LogicalResult onMeshOnly(Location loc, MeshAttr mesh,
                           function_ref<LogicalResult()> emit);
  LogicalResult lowerSendRecv(SendRecvOp transfer);
  /// send_recv between meshes of different shapes (ShardTransfers.cpp).
  LogicalResult lowerShardTransfers(SendRecvOp transfer);
  /// The team of `devices` (sorted ids): member i is devices[i].
  Value teamOfDevices(Location loc, ArrayRef<int64_t> devices);

  Value bufferOf(Value tensor) const { return buffers.lookup(tensor); }
  /// A fresh buffer (device memory unless told otherwise) for the local
  /// piece of `tensor`.
  Value allocate(Location loc, Value tensor,
                 hostir::MemoryKind memory = hostir::MemoryKind::Device) {
    return allocate(
        loc, getLocalBufferType(cast<RankedTensorType>(tensor.getType())),
        memory);
  }
  Value allocate(Location loc, MemRefType type,
                 hostir::MemoryKind memory = hostir::MemoryKind::Device) {
    return hostir::AllocateOp::create(builder, loc, type, ValueRange(), memory,
                                      /*zeroed=*/false);
  }
  Value index(Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  /// The executing rank's team along `axis` of `mesh`.
  Value team(Location loc, MeshAttr mesh, int64_t axis);
  /// The executing rank, computed once at the program's entry.
  Value getRank(Location loc);

  /// The library collectives and point-to-point transfers post on: CUDA
  /// IPC moves data only through the ring pipelines' copies, so with it
  /// they go through NCCL.
  hostir::Backend getLibraryBackend() const {
    return backend == hostir::Backend::CudaIpc ? hostir::Backend::NCCL
                                               : backend;
  }

  func::FuncOp function;
  hostir::Backend backend;
  Pipelining pipelining;
  OpBuilder builder;
  IRMapping buffers;
  /// Values a pipeline reads or writes chunk by chunk.
  DenseSet<Value> chunked;
  Block *entry = nullptr;
  Value rank;
  /// Sorted device ids of all meshes of the function.
  SmallVector<int64_t> programDevices;
};

} // namespace mlir::fuser

#endif // LIB_CONVERSION_FUSERTOHOSTIR_HOSTLOWERING_H
