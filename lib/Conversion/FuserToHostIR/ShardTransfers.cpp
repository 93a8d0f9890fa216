//===- ShardTransfers.cpp - send_recv between meshes of other shapes -----===//
//
// Between meshes of different shapes (neither a slice of the other), a
// send_recv moves blocks of shards: fuser::planTransfers lists the blocks of
// every piece of the result and the device of the operand's mesh each comes
// from. Every rank looks its own part up by its rank (scf.index_switch):
// copies of blocks it holds itself, then its sends and receives, posted as
// one group on the team of all devices of both meshes, so that no order of
// ranks can deadlock. A block that is not one contiguous piece of its buffer
// goes through a staging buffer of its own.
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

#include "fuser/Support/MeshMath.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <map>

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// The transfers one device takes part in.
struct DeviceTransfers {
  SmallVector<const ::fuser::Transfer *> copies, sends, receives;
};
} // namespace

/// The view of `buffer`, the piece of a value that starts at global
/// `pieceOffsets`, holding the block of a transfer.
static Value blockOf(OpBuilder &builder, Location loc, Value buffer,
                     const ::fuser::Shape &pieceOffsets,
                     const ::fuser::Transfer &transfer) {
  SmallVector<int64_t> offsets;
  for (auto [global, piece] : llvm::zip_equal(transfer.offsets, pieceOffsets))
    offsets.push_back(global - piece);
  SmallVector<int64_t> strides(offsets.size(), 1);
  return memref::SubViewOp::create(
      builder, loc, buffer, offsets,
      SmallVector<int64_t>(transfer.sizes.begin(), transfer.sizes.end()),
      strides);
}

LogicalResult HostBuilder::lowerShardTransfers(SendRecvOp transfer) {
  Location loc = transfer.getLoc();
  auto type = cast<RankedTensorType>(transfer.getInput().getType());
  if (!type.hasStaticShape())
    return transfer.emitError("moving a value of dynamic shape between meshes "
                              "of different shapes is not implemented yet");
  ShardingAttr from = getSharding(transfer.getInput());
  ShardingAttr to = getSharding(transfer.getResult());
  ::fuser::Mesh fromMesh = from.getMesh().toMesh();
  ::fuser::Mesh toMesh = to.getMesh().toMesh();
  ::fuser::DimAxes fromAxes = from.toDimAxes(), toAxes = to.toDimAxes();
  ::fuser::Shape shape(type.getShape().begin(), type.getShape().end());
  std::vector<::fuser::Transfer> transfers =
      ::fuser::planTransfers(shape, fromMesh, fromAxes, toMesh, toAxes);

  Value input = bufferOf(transfer.getInput());
  Value output = allocate(loc, transfer.getResult());
  map(transfer.getResult(), output);

  std::map<int64_t, DeviceTransfers> byDevice;
  for (const ::fuser::Transfer &block : transfers) {
    if (block.source == block.target) {
      byDevice[block.source].copies.push_back(&block);
      continue;
    }
    byDevice[block.source].sends.push_back(&block);
    byDevice[block.target].receives.push_back(&block);
  }
  SmallVector<int64_t> devices = transfer.getDevicesOfBothMeshes();
  Value team = teamOfDevices(loc, devices);
  auto teamIndex = [&](int64_t device) {
    return index(loc, llvm::lower_bound(devices, device) - devices.begin());
  };

  SmallVector<int64_t> cases =
      llvm::to_vector(llvm::make_first_range(byDevice));
  auto lookup = scf::IndexSwitchOp::create(rewriter, loc, TypeRange(),
                                           getRank(), cases, cases.size());
  OpBuilder::InsertionGuard guard(rewriter);
  for (auto [device, region] : llvm::zip(cases, lookup.getCaseRegions())) {
    rewriter.createBlock(&region);
    const DeviceTransfers &own = byDevice[device];
    auto sourceOffsets = [&] {
      return *::fuser::shardOffsetOn(shape, fromAxes, fromMesh, device);
    };
    auto targetOffsets = [&] {
      return *::fuser::shardOffsetOn(shape, toAxes, toMesh, device);
    };
    for (const ::fuser::Transfer *block : own.copies)
      hostir::CopyOp::create(
          rewriter, loc, blockOf(rewriter, loc, input, sourceOffsets(), *block),
          blockOf(rewriter, loc, output, targetOffsets(), *block));
    // Blocks with gaps are packed before they are sent and unpacked after
    // they are received.
    auto staging = [&](Value view) {
      auto viewType = cast<MemRefType>(view.getType());
      if (hostir::isDense(viewType))
        return view;
      return allocate(
          loc, MemRefType::get(viewType.getShape(), viewType.getElementType()));
    };
    SmallVector<std::pair<Value, Value>> sent, received;
    SmallVector<std::pair<Value, Value>> unpacked;
    for (const ::fuser::Transfer *block : own.sends) {
      Value view = blockOf(rewriter, loc, input, sourceOffsets(), *block);
      Value buffer = staging(view);
      if (buffer != view)
        hostir::CopyOp::create(rewriter, loc, view, buffer);
      sent.push_back({buffer, teamIndex(block->target)});
    }
    for (const ::fuser::Transfer *block : own.receives) {
      Value view = blockOf(rewriter, loc, output, targetOffsets(), *block);
      Value buffer = staging(view);
      if (buffer != view)
        unpacked.push_back({buffer, view});
      received.push_back({buffer, teamIndex(block->source)});
    }
    if (!sent.empty() || !received.empty()) {
      auto workType = hostir::WorkType::get(rewriter.getContext());
      auto group = hostir::CoalesceOp::create(rewriter, loc, workType);
      {
        OpBuilder::InsertionGuard inside(rewriter);
        rewriter.createBlock(&group.getBody());
        for (auto [buffer, peer] : sent)
          hostir::SendOp::create(rewriter, loc, workType, buffer, peer, team,
                                 program.getLibraryBackend());
        for (auto [buffer, peer] : received)
          hostir::RecvOp::create(rewriter, loc, workType, buffer, peer, team,
                                 program.getLibraryBackend());
      }
      hostir::WaitOp::create(rewriter, loc, group);
    }
    for (auto [buffer, view] : unpacked)
      hostir::CopyOp::create(rewriter, loc, buffer, view);
    scf::YieldOp::create(rewriter, loc);
  }
  rewriter.createBlock(&lookup.getDefaultRegion());
  scf::YieldOp::create(rewriter, loc);
  return success();
}
