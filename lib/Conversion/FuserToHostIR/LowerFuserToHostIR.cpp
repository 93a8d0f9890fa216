//===- LowerFuserToHostIR.cpp - segmented functions to host programs ------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERFUSERTOHOSTIR
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Builds the host program of one segmented function.
class HostLowering {
public:
  HostLowering(func::FuncOp function, hostir::Backend backend)
      : function(function), backend(backend), builder(function) {}
  LogicalResult run();

private:
  LogicalResult lower(Operation *op);
  /// Gives the buffer (or the chunk of it) an op reads or writes.
  using BufferFor = function_ref<Value(Value)>;

  LogicalResult lowerCommunication(Operation *op);
  Value chunkOf(Location loc, Value buffer, Value index, int64_t dim,
                int64_t chunks);
  Value slotOf(Location loc, Value slots, Value index);
  std::optional<int64_t> getPipelineChunks(Operation *op);
  LogicalResult lowerPipeline(ArrayRef<Operation *> group, int64_t chunks);
  /// Values of `group` that live only inside it and hold one chunk per step.
  DenseSet<Value> getSlotValues(ArrayRef<Operation *> group);
  bool chunksServeCommunications(ArrayRef<Operation *> group, int64_t chunks,
                                 const DenseSet<Value> &slotted);
  /// Values a pipeline reads or writes chunk by chunk.
  DenseSet<Value> chunked;
  LogicalResult emitCommunication(Operation *op, BufferFor bufferFor);
  LogicalResult emitLibraryCall(Operation *op, BufferFor bufferFor);
  template <typename HostOp, typename... Attributes>
  LogicalResult post(Operation *op, Value input, Value output, MeshAttr mesh,
                     int64_t axis, Attributes... attributes);
  LogicalResult lowerView(Operation *op);

  Value bufferOf(Value tensor) const { return buffers.lookup(tensor); }
  /// A fresh device buffer for the local piece of `tensor`.
  Value allocate(Location loc, Value tensor) {
    return hostir::AllocateOp::create(
        builder, loc,
        getLocalBufferType(cast<RankedTensorType>(tensor.getType())),
        ValueRange(), hostir::MemoryKind::Device, /*zeroed=*/false);
  }
  Value index(Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  /// The executing rank's team along `axis` of `mesh`.
  Value team(Location loc, MeshAttr mesh, int64_t axis);

  func::FuncOp function;
  hostir::Backend backend;
  OpBuilder builder;
  IRMapping buffers;
  Block *entry = nullptr;
  Value rank;
};
} // namespace

Value HostLowering::team(Location loc, MeshAttr mesh, int64_t axis) {
  // The rank is the program's: computed once at its entry.
  if (!rank) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(entry);
    rank = hostir::RankOp::create(builder, loc, builder.getIndexType());
  }
  auto type = hostir::TeamType::get(builder.getContext(), mesh.getAxisSize(axis));
  return hostir::TeamOp::create(builder, loc, type, rank, mesh,
                                ArrayRef<int64_t>{axis});
}

/// Posts `HostOp` from `input` into `output` on the rank's team along
/// `axis` and waits for it.
template <typename HostOp, typename... Attributes>
LogicalResult HostLowering::post(Operation *op, Value input, Value output,
                                 MeshAttr mesh, int64_t axis,
                                 Attributes... attributes) {
  Location loc = op->getLoc();
  Value work = HostOp::create(builder, loc,
                              hostir::WorkType::get(builder.getContext()),
                              input, output, team(loc, mesh, axis), backend,
                              attributes...);
  hostir::WaitOp::create(builder, loc, work);
  return success();
}

LogicalResult HostLowering::emitCommunication(Operation *op,
                                              BufferFor bufferFor) {
  Value input = bufferFor(op->getOperand(0));
  Value output = bufferFor(op->getResult(0));
  ShardingAttr source = getSharding(op->getOperand(0));
  // Broadcast and scatter start on a slice: their team is on the full mesh.
  MeshAttr mesh = isa<BroadcastCommOp, ScatterOp>(op)
                      ? getSharding(op->getResult(0)).getMesh()
                      : source.getMesh();
  ReductionKind kind = source.getPartialKind();
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AllgatherOp comm) {
        return post<hostir::AllgatherOp>(op, input, output, mesh,
                                         comm.getAxis());
      })
      .Case([&](AllreduceOp comm) {
        return post<hostir::AllreduceOp>(op, input, output, mesh,
                                         comm.getAxis(), kind);
      })
      .Case([&](ReduceScatterOp comm) {
        return post<hostir::ReduceScatterOp>(op, input, output, mesh,
                                             comm.getAxis(), kind);
      })
      .Case([&](ReduceOp comm) {
        return post<hostir::ReduceOp>(op, input, output, mesh, comm.getAxis(),
                                      kind, comm.getRoot());
      })
      .Case([&](BroadcastCommOp comm) {
        return post<hostir::BroadcastOp>(op, input, output, mesh,
                                         comm.getAxis(), comm.getRoot());
      })
      .Case([&](GatherOp comm) {
        return post<hostir::GatherOp>(op, input, output, mesh, comm.getAxis(),
                                      comm.getRoot());
      })
      .Case([&](ScatterOp comm) {
        return post<hostir::ScatterOp>(op, input, output, mesh, comm.getAxis(),
                                       comm.getRoot());
      })
      .Case([&](AllToAllOp comm) {
        return post<hostir::AllToAllOp>(op, input, output, mesh,
                                        comm.getAxis());
      })
      .Default([&](Operation *other) {
        return other->emitError("lowering of this communication to host IR is "
                                "not implemented yet");
      });
}

LogicalResult HostLowering::emitLibraryCall(Operation *op,
                                            BufferFor bufferFor) {
  Location loc = op->getLoc();
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    hostir::MatmulOp::create(builder, loc, bufferFor(matmul.getLhs()),
                             bufferFor(matmul.getRhs()),
                             bufferFor(matmul.getResult()));
    return success();
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    Value bias = linear.getBias() ? bufferFor(linear.getBias()) : Value();
    hostir::LinearOp::create(builder, loc, bufferFor(linear.getInput()),
                             bufferFor(linear.getWeight()), bias,
                             bufferFor(linear.getResult()));
    return success();
  }
  return op->emitError("no host library call for this op");
}

/// A view of chunk `index` of `buffer` split along `dim` into `chunks`.
Value HostLowering::chunkOf(Location loc, Value buffer, Value index,
                            int64_t dim, int64_t chunks) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= chunks;
  SmallVector<int64_t> strides;
  int64_t offset;
  // Local buffers always have strides: identity or strided layouts.
  (void)type.getStridesAndOffset(strides, offset);
  auto view = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(builder.getContext(), ShapedType::kDynamic,
                             strides));
  return hostir::AliasSelectOp::create(builder, loc, view, buffer, index,
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

/// Communications that move data are posted into a fresh output; all_slice
/// moves none: each rank views the block its team index selects.
LogicalResult HostLowering::lowerCommunication(Operation *op) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto slice = dyn_cast<AllSliceOp>(op);
  if (!slice) {
    buffers.map(result, allocate(loc, result));
    return emitCommunication(op, [&](Value v) { return bufferOf(v); });
  }
  MeshAttr mesh = getSharding(slice.getInput()).getMesh();
  int64_t axis = slice.getAxis();
  Value position = hostir::TeamIndexOp::create(
      builder, loc, builder.getIndexType(), team(loc, mesh, axis));
  buffers.map(result,
              chunkOf(loc, bufferOf(slice.getInput()), position,
                      *getSharding(result).getDimSplitBy(axis),
                      mesh.getAxisSize(axis)));
  return success();
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

/// Runs `group` chunk by chunk in a loop whose iterations may run on
/// different streams (`hostir.stream_parallel`; hostir-assign-streams
/// gives them streams). Values that live only inside the group get one
/// contiguous slot per chunk, so each step owns its staging buffer. When a
/// communication's chunks do not suit its library the group runs whole.
LogicalResult HostLowering::lowerPipeline(ArrayRef<Operation *> group,
                                          int64_t chunks) {
  Location loc = group.front()->getLoc();
  DenseSet<Value> slotted = getSlotValues(group);
  if (!chunksServeCommunications(group, chunks, slotted)) {
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
    slots[result] = hostir::AllocateOp::create(
        builder, loc, MemRefType::get(shape, whole.getElementType()),
        ValueRange(), hostir::MemoryKind::Device, /*zeroed=*/false);
  }
  auto loop = scf::ForOp::create(builder, loc, index(loc, 0),
                                 index(loc, chunks), index(loc, 1));
  loop->setAttr(hostir::HostIRDialect::getStreamParallelAttrName(),
                builder.getUnitAttr());
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

/// The strides of `op`'s result as a view of a buffer of `shape` and
/// `strides` (repeated data gets stride 0), or failure when the view op has
/// no such form (a reshape that is not a row-major regrouping).
static FailureOr<SmallVector<int64_t>>
getViewStrides(Operation *op, ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> resultShape) {
  return TypeSwitch<Operation *, FailureOr<SmallVector<int64_t>>>(op)
      .Case([&](PermuteOp permute) {
        return llvm::map_to_vector(permute.getPerm(),
                                   [&](int64_t dim) { return strides[dim]; });
      })
      .Case([&](SqueezeOp squeeze) {
        SmallVector<int64_t> result;
        for (auto [dim, stride] : llvm::enumerate(strides))
          if (!llvm::is_contained(squeeze.getDims(), dim))
            result.push_back(stride);
        return result;
      })
      .Case([&](ExpandOp) {
        SmallVector<int64_t> result(strides);
        for (auto [dim, size] : llvm::enumerate(shape))
          if (size == 1 && resultShape[dim] != 1)
            result[dim] = 0;
        return result;
      })
      .Case([&](BroadcastOp broadcast) {
        SmallVector<int64_t> result(resultShape.size(), 0);
        for (auto [from, to] : llvm::enumerate(broadcast.getDims()))
          if (!(shape[from] == 1 && resultShape[to] != 1))
            result[to] = strides[from];
        return result;
      })
      .Case([&](ReshapeOp) -> FailureOr<SmallVector<int64_t>> {
        if (SmallVector<int64_t>(strides) != computeStrides(shape))
          return failure();
        return computeStrides(resultShape);
      })
      .Default([&](Operation *) { return SmallVector<int64_t>(strides); });
}

LogicalResult HostLowering::lowerView(Operation *op) {
  Location loc = op->getLoc();
  Value source = bufferOf(op->getOperand(0));
  Value result = op->getResult(0);
  MemRefType wanted = getLocalBufferType(cast<RankedTensorType>(result.getType()));
  if (source.getType() == wanted) {
    buffers.map(result, source);
    return success();
  }
  auto sourceType = cast<MemRefType>(source.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(sourceType.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      !wanted.hasStaticShape())
    return op->emitError("lowering of a view of a buffer with dynamic shape or "
                         "strides is not implemented yet");
  Value view;
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // Sliced dims are never split, so the global window is the local one.
    view = memref::SubViewOp::create(builder, loc, source, slice.getStarts(),
                                     wanted.getShape(), slice.getSteps());
  } else {
    FailureOr<SmallVector<int64_t>> viewStrides =
        getViewStrides(op, sourceType.getShape(), strides, wanted.getShape());
    if (failed(viewStrides))
      return op->emitError("lowering of a reshape of a non-row-major buffer "
                           "to a buffer view is not implemented yet");
    SmallVector<OpFoldResult> sizes = getAsIndexOpFoldResult(
        builder.getContext(), wanted.getShape());
    SmallVector<OpFoldResult> strideValues =
        getAsIndexOpFoldResult(builder.getContext(), *viewStrides);
    OpFoldResult offsetValue =
        ShapedType::isDynamic(offset)
            ? OpFoldResult(memref::ExtractStridedMetadataOp::create(
                               builder, loc, source)
                               .getOffset())
            : OpFoldResult(builder.getIndexAttr(offset));
    auto type = MemRefType::get(
        wanted.getShape(), wanted.getElementType(),
        StridedLayoutAttr::get(builder.getContext(), offset, *viewStrides));
    view = memref::ReinterpretCastOp::create(builder, loc, type, source,
                                             offsetValue, sizes, strideValues);
  }
  // The view's exact strides are the ones the result's type states, or a
  // more precise (static) version of them.
  if (view.getType() != wanted) {
    if (!memref::CastOp::areCastCompatible(view.getType(), wanted))
      return op->emitError("the buffer view ")
             << view.getType() << " does not match the result's layout "
             << wanted;
    view = memref::CastOp::create(builder, loc, wanted, view);
  }
  buffers.map(result, view);
  return success();
}

LogicalResult HostLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    SmallVector<Value> arguments = llvm::map_to_vector(
        kernel.getInputs(), [&](Value input) { return bufferOf(input); });
    int64_t elements = 1;
    for (Value output : kernel.getOutputs()) {
      Value buffer = allocate(loc, output);
      buffers.map(output, buffer);
      arguments.push_back(buffer);
      auto type = cast<MemRefType>(buffer.getType());
      if (type.hasStaticShape())
        elements = std::max(elements, type.getNumElements());
    }
    // One thread per element of the largest output, in blocks of 128; the
    // code generator may tile differently within that grid.
    constexpr int64_t threadsPerBlock = 128;
    Value one = index(loc, 1);
    hostir::LaunchOp::create(
        builder, loc, kernel.getKernel(),
        index(loc, (elements + threadsPerBlock - 1) / threadsPerBlock), one,
        one, index(loc, threadsPerBlock), one, one, arguments, Value());
    return success();
  }
  if (op->hasTrait<mlir::fuser::OpTrait::LibraryCall>()) {
    buffers.map(op->getResult(0), allocate(loc, op->getResult(0)));
    return emitLibraryCall(op, [&](Value v) { return bufferOf(v); });
  }
  if (isa<CommunicationOpInterface>(op))
    return lowerCommunication(op);
  if (isa<ViewOpInterface>(op))
    return lowerView(op);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    func::ReturnOp::create(
        builder, loc,
        llvm::map_to_vector(ret.getOperands(),
                            [&](Value value) { return bufferOf(value); }));
    return success();
  }
  return op->emitError("cannot lower this op to host IR: segment the "
                       "function first (fuser-segment)");
}

LogicalResult HostLowering::run() {
  auto localTypes = [](TypeRange types) {
    return llvm::map_to_vector(types, [](Type type) -> Type {
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        return getLocalBufferType(tensor);
      return type;
    });
  };
  auto host = func::FuncOp::create(
      builder, function.getLoc(), (function.getSymName() + ".host").str(),
      builder.getFunctionType(localTypes(function.getArgumentTypes()),
                              localTypes(function.getResultTypes())));
  entry = host.addEntryBlock();
  for (auto [tensor, buffer] :
       llvm::zip(function.getArguments(), entry->getArguments()))
    buffers.map(tensor, buffer);
  builder.setInsertionPointToStart(entry);
  // Consecutive ops that run in the same number of stream chunks form one
  // pipeline.
  SmallVector<Operation *> group;
  int64_t groupChunks = 0;
  auto flush = [&]() -> LogicalResult {
    LogicalResult result =
        group.empty() ? success() : lowerPipeline(group, groupChunks);
    group.clear();
    return result;
  };
  for (Operation &op : function.getBody().front()) {
    std::optional<int64_t> chunks = getPipelineChunks(&op);
    if (chunks && !group.empty() && *chunks != groupChunks && failed(flush())) {
      host.erase();
      return failure();
    }
    if (chunks) {
      group.push_back(&op);
      groupChunks = *chunks;
      continue;
    }
    if (failed(flush()) || failed(lower(&op))) {
      host.erase();
      return failure();
    }
  }
  StringAttr name = function.getSymNameAttr();
  function.erase();
  host.setSymNameAttr(name);
  return success();
}

namespace {
struct LowerFuserToHostIRPass
    : public mlir::fuser::impl::LowerFuserToHostIRBase<LowerFuserToHostIRPass> {
  using LowerFuserToHostIRBase::LowerFuserToHostIRBase;

  void runOnOperation() override {
    std::optional<hostir::Backend> chosen = hostir::symbolizeBackend(backend);
    if (!chosen) {
      getOperation().emitError("backend must be nccl, mpi or cuda_ipc, got '")
          << backend << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() &&
          failed(HostLowering(function, *chosen).run()))
        return signalPassFailure();
  }
};
} // namespace
