//===- ExposePipelinedAxes.cpp - plan pipelines, expose their mesh axis ---===//
//
// A stream split asks for a communication to overlap the library calls
// beside it. This pass finds those pipelines (AG+GEMM, GEMM+RS,
// GEMM+allreduce), plans each (no overlap, collective, ring; the chunk
// count), and rewrites it into the form host lowering pipelines.
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
#include "fuser/Dialect/Fuser/Analysis/PipelineCostModel.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_EXPOSEPIPELINEDAXES
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

using Kind = PipelineProblem::Kind;

/// Whether `op` is a library call computing rows of its operand 0 that
/// `dim` indexes: a linear's input, or the lhs of a matmul whose rhs is a
/// matrix (shared by every batch entry, so the rows may gain a dim), with
/// `dim` not the contracted one.
static bool isRowCall(Operation *op, int64_t dim) {
  if (auto matmul = dyn_cast<MatmulOp>(op))
    if (matmul.getRhs().getType().getRank() != 2)
      return false;
  if (!isa<LinearOp, MatmulOp>(op))
    return false;
  return dim < cast<RankedTensorType>(op->getOperand(0).getType()).getRank() - 1;
}

static int64_t getStreamChunksOn(Value value, int64_t dim) {
  ShardingAttr sharding = getSharding(value);
  return sharding.getStreamDim() == dim ? sharding.getStreamChunks() : 0;
}

static SmallVector<int64_t> getLocalShape(Value value) {
  return getSharding(value).getLocalShape(
      cast<RankedTensorType>(value.getType()).getShape());
}

namespace {
/// A pipelined communication and the library calls beside it.
struct Pipeline {
  Kind kind;
  Operation *communication;
  /// AG+GEMM: the users of the gathered value that read it as their rows;
  /// otherwise the one producer.
  SmallVector<Operation *> calls;
  /// The pipelined dim and the mesh axis the communication runs over.
  int64_t dim, axis, teamSize;
  /// The chunks the user asked for, and whether they chunk each rank's
  /// block (a stream split on the split side) or the whole dim.
  int64_t requestedChunks;
  bool chunksOfBlock;
  /// Whether a stream split asks for the pipeline; an unrequested one is
  /// only considered by pipelining=auto.
  bool requested = true;
  /// AG+GEMM: whether other users read the gathered value, whole, after
  /// the pipeline (a weight gradient contracting its rows, say).
  bool gatheredReadWhole = false;
  /// Whether its teams hold ranks of different nodes.
  bool betweenNodes = false;

  /// The rows of the dim in each rank's block.
  int64_t getBlockRows() const {
    Value full = kind == Kind::AllgatherGemm ? communication->getResult(0)
                                             : communication->getOperand(0);
    return cast<RankedTensorType>(full.getType()).getDimSize(dim) / teamSize;
  }

  PipelineProblem getProblem(bool copyEngineRing) const {
    copyEngineRing = copyEngineRing && !betweenNodes;
    Operation *call = calls.front();
    SmallVector<int64_t> result = getLocalShape(call->getResult(0));
    SmallVector<int64_t> input = getLocalShape(call->getOperand(0));
    int64_t n = result.back(), k = input.back();
    int64_t rows = ShapedType::getNumElements(ArrayRef(result).drop_back());
    auto type = cast<RankedTensorType>(call->getResult(0).getType());
    int64_t elementBytes = getElementBytes(type.getElementType());
    int64_t rowBytes = (kind == Kind::AllgatherGemm ? k : n) * elementBytes;
    return {kind,     teamSize,       rows,        n,
            k,        rowBytes,       copyEngineRing, betweenNodes};
  }
};

/// How one pipeline runs.
struct Plan {
  Pipelining mode;
  /// Chunks of each rank's block; 0 with `none`.
  int64_t chunks;
  /// Its teams hold ranks of different nodes (no CUDA IPC).
  bool betweenNodes = false;
};
} // namespace

/// Whether no value of `pipeline` states a layout, and only `split` (the
/// side the mesh axis splits) has mesh axes on the pipelined dim.
static bool isPlain(const Pipeline &pipeline, Value split) {
  SmallVector<Value> values{pipeline.communication->getOperand(0),
                            pipeline.communication->getResult(0)};
  for (Operation *call : pipeline.calls)
    values.append({call->getOperand(0), call->getResult(0)});
  return llvm::all_of(values, [&](Value value) {
    ShardingAttr sharding = getSharding(value);
    return !sharding.statesLayout() &&
           (value == split || sharding.getDimAxes(pipeline.dim).empty());
  });
}

/// The dim `axis` splits when no other mesh axis splits it too.
static std::optional<int64_t> getDimSplitByAlone(ShardingAttr sharding,
                                                 int64_t axis) {
  std::optional<int64_t> dim = sharding.getDimSplitBy(axis);
  if (!dim || sharding.getDimAxes(*dim) != ArrayRef<int64_t>{axis})
    return std::nullopt;
  return dim;
}

/// The pipeline no stream split asks for, as pipelining=auto weighs it:
/// chunks of each rank's block, as many as the cost model chooses.
static Pipeline unrequested(Pipeline pipeline) {
  pipeline.requested = false;
  pipeline.requestedChunks = 0;
  pipeline.chunksOfBlock = true;
  return pipeline;
}

/// AG+GEMM: the users of the gathered value that read it as their rows
/// overlap the allgather; any others read the gathered value once the
/// pipeline has put it together (the backward's output gradient feeds the
/// data gradient as rows and the weight gradient as its contracted dim).
/// Without a stream split, only where `unrequestedToo`.
static std::optional<Pipeline> matchAllgather(AllgatherOp gather,
                                              bool unrequestedToo) {
  ShardingAttr input = getSharding(gather.getInput());
  auto axis = static_cast<int64_t>(gather.getAxis());
  std::optional<int64_t> dim = getDimSplitByAlone(input, axis);
  if (!dim)
    return std::nullopt;
  Pipeline pipeline{Kind::AllgatherGemm, gather, {}, *dim, axis,
                    input.getMesh().getAxisSize(axis), 0, true};
  for (OpOperand &use : gather.getResult().getUses()) {
    if (use.getOperandNumber() == 0 && isRowCall(use.getOwner(), *dim))
      pipeline.calls.push_back(use.getOwner());
    else
      pipeline.gatheredReadWhole = true;
  }
  if (pipeline.calls.empty() || !isPlain(pipeline, gather.getInput()))
    return std::nullopt;
  // Chunks of each block on the input, or of the whole dim on the gathered
  // value or on every result computed from it.
  if (int64_t chunks = getStreamChunksOn(gather.getInput(), *dim)) {
    pipeline.requestedChunks = chunks;
    return pipeline;
  }
  pipeline.chunksOfBlock = false;
  pipeline.requestedChunks = getStreamChunksOn(gather.getResult(), *dim);
  if (!pipeline.requestedChunks) {
    int64_t first = getStreamChunksOn(pipeline.calls.front()->getResult(0), *dim);
    if (first && llvm::all_of(pipeline.calls, [&](Operation *call) {
          return getStreamChunksOn(call->getResult(0), *dim) == first;
        }))
      pipeline.requestedChunks = first;
  }
  if (!pipeline.requestedChunks)
    return unrequestedToo ? std::optional(unrequested(pipeline)) : std::nullopt;
  return pipeline;
}

/// The library call whose partial result only `communication` reads.
static Operation *getOnlyProducerCall(Operation *communication, int64_t dim) {
  Operation *call = communication->getOperand(0).getDefiningOp();
  if (!call || !isRowCall(call, dim) || !call->getResult(0).hasOneUse())
    return nullptr;
  return call;
}

/// GEMM+RS: the partial result of a library call, scattered along its rows.
static std::optional<Pipeline> matchReduceScatter(ReduceScatterOp scatter,
                                                  bool unrequestedToo) {
  ShardingAttr result = getSharding(scatter.getResult());
  auto axis = static_cast<int64_t>(scatter.getAxis());
  std::optional<int64_t> dim = getDimSplitByAlone(result, axis);
  if (!dim)
    return std::nullopt;
  Operation *call = getOnlyProducerCall(scatter, *dim);
  if (!call)
    return std::nullopt;
  Pipeline pipeline{Kind::GemmReduceScatter, scatter, {call}, *dim, axis,
                    result.getMesh().getAxisSize(axis), 0, true};
  if (!isPlain(pipeline, scatter.getResult()))
    return std::nullopt;
  pipeline.requestedChunks = getStreamChunksOn(scatter.getResult(), *dim);
  if (!pipeline.requestedChunks) {
    pipeline.chunksOfBlock = false;
    pipeline.requestedChunks = getStreamChunksOn(scatter.getInput(), *dim);
  }
  if (!pipeline.requestedChunks)
    return unrequestedToo ? std::optional(unrequested(pipeline)) : std::nullopt;
  return pipeline;
}

/// The longest row dim of `reduce`'s input that no mesh axis splits (the
/// sequence of a row-parallel linear's [batch, sequence, features]), where
/// the GEMM+allreduce no stream split asks for is chunked.
static std::optional<int64_t> getUnsplitRowDim(AllreduceOp reduce) {
  ShardingAttr sharding = getSharding(reduce.getInput());
  ArrayRef<int64_t> shape = reduce.getInput().getType().getShape();
  std::optional<int64_t> longest;
  for (int64_t dim = 0; dim + 1 < static_cast<int64_t>(shape.size()); ++dim)
    if (shape[dim] > 1 && sharding.getDimAxes(dim).empty() &&
        (!longest || shape[dim] > shape[*longest]))
      longest = dim;
  return longest;
}

/// GEMM+allreduce: the partial result of a library call, reduced in chunks
/// of a row dim no mesh axis splits: the stream split's, or without one
/// (only where `unrequestedToo`) the longest such dim.
static std::optional<Pipeline> matchAllreduce(AllreduceOp reduce,
                                              bool unrequestedToo) {
  std::optional<int64_t> dim = getSharding(reduce.getInput()).getStreamDim();
  bool requested = dim.has_value();
  if (!requested && unrequestedToo)
    dim = getUnsplitRowDim(reduce);
  if (!dim)
    return std::nullopt;
  // The result is split as the input is: not at all without a request.
  int64_t chunks = getStreamChunksOn(reduce.getInput(), *dim);
  Operation *call = getOnlyProducerCall(reduce, *dim);
  if (!call || getStreamChunksOn(reduce.getResult(), *dim) != chunks ||
      (!requested && getSharding(reduce.getResult()).getStreamDim()))
    return std::nullopt;
  ShardingAttr input = getSharding(reduce.getInput());
  auto axis = static_cast<int64_t>(reduce.getAxis());
  Pipeline pipeline{Kind::GemmAllreduce, reduce, {call}, *dim, axis,
                    input.getMesh().getAxisSize(axis), chunks, false};
  if (!isPlain(pipeline, Value()))
    return std::nullopt;
  if (!requested)
    return unrequested(pipeline);
  return pipeline;
}

namespace {
/// `dim` of the values of one pipeline reshaped into [size, rest].
struct Exposure {
  int64_t dim;
  int64_t size;

  /// `type` with `dim` reshaped: the dim's mesh axes go to the outer dim,
  /// and the inner dim is stream-split into `chunks` (none for 0).
  RankedTensorType expose(RankedTensorType type, int64_t chunks) const {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] /= size;
    shape.insert(shape.begin() + dim, size);
    ShardingAttr sharding = getSharding(type);
    SmallVector<SmallVector<int64_t>> axes = sharding.getDimAxesList();
    axes.insert(axes.begin() + dim + 1, SmallVector<int64_t>{});
    auto exposed =
        ShardingAttr::get(sharding.getMesh(), axes, sharding.getPartial())
            .withStream(chunks ? std::optional<int64_t>(dim + 1) : std::nullopt,
                        chunks, /*chunked=*/false);
    return RankedTensorType::get(shape, type.getElementType(), exposed);
  }
};
} // namespace

static RankedTensorType withStream(Type type, int64_t dim, int64_t chunks) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.cloneWithEncoding(getSharding(tensor).withStream(
      chunks ? std::optional<int64_t>(dim) : std::nullopt, chunks,
      /*chunked=*/false));
}

static void setPlan(Operation *communication, const Plan &plan) {
  communication->setAttr(
      FuserDialect::getPipeliningAttrName(),
      PipeliningAttr::get(communication->getContext(), plan.mode));
  if (plan.betweenNodes)
    communication->setAttr(FuserDialect::getBetweenNodesAttrName(),
                           UnitAttr::get(communication->getContext()));
}

/// `value` as `type`: a reshape where the types differ (a view: the shape
/// or only the stream split changes).
static Value reshapeTo(OpBuilder &builder, Location loc, Value value,
                       Type type) {
  if (value.getType() == type)
    return value;
  return ReshapeOp::create(builder, loc, cast<RankedTensorType>(type), value);
}

/// `call` on `rows` instead of its operand 0, computing a result of
/// `resultType`.
static Operation *cloneCall(OpBuilder &builder, Operation *call, Value rows,
                            Type resultType) {
  SmallVector<Value> operands(call->getOperands());
  operands.front() = rows;
  return mlir::clone(builder, call, resultType, operands);
}

/// reshape(x) -> allgather -> calls -> reshapes back.
static void exposeAllgather(const Pipeline &pipeline, const Plan &plan) {
  auto gather = cast<AllgatherOp>(pipeline.communication);
  Exposure exposure{pipeline.dim, pipeline.teamSize};
  OpBuilder builder(gather);
  Location loc = gather.getLoc();
  Value input =
      reshapeTo(builder, loc, gather.getInput(),
                exposure.expose(gather.getInput().getType(), plan.chunks));
  auto gathered = AllgatherOp::create(
      builder, loc, exposure.expose(gather.getType(), plan.chunks), input,
      gather.getAxis());
  setPlan(gathered, plan);
  for (Operation *call : pipeline.calls) {
    builder.setInsertionPoint(call);
    Type type = call->getResult(0).getType();
    Operation *exposed =
        cloneCall(builder, call, gathered,
                  exposure.expose(cast<RankedTensorType>(type), plan.chunks));
    call->getResult(0).replaceAllUsesWith(
        reshapeTo(builder, call->getLoc(), exposed->getResult(0), type));
    call->erase();
  }
  if (pipeline.gatheredReadWhole) {
    // The whole value is viewed where it is first read, so that the
    // allgather and its calls stay next to each other (a pipeline group).
    Block *block = gathered->getBlock();
    Operation *firstReader = nullptr;
    for (Operation *user : gather.getResult().getUsers()) {
      Operation *reader = block->findAncestorOpInBlock(*user);
      if (!firstReader || reader->isBeforeInBlock(firstReader))
        firstReader = reader;
    }
    builder.setInsertionPoint(firstReader);
    gather.getResult().replaceAllUsesWith(
        reshapeTo(builder, loc, gathered, gather.getType()));
  }
  gather.erase();
}

/// reshape(input) -> call -> reduce_scatter, in the exposed form. Returns
/// the exposed reduce_scatter's result.
static Value exposeReduceScatter(OpBuilder &builder, Operation *call,
                                 ReduceScatterOp scatter, int64_t dim,
                                 int64_t teamSize, const Plan &plan) {
  Exposure exposure{dim, teamSize};
  Location loc = call->getLoc();
  builder.setInsertionPoint(scatter);
  Value rows = call->getOperand(0);
  Value input = reshapeTo(
      builder, loc, rows,
      exposure.expose(cast<RankedTensorType>(rows.getType()), plan.chunks));
  Operation *exposed = cloneCall(
      builder, call, input,
      exposure.expose(cast<RankedTensorType>(call->getResult(0).getType()),
                      plan.chunks));
  auto scattered = ReduceScatterOp::create(
      builder, scatter.getLoc(), exposure.expose(scatter.getType(), plan.chunks),
      exposed->getResult(0), scatter.getAxis());
  setPlan(scattered, plan);
  return scattered;
}

static void exposeReduceScatter(const Pipeline &pipeline, const Plan &plan) {
  auto scatter = cast<ReduceScatterOp>(pipeline.communication);
  Operation *call = pipeline.calls.front();
  OpBuilder builder(scatter);
  Value scattered = exposeReduceScatter(builder, call, scatter, pipeline.dim,
                                        pipeline.teamSize, plan);
  scatter.getResult().replaceAllUsesWith(
      reshapeTo(builder, scatter.getLoc(), scattered, scatter.getType()));
  scatter.erase();
  call->erase();
}

/// Collective or none: the call and the allreduce in the plan's chunks.
/// Ring: a ring GEMM+RS over the same axis, then an allgather of the
/// reduced blocks in the same chunks, which the ring runs chunk by chunk.
static void exposeAllreduce(const Pipeline &pipeline, const Plan &plan) {
  auto reduce = cast<AllreduceOp>(pipeline.communication);
  Operation *call = pipeline.calls.front();
  OpBuilder builder(reduce);
  Location loc = reduce.getLoc();
  Value replacement;
  if (plan.mode == Pipelining::Ring) {
    ShardingAttr reduced = getSharding(reduce.getResult());
    auto scatteredType = reduce.getType().cloneWithEncoding(
        reduced.withAxisOnDim(pipeline.axis, pipeline.dim, 0)
            .withStream(std::nullopt, 0, /*chunked=*/false));
    auto scatter = ReduceScatterOp::create(builder, loc, scatteredType,
                                           call->getResult(0), pipeline.axis);
    Value scattered = exposeReduceScatter(builder, call, scatter, pipeline.dim,
                                          pipeline.teamSize, plan);
    scatter.erase();
    builder.setInsertionPoint(reduce);
    Exposure exposure{pipeline.dim, pipeline.teamSize};
    auto gathered = AllgatherOp::create(
        builder, loc,
        exposure.expose(withStream(reduce.getType(), pipeline.dim, 0),
                        plan.chunks),
        scattered, pipeline.axis);
    setPlan(gathered, plan);
    replacement = gathered;
  } else {
    builder.setInsertionPoint(call);
    Operation *chunked = cloneCall(
        builder, call, call->getOperand(0),
        withStream(call->getResult(0).getType(), pipeline.dim, plan.chunks));
    builder.setInsertionPoint(reduce);
    auto reduced = AllreduceOp::create(
        builder, loc, withStream(reduce.getType(), pipeline.dim, plan.chunks),
        chunked->getResult(0), reduce.getAxis());
    setPlan(reduced, plan);
    replacement = reduced;
  }
  reduce.getResult().replaceAllUsesWith(
      reshapeTo(builder, loc, replacement, reduce.getType()));
  reduce.erase();
  call->erase();
}

/// The plan the `pipelining` option gives `pipeline`, with chunks that
/// divide each rank's block. Chunks of the whole dim are as many chunks of
/// each block for the collective pipeline (each step moves as many rows),
/// and each block in that many chunks' share for the ring, whose steps
/// take one member's block at a time; a ring runs at least the chunks
/// getMinRingChunks gives where they divide the block.
static Plan getRequestedPlan(const Pipeline &pipeline, Pipelining mode) {
  int64_t chunks = pipeline.requestedChunks;
  if (mode == Pipelining::None)
    return {mode, 0};
  if (mode == Pipelining::Ring && !pipeline.chunksOfBlock)
    chunks = std::max<int64_t>(1, chunks / pipeline.teamSize);
  int64_t block = pipeline.getBlockRows();
  if (mode == Pipelining::Ring) {
    int64_t fewest = getMinRingChunks(pipeline.kind);
    if (block % fewest == 0)
      chunks = std::max(chunks, fewest);
  }
  while (block % chunks != 0)
    --chunks;
  return {mode, chunks};
}

namespace {
struct ExposePipelinedAxesPass
    : public mlir::fuser::impl::ExposePipelinedAxesBase<
          ExposePipelinedAxesPass> {
  using ExposePipelinedAxesBase::ExposePipelinedAxesBase;

  /// The ranks of each node: the option's, else (with auto) the
  /// calibration's machine's, else all `worldSize` ranks on one node.
  int64_t getRanksPerNode(const PipelineCalibration &machine, bool fixed,
                          int64_t worldSize) const {
    if (ranksPerNode > 0)
      return ranksPerNode;
    if (!fixed && machine.machine.ranksPerNode > 0)
      return machine.machine.ranksPerNode;
    return worldSize;
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    std::optional<Pipelining> fixed = getFixedPipelining(pipelining);
    if (ranksPerNode < 0) {
      function.emitError("ranks-per-node is ")
          << static_cast<int64_t>(ranksPerNode)
          << "; it takes the ranks of each node, or 0 for the calibration's";
      return signalPassFailure();
    }
    int64_t worldSize = getRequiredWorldSize(function);
    PipelineCalibration machine = PipelineCalibration::h200();
    if (!fixed) {
      llvm::Expected<PipelineCalibration> found =
          findCalibration(calibration, worldSize, ranksPerNode);
      if (!found) {
        function.emitError(llvm::toString(found.takeError()));
        return signalPassFailure();
      }
      machine = std::move(*found);
      function->setAttr(FuserDialect::getCalibrationAttrName(),
                        StringAttr::get(&getContext(), machine.describe()));
    }
    int64_t nodeRanks = getRanksPerNode(machine, fixed.has_value(), worldSize);
    // A fixed mode pipelines what stream splits ask for; auto also weighs
    // every other communication a library call feeds or reads.
    bool unrequestedToo = !fixed;
    SmallVector<Pipeline> pipelines;
    getOperation().walk([&](Operation *op) {
      std::optional<Pipeline> pipeline;
      if (auto gather = dyn_cast<AllgatherOp>(op))
        pipeline = matchAllgather(gather, unrequestedToo);
      else if (auto scatter = dyn_cast<ReduceScatterOp>(op))
        pipeline = matchReduceScatter(scatter, unrequestedToo);
      else if (auto reduce = dyn_cast<AllreduceOp>(op))
        pipeline = matchAllreduce(reduce, unrequestedToo);
      if (!pipeline)
        return;
      pipeline->betweenNodes =
          getSharding(op->getOperand(0))
              .getMesh()
              .toMesh()
              .teamsSpanNodes({pipeline->axis}, nodeRanks);
      pipelines.push_back(std::move(*pipeline));
    });
    for (const Pipeline &pipeline : pipelines) {
      // A team of one moves nothing between ranks: nothing to overlap.
      if (pipeline.teamSize == 1)
        continue;
      Plan plan;
      if (fixed) {
        plan = getRequestedPlan(pipeline, *fixed);
      } else {
        // The cost model weighs bytes: an element type without a size in
        // memory (index) cannot be costed; what nobody asked to pipeline
        // then stays as written.
        Operation *call = pipeline.calls.front();
        Type element = cast<RankedTensorType>(call->getResult(0).getType())
                           .getElementType();
        if (!element.isIntOrFloat() && !pipeline.requested)
          continue;
        if (!element.isIntOrFloat()) {
          call->emitOpError("computes on ")
              << element
              << " elements, which have no size in memory for pipelining=auto "
                 "to cost; give a pipelining mode or a sized element type";
          return signalPassFailure();
        }
        PipelinePlan chosen = choosePipeline(
            pipeline.getProblem(backend == hostir::Backend::CudaIpc), machine);
        // What nobody asked to pipeline stays as written unless it
        // overlaps, in chunks that divide the rows it chunks.
        if (!pipeline.requested &&
            (chosen.mode == Pipelining::None ||
             pipeline.getBlockRows() % chosen.chunks != 0))
          continue;
        plan = {chosen.mode, chosen.chunks};
      }
      plan.betweenNodes = pipeline.betweenNodes;
      if (plan.betweenNodes && plan.mode == Pipelining::Ring &&
          backend == hostir::Backend::CudaIpc)
        pipeline.communication->emitWarning("the ring over mesh axis ")
            << pipeline.axis
            << " connects ranks of different nodes, which CUDA IPC cannot "
               "reach: it moves its blocks over NCCL";
      switch (pipeline.kind) {
      case Kind::AllgatherGemm:
        exposeAllgather(pipeline, plan);
        break;
      case Kind::GemmReduceScatter:
        exposeReduceScatter(pipeline, plan);
        break;
      case Kind::GemmAllreduce:
        exposeAllreduce(pipeline, plan);
        break;
      }
    }
  }
};
} // namespace
