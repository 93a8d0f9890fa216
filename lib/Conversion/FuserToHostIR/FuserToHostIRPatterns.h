//===- FuserToHostIRPatterns.h - the conversion's patterns and helpers -*- C++ -*-===//
//
// convert-fuser-to-hostir is a dialect conversion: a pattern per op family
// (kernel launches, library calls, communications, views, returns,
// pipelined groups) turns one function's fuser ops into host IR. The
// patterns share the facts of the program they lower (HostProgram) and
// emit through HostBuilder.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_CONVERSION_FUSERTOHOSTIR_FUSERTOHOSTIRPATTERNS_H
#define FUSER_LIB_CONVERSION_FUSERTOHOSTIR_FUSERTOHOSTIRPATTERNS_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fuser {

/// The type of chunk i of a buffer of `type` split along `dim` into
/// `chunks` (an hostir.alias_select view).
MemRefType getChunkType(MemRefType type, int64_t dim, int64_t chunks);

/// Whether `operands`, an op's operands as the conversion remapped them,
/// are all buffers. An op whose operand's producer failed to lower (and
/// said so) is left as it is.
inline bool areBuffers(ValueRange operands) {
  return llvm::none_of(operands.getTypes(), llvm::IsaPred<TensorType>);
}

/// Consecutive ops on one mesh stream-split into the same chunks: they run
/// as one pipeline.
struct PipelineGroup {
  SmallVector<Operation *> ops;
  int64_t chunks = 0;
};

/// What the lowering of one function shares across its patterns.
class HostProgram {
public:
  /// Collects the meshes and pipeline groups of `function`, and puts the
  /// executing rank at its entry.
  HostProgram(func::FuncOp function, hostir::Backend backend,
              Pipelining pipelining);

  /// The mesh whose devices run `op`, or null when every rank runs it
  /// (views, returns, unsharded programs) or it guards itself (send_recv).
  MeshAttr getExecutingMesh(Operation *op) const;
  /// Whether the program has devices outside `mesh`.
  bool hasDevicesOutside(MeshAttr mesh) const;
  /// Whether `op` belongs to a pipeline group: only the group's pattern
  /// lowers it.
  bool isInGroup(Operation *op) const { return grouped.contains(op); }
  /// The group `op` starts, if any.
  const PipelineGroup *getGroupStartingAt(Operation *op) const {
    auto it = groups.find(op);
    return it == groups.end() ? nullptr : &it->second;
  }
  /// Whether a pipeline reads or writes `value` chunk by chunk.
  bool isChunked(Value value) const { return chunked.contains(value); }
  /// The plan a communication of `group` carries, or the pass option's.
  Pipelining getPipelining(const PipelineGroup &group) const;

  /// The backend of the program's ring copies (cuda_ipc) or of all its
  /// communications.
  hostir::Backend backend;
  /// The library collectives and point-to-point transfers post on: CUDA
  /// IPC moves data only through the ring pipelines' copies, so with it
  /// they go through NCCL.
  hostir::Backend getLibraryBackend() const {
    return backend == hostir::Backend::CudaIpc ? hostir::Backend::NCCL
                                               : backend;
  }
  /// The executing rank (`hostir.rank` at the function's entry; erased
  /// after the conversion when nothing reads it).
  Value rank;

private:
  /// The number of stream chunks `op` can run in, one per pipeline step,
  /// and the values it reads and writes chunk by chunk.
  std::optional<int64_t> getPipelineChunks(Operation *op,
                                           SmallVectorImpl<Value> &split);

  Pipelining pipelining;
  /// Sorted device ids of all meshes of the function.
  SmallVector<int64_t> devices;
  DenseMap<Operation *, PipelineGroup> groups;
  DenseSet<Operation *> grouped;
  DenseSet<Value> chunked;
};

/// Emits host IR for the op a pattern lowers, at the rewriter's insertion
/// point. Values of the function are read through their buffers: those
/// this lowering created, else those the conversion mapped them to.
/// A value's buffer may be a view of a more precise layout than its type
/// states (an all_slice's block of a larger buffer), so the patterns read
/// buffers as they are and carry no type converter; consumers that need
/// the stated layout copy.
class HostBuilder {
public:
  HostBuilder(ConversionPatternRewriter &rewriter, const HostProgram &program)
      : rewriter(rewriter), program(program) {}

  /// Gives the buffer (or the chunk of it) an op reads or writes.
  using BufferFor = function_ref<Value(Value)>;

  Value bufferOf(Value tensor);
  void map(Value tensor, Value buffer) { buffers.map(tensor, buffer); }
  /// Replaces `op` by the buffers this lowering created for its results.
  void replace(Operation *op);
  /// Emits the host form of `op` with `emit`, on its executing mesh only
  /// (onExecutingMeshOnly), and replaces it.
  LogicalResult lowerAndReplace(Operation *op,
                                function_ref<LogicalResult()> emit) {
    if (failed(onExecutingMeshOnly(op, emit)))
      return failure();
    replace(op);
    return success();
  }
  bool hasBuffers(Operation *op) const {
    return llvm::all_of(op->getResults(),
                        [&](Value result) { return buffers.contains(result); });
  }

  /// Runs `emit` on the devices of the mesh that executes `op` only, when
  /// the program has others. Buffers it allocates are allocated by every
  /// rank (placeholders outside the mesh), so later views of them need no
  /// guard.
  LogicalResult onExecutingMeshOnly(Operation *op,
                                    function_ref<LogicalResult()> emit);

  // Ops of one family (Computations.cpp, Communications.cpp).
  /// A library call into a fresh output.
  LogicalResult lowerLibraryCall(Operation *op);
  /// A collective into a fresh output.
  LogicalResult lowerCollective(Operation *op);
  /// With `accumulate`, the call adds its product to its output.
  LogicalResult emitLibraryCall(Operation *op, BufferFor bufferFor,
                                bool accumulate = false);
  LogicalResult emitCollective(Operation *op, BufferFor bufferFor);
  /// Launches `kernel` over `arguments` with one thread per element of the
  /// largest output.
  void launch(Location loc, SymbolRefAttr kernel, ValueRange arguments,
              int64_t elements);

  // Pipelines (StreamPipeline.cpp, RingPipeline.cpp).
  /// Lowers `group` chunk by chunk: in one loop, as a ring, or op by op
  /// when it runs whole.
  LogicalResult lowerPipeline(const PipelineGroup &group);
  Value chunkOf(Location loc, Value buffer, Value index, int64_t dim,
                int64_t chunks);
  Value slotOf(Location loc, Value slots, Value index);
  /// A loop over `steps` pipeline steps whose iterations may run on
  /// different streams (`hostir.stream_parallel`).
  scf::ForOp createStreamParallelLoop(Location loc, int64_t steps);
  /// Lowers `group` as a ring (RingPipeline.cpp) when it has a ring form;
  /// false when not.
  FailureOr<bool> lowerRing(const PipelineGroup &group);

  // send_recv (SendRecv.cpp, ShardTransfers.cpp).
  LogicalResult lowerSendRecv(SendRecvOp transfer);

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
    return hostir::AllocateOp::create(rewriter, loc, type, ValueRange(), memory,
                                      /*zeroed=*/false);
  }
  Value index(Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  }
  /// The executing rank's team along `axis` of `mesh`.
  Value team(Location loc, MeshAttr mesh, int64_t axis);
  /// Where the executing rank's piece of `tensor` starts along `dim` in
  /// the global tensor.
  Value shardOffset(Location loc, Value tensor, int64_t dim);
  Value getRank() { return program.rank; }

  ConversionPatternRewriter &rewriter;
  const HostProgram &program;

private:
  LogicalResult emitAllToAll(AllToAllOp comm, Value input, Value output);
  template <typename HostOp, typename... Attributes>
  LogicalResult post(Operation *op, Value input, Value output, MeshAttr mesh,
                     int64_t axis, Attributes... attributes);

  /// Values of `group` that live only inside it and hold one chunk per step.
  DenseSet<Value> getSlotValues(const PipelineGroup &group);
  bool chunksServeCommunications(const PipelineGroup &group,
                                 const DenseSet<Value> &slotted);

  /// send_recv between meshes of different shapes (ShardTransfers.cpp).
  LogicalResult lowerShardTransfers(SendRecvOp transfer);
  /// The team of `devices` (sorted ids): member i is devices[i].
  Value teamOfDevices(Location loc, ArrayRef<int64_t> devices);

  /// Buffers of values this lowering created.
  IRMapping buffers;
};

/// A pattern of one op family. It lowers an op whose operands have buffers
/// (an op whose operand's producer failed to lower, which that failure
/// reported, is left as it is), emitting through a HostBuilder.
class HostLoweringPattern : public ConversionPattern {
public:
  /// `root` and the rest say what the pattern matches, as for
  /// ConversionPattern.
  template <typename... Root>
  HostLoweringPattern(const HostProgram &program, Root &&...root)
      : ConversionPattern(std::forward<Root>(root)...), program(program) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const final {
    if (!areBuffers(operands))
      return rewriter.notifyMatchFailure(op, "an operand has no buffer");
    HostBuilder host(rewriter, program);
    return lower(op, operands, host);
  }

protected:
  virtual LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                              HostBuilder &host) const = 0;

  const HostProgram &program;
};

/// A pattern of one op, which `lowerOp` receives as its own type.
template <typename OpT>
class HostOpLoweringPattern : public HostLoweringPattern {
public:
  HostOpLoweringPattern(MLIRContext *context, const HostProgram &program)
      : HostLoweringPattern(program, OpT::getOperationName(), /*benefit=*/1,
                            context) {}

protected:
  virtual LogicalResult lowerOp(OpT op, ArrayRef<Value> operands,
                                HostBuilder &host) const = 0;

private:
  LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                      HostBuilder &host) const final {
    return lowerOp(cast<OpT>(op), operands, host);
  }
};

/// Whether `kernel` is launched from one place only (a fuser.kernel op not
/// yet lowered, or its hostir.launch).
bool isLaunchedOnce(func::FuncOp kernel);

/// The patterns of each op family.
void populateComputationLoweringPatterns(RewritePatternSet &patterns,
                                         const HostProgram &program);
void populateCommunicationLoweringPatterns(RewritePatternSet &patterns,
                                           const HostProgram &program);
void populateViewLoweringPatterns(RewritePatternSet &patterns,
                                  const HostProgram &program);
void populatePipelineLoweringPatterns(RewritePatternSet &patterns,
                                      const HostProgram &program);

} // namespace mlir::fuser

#endif // FUSER_LIB_CONVERSION_FUSERTOHOSTIR_FUSERTOHOSTIRPATTERNS_H
