//===- ConvertFuserToHostIR.cpp - segmented functions to host programs ----===//

#include "HostLowering.h"

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOHOSTIR
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

Value HostLowering::getRank(Location loc) {
  if (!rank) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(entry);
    rank = hostir::RankOp::create(builder, loc, builder.getIndexType());
  }
  return rank;
}

Value HostLowering::team(Location loc, MeshAttr mesh, int64_t axis) {
  auto type =
      hostir::TeamType::get(builder.getContext(), mesh.getAxisSize(axis));
  return hostir::TeamOp::create(builder, loc, type, getRank(loc), mesh,
                                ArrayRef<int64_t>{axis});
}

/// Posts `HostOp` from `input` into `output` on the rank's team along
/// `axis` and waits for it.
template <typename HostOp, typename... Attributes>
LogicalResult HostLowering::post(Operation *op, Value input, Value output,
                                 MeshAttr mesh, int64_t axis,
                                 Attributes... attributes) {
  Location loc = op->getLoc();
  Value work = HostOp::create(
      builder, loc, hostir::WorkType::get(builder.getContext()), input, output,
      team(loc, mesh, axis), getLibraryBackend(), attributes...);
  hostir::WaitOp::create(builder, loc, work);
  return success();
}

LogicalResult HostLowering::emitCommunication(Operation *op,
                                              BufferFor bufferFor) {
  Value input = bufferFor(op->getOperand(0));
  Value output = bufferFor(op->getResult(0));
  ShardingAttr source = getSharding(op->getOperand(0));
  MeshAttr mesh = getExecutingMesh(op);
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
      .Case([&](AllToAllOp comm) { return emitAllToAll(comm, input, output); })
      // all_slice and send_recv are lowered before: they post no collective.
      .Default([&](Operation *other) {
        return other->emitError("this communication has no host collective");
      });
}

/// The view of `buffer` with `dim` split into [blocks, size / blocks] and
/// the blocks outermost: block i of the dim is index i of the view.
static Value viewBlocksOutermost(OpBuilder &builder, Location loc, Value buffer,
                                 int64_t dim, int64_t blocks) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) || !type.hasStaticShape())
    return Value();
  SmallVector<int64_t> shape(type.getShape()), viewStrides(strides);
  int64_t inner = shape[dim] / blocks;
  shape[dim] = inner;
  shape.insert(shape.begin(), blocks);
  viewStrides.insert(viewStrides.begin(), strides[dim] * inner);
  auto viewType = MemRefType::get(
      shape, type.getElementType(),
      StridedLayoutAttr::get(builder.getContext(), offset, viewStrides));
  OpFoldResult offsetValue =
      ShapedType::isDynamic(offset)
          ? OpFoldResult(
                memref::ExtractStridedMetadataOp::create(builder, loc, buffer)
                    .getOffset())
          : OpFoldResult(builder.getIndexAttr(offset));
  return memref::ReinterpretCastOp::create(
      builder, loc, viewType, buffer, offsetValue,
      getAsIndexOpFoldResult(builder.getContext(), shape),
      getAsIndexOpFoldResult(builder.getContext(), viewStrides));
}

/// all_to_all sends block j of the dim the result splits to member j and
/// receives member i's block as block i of the dim the operand splits. The
/// library exchanges equal contiguous pieces, so both sides are viewed with
/// their blocks outermost ([n, ...] with the same inner shape) and packed
/// into contiguous staging buffers where the views have gaps.
LogicalResult HostLowering::emitAllToAll(AllToAllOp comm, Value input,
                                         Value output) {
  Location loc = comm.getLoc();
  MeshAttr mesh = getSharding(comm.getInput()).getMesh();
  int64_t blocks = mesh.getAxisSize(comm.getAxis());
  Value sent = viewBlocksOutermost(
      builder, loc, input, *comm.getBlockDim(/*resultSide=*/false), blocks);
  Value received = viewBlocksOutermost(
      builder, loc, output, *comm.getBlockDim(/*resultSide=*/true), blocks);
  if (!sent || !received)
    return comm.emitError("lowering of an all_to_all of buffers with dynamic "
                          "shapes or strides is not implemented yet");
  auto staging = [&](Value view) -> Value {
    auto type = cast<MemRefType>(view.getType());
    if (memref::isStaticShapeAndContiguousRowMajor(type))
      return view;
    return allocate(loc,
                    MemRefType::get(type.getShape(), type.getElementType()));
  };
  Value sendBuffer = staging(sent), receiveBuffer = staging(received);
  if (sendBuffer != sent)
    hostir::CopyOp::create(builder, loc, sent, sendBuffer);
  Value work = hostir::AllToAllOp::create(
      builder, loc, hostir::WorkType::get(builder.getContext()), sendBuffer,
      receiveBuffer, team(loc, mesh, comm.getAxis()), getLibraryBackend());
  hostir::WaitOp::create(builder, loc, work);
  if (receiveBuffer != received)
    hostir::CopyOp::create(builder, loc, receiveBuffer, received);
  return success();
}

LogicalResult HostLowering::emitLibraryCall(Operation *op, BufferFor bufferFor,
                                            bool accumulate) {
  Location loc = op->getLoc();
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    hostir::MatmulOp::create(
        builder, loc, bufferFor(matmul.getLhs()), bufferFor(matmul.getRhs()),
        bufferFor(matmul.getResult()), accumulate, matmul.getActivationAttr());
    return success();
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    Value bias = linear.getBias() ? bufferFor(linear.getBias()) : Value();
    hostir::LinearOp::create(builder, loc, bufferFor(linear.getInput()),
                             bufferFor(linear.getWeight()), bias,
                             bufferFor(linear.getResult()), accumulate,
                             linear.getActivationAttr());
    return success();
  }
  return op->emitError("no host library call for this op");
}

/// Communications that move data are posted into a fresh output; all_slice
/// moves none: each rank views the block its team index selects.
LogicalResult HostLowering::lowerCommunication(Operation *op) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  if (auto transfer = dyn_cast<SendRecvOp>(op))
    return lowerSendRecv(transfer);
  auto slice = dyn_cast<AllSliceOp>(op);
  if (!slice) {
    buffers.map(result, allocate(loc, result));
    return emitCommunication(op, [&](Value v) { return bufferOf(v); });
  }
  MeshAttr mesh = getSharding(slice.getInput()).getMesh();
  int64_t axis = slice.getAxis();
  Value position = hostir::TeamIndexOp::create(
      builder, loc, builder.getIndexType(), team(loc, mesh, axis));
  buffers.map(result, chunkOf(loc, bufferOf(slice.getInput()), position,
                              *getSharding(result).getDimSplitBy(axis),
                              mesh.getAxisSize(axis)));
  return success();
}

void HostLowering::launch(Location loc, SymbolRefAttr kernel,
                          ValueRange arguments, int64_t elements) {
  // One thread per element, in blocks of 128; the code generator may tile
  // differently within that grid.
  constexpr int64_t threadsPerBlock = 128;
  Value one = index(loc, 1);
  hostir::LaunchOp::create(
      builder, loc, kernel,
      index(loc, (elements + threadsPerBlock - 1) / threadsPerBlock), one, one,
      index(loc, threadsPerBlock), one, one, arguments, Value());
}

/// Segmentation gave each kernel parameter the layout its value's sharding
/// states; the host program may hold a view of another layout (an
/// all_slice's block of a larger buffer: an offset, the whole's strides).
/// Kernels read any strided buffer, so a kernel launched from here only
/// takes the view as it is; a kernel other launches share reads a copy of
/// the layout it expects instead.
Value HostLowering::passToKernel(Location loc, Value buffer,
                                 func::FuncOp kernel, unsigned index) {
  Type viewType = buffer.getType();
  auto expected = cast<MemRefType>(kernel.getArgumentTypes()[index]);
  if (viewType == expected)
    return buffer;
  std::optional<SymbolTable::UseRange> launches = SymbolTable::getSymbolUses(
      kernel, kernel->getParentOfType<ModuleOp>()->getParentOp());
  if (launches && llvm::hasSingleElement(*launches)) {
    SmallVector<Type> parameters(kernel.getArgumentTypes());
    parameters[index] = viewType;
    kernel.setType(FunctionType::get(kernel.getContext(), parameters,
                                     kernel.getResultTypes()));
    if (!kernel.isExternal())
      kernel.getArgument(index).setType(viewType);
    return buffer;
  }
  Value copy = allocate(loc, expected);
  hostir::CopyOp::create(builder, loc, buffer, copy);
  return copy;
}

LogicalResult HostLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        kernel, kernel.getKernel());
    SmallVector<Value> arguments;
    for (auto [index, input] : llvm::enumerate(kernel.getInputs()))
      arguments.push_back(passToKernel(loc, bufferOf(input), callee, index));
    int64_t elements = 1;
    for (Value output : kernel.getOutputs()) {
      Value buffer = allocate(loc, output);
      buffers.map(output, buffer);
      arguments.push_back(buffer);
      auto type = cast<MemRefType>(buffer.getType());
      if (type.hasStaticShape())
        elements = std::max(elements, type.getNumElements());
    }
    // The kernel's remaining arguments are the rank's positions.
    for (unsigned index = arguments.size(), count = callee.getNumArguments();
         index < count; ++index) {
      auto position = callee.getArgAttrOfType<MeshPositionAttr>(
          index, FuserDialect::getMeshPositionAttrName());
      arguments.push_back(hostir::TeamIndexOp::create(
          builder, loc, builder.getIndexType(),
          team(loc, position.getMesh(), position.getAxis())));
    }
    launch(loc, kernel.getKernel(), arguments, elements);
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
    // A view whose layout is not the result's (a block of a buffer the
    // program owns) is returned as a copy of the result's own layout.
    SmallVector<Value> results;
    for (Value value : ret.getOperands()) {
      Value buffer = bufferOf(value);
      MemRefType wanted =
          getLocalBufferType(cast<RankedTensorType>(value.getType()));
      if (buffer.getType() != wanted) {
        Value copy = allocate(loc, wanted);
        hostir::CopyOp::create(builder, loc, buffer, copy);
        buffer = copy;
      }
      results.push_back(buffer);
    }
    func::ReturnOp::create(builder, loc, results);
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
  collectProgramDevices();
  // Consecutive ops on one mesh that run in the same number of stream
  // chunks form one pipeline.
  SmallVector<Operation *> group;
  int64_t groupChunks = 0;
  auto flush = [&]() -> LogicalResult {
    if (group.empty())
      return success();
    LogicalResult result =
        onMeshOnly(group.front()->getLoc(), getExecutingMesh(group.front()),
                   [&] { return lowerPipeline(group, groupChunks); });
    group.clear();
    return result;
  };
  for (Operation &op : function.getBody().front()) {
    std::optional<int64_t> chunks = getPipelineChunks(&op);
    if (chunks && !group.empty() &&
        (*chunks != groupChunks ||
         getExecutingMesh(&op) != getExecutingMesh(group.front())) &&
        failed(flush())) {
      host.erase();
      return failure();
    }
    if (chunks) {
      group.push_back(&op);
      groupChunks = *chunks;
      continue;
    }
    if (failed(flush()) || failed(onMeshOnly(op.getLoc(), getExecutingMesh(&op),
                                             [&] { return lower(&op); }))) {
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
struct ConvertFuserToHostIRPass
    : public mlir::fuser::impl::ConvertFuserToHostIRBase<
          ConvertFuserToHostIRPass> {
  using ConvertFuserToHostIRBase::ConvertFuserToHostIRBase;

  void runOnOperation() override {
    // Pipelines fuser-expose-pipelined-axes planned carry their plan; with
    // `auto` the others (chunk-wise groups it does not plan) run
    // collectively.
    Pipelining strategy =
        getFixedPipelining(pipelining).value_or(Pipelining::Collective);
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() &&
          failed(HostLowering(function, backend, strategy).run()))
        return signalPassFailure();
  }
};
} // namespace
