//===- Communications.cpp - collectives, all_slice and send_recv ---------===//
//
// A communication that moves data becomes an allocation for its output,
// the team of the executing rank along its mesh axis, the collective on
// the library backend and a hostir.wait; all_slice moves none: each rank
// views the block its team index selects.
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

/// Posts `HostOp` from `input` into `output` on the rank's team along
/// `axis` and waits for it.
template <typename HostOp, typename... Attributes>
LogicalResult HostBuilder::post(Operation *op, Value input, Value output,
                                MeshAttr mesh, int64_t axis,
                                Attributes... attributes) {
  Location loc = op->getLoc();
  Value work = HostOp::create(rewriter, loc,
                              hostir::WorkType::get(rewriter.getContext()),
                              input, output, team(loc, mesh, axis),
                              program.getLibraryBackend(), attributes...);
  hostir::WaitOp::create(rewriter, loc, work);
  return success();
}

LogicalResult HostBuilder::emitCollective(Operation *op, BufferFor bufferFor) {
  Value input = bufferFor(op->getOperand(0));
  Value output = bufferFor(op->getResult(0));
  ShardingAttr source = getSharding(op->getOperand(0));
  MeshAttr mesh = program.getExecutingMesh(op);
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
LogicalResult HostBuilder::emitAllToAll(AllToAllOp comm, Value input,
                                        Value output) {
  Location loc = comm.getLoc();
  MeshAttr mesh = getSharding(comm.getInput()).getMesh();
  int64_t blocks = mesh.getAxisSize(comm.getAxis());
  Value sent = viewBlocksOutermost(
      rewriter, loc, input, *comm.getBlockDim(/*resultSide=*/false), blocks);
  Value received = viewBlocksOutermost(
      rewriter, loc, output, *comm.getBlockDim(/*resultSide=*/true), blocks);
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
    hostir::CopyOp::create(rewriter, loc, sent, sendBuffer);
  Value work = hostir::AllToAllOp::create(
      rewriter, loc, hostir::WorkType::get(rewriter.getContext()), sendBuffer,
      receiveBuffer, team(loc, mesh, comm.getAxis()),
      program.getLibraryBackend());
  hostir::WaitOp::create(rewriter, loc, work);
  if (receiveBuffer != received)
    hostir::CopyOp::create(rewriter, loc, receiveBuffer, received);
  return success();
}

LogicalResult HostBuilder::lowerCollective(Operation *op) {
  Value result = op->getResult(0);
  map(result, allocate(op->getLoc(), result));
  return emitCollective(op, [&](Value v) { return bufferOf(v); });
}

namespace {
/// Collectives -> an allocation, the collective and its wait.
struct CollectiveLowering : public HostLoweringPattern {
  CollectiveLowering(MLIRContext *context, const HostProgram &program)
      : HostLoweringPattern(program, MatchInterfaceOpTypeTag(),
                            TypeID::get<CommunicationOpInterface>(),
                            /*benefit=*/1, context) {}

  LogicalResult lower(Operation *op, ArrayRef<Value> operands,
                      HostBuilder &host) const override {
    // They post no collective: their own patterns lower them.
    if (isa<AllSliceOp, SendRecvOp>(op))
      return host.rewriter.notifyMatchFailure(op, "not a collective");
    if (program.isInGroup(op))
      return host.rewriter.notifyMatchFailure(op, "lowered with its group");
    return host.lowerAndReplace(op, [&] { return host.lowerCollective(op); });
  }
};

/// all_slice -> the hostir.alias_select of the rank's block.
struct AllSliceLowering : public HostOpLoweringPattern<AllSliceOp> {
  using HostOpLoweringPattern::HostOpLoweringPattern;

  LogicalResult lowerOp(AllSliceOp slice, ArrayRef<Value> operands,
                        HostBuilder &host) const override {
    Location loc = slice.getLoc();
    MeshAttr mesh = getSharding(slice.getInput()).getMesh();
    int64_t axis = slice.getAxis();
    Value position = hostir::TeamIndexOp::create(host.rewriter, loc,
                                                 host.rewriter.getIndexType(),
                                                 host.team(loc, mesh, axis));
    host.rewriter.replaceOp(
        slice, host.chunkOf(loc, operands.front(), position,
                            *getSharding(slice.getResult()).getDimSplitBy(axis),
                            mesh.getAxisSize(axis)));
    return success();
  }
};

/// send_recv -> the sends, receives and copies of each rank's part.
struct SendRecvLowering : public HostOpLoweringPattern<SendRecvOp> {
  using HostOpLoweringPattern::HostOpLoweringPattern;

  LogicalResult lowerOp(SendRecvOp transfer, ArrayRef<Value> operands,
                        HostBuilder &host) const override {
    return host.lowerAndReplace(transfer,
                                [&] { return host.lowerSendRecv(transfer); });
  }
};
} // namespace

void mlir::fuser::populateCommunicationLoweringPatterns(
    RewritePatternSet &patterns, const HostProgram &program) {
  patterns.add<CollectiveLowering, AllSliceLowering, SendRecvLowering>(
      patterns.getContext(), program);
}
