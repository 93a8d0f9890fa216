//===- SendRecv.cpp - send_recv between meshes of one shape --------------===//
//
// send_recv between meshes of the same shape moves each piece from one mesh
// to the other (ShardTransfers.cpp: other shapes).
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// What one device does in a send_recv: the team indices it sends to and
/// receives from (-1: none), or whether it keeps its piece (the same device
/// at its position of both meshes).
struct TransferRole {
  int64_t sendTo = -1;
  int64_t receiveFrom = -1;
  bool keeps = false;
};
} // namespace

/// The device at each position of the source mesh sends its piece to the
/// device at the same position of the result's mesh, on the team of all
/// devices of both meshes. Each rank looks its role up by its rank; a rank
/// that both sends and receives posts the two together, so exchanges
/// between overlapping meshes cannot deadlock.
LogicalResult HostBuilder::lowerSendRecv(SendRecvOp transfer) {
  if (getSharding(transfer.getInput()).getMesh().getShape() !=
      getSharding(transfer.getResult()).getMesh().getShape())
    return lowerShardTransfers(transfer);
  Location loc = transfer.getLoc();
  Value input = bufferOf(transfer.getInput());
  Value output = allocate(loc, transfer.getResult());
  map(transfer.getResult(), output);
  SmallVector<int64_t> from =
      getSharding(transfer.getInput()).getMesh().getDeviceIds();
  SmallVector<int64_t> to =
      getSharding(transfer.getResult()).getMesh().getDeviceIds();
  SmallVector<int64_t> devices = transfer.getDevicesOfBothMeshes();
  auto teamIndex = [&](int64_t device) {
    return static_cast<int64_t>(llvm::lower_bound(devices, device) -
                                devices.begin());
  };
  DenseMap<int64_t, TransferRole> roles;
  for (auto [source, target] : llvm::zip_equal(from, to)) {
    if (source == target) {
      roles[source].keeps = true;
      continue;
    }
    roles[source].sendTo = teamIndex(target);
    roles[target].receiveFrom = teamIndex(source);
  }

  // The executing rank's role.
  Type indexType = rewriter.getIndexType();
  auto lookup = scf::IndexSwitchOp::create(
      rewriter, loc, TypeRange{indexType, indexType, rewriter.getI1Type()},
      getRank(), devices, devices.size());
  auto yieldRole = [&](Region &region, TransferRole role) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.createBlock(&region);
    scf::YieldOp::create(
        rewriter, loc,
        ValueRange{index(loc, role.sendTo), index(loc, role.receiveFrom),
                   arith::ConstantIntOp::create(rewriter, loc, role.keeps, 1)});
  };
  for (auto [device, region] : llvm::zip(devices, lookup.getCaseRegions()))
    yieldRole(region, roles.lookup(device));
  yieldRole(lookup.getDefaultRegion(), TransferRole());
  Value sendTo = lookup.getResult(0), receiveFrom = lookup.getResult(1);
  Value none = index(loc, -1);
  Value sends = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                      sendTo, none);
  Value receives = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ne, receiveFrom, none);

  auto keep = scf::IfOp::create(rewriter, loc, lookup.getResult(2),
                                /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(keep.thenBlock()->getTerminator());
    hostir::CopyOp::create(rewriter, loc, input, output);
  }
  Value team = teamOfDevices(loc, devices);
  auto workType = hostir::WorkType::get(rewriter.getContext());
  auto send = [&] {
    return hostir::SendOp::create(rewriter, loc, workType, input, sendTo, team,
                                  program.getLibraryBackend());
  };
  auto receive = [&] {
    return hostir::RecvOp::create(rewriter, loc, workType, output, receiveFrom,
                                  team, program.getLibraryBackend());
  };
  auto inside = [&](Block *block, auto emit) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(block->getTerminator());
    emit();
  };
  auto sending = scf::IfOp::create(rewriter, loc, sends,
                                   /*withElseRegion=*/true);
  inside(sending.thenBlock(), [&] {
    auto exchanging = scf::IfOp::create(rewriter, loc, receives,
                                        /*withElseRegion=*/true);
    inside(exchanging.thenBlock(), [&] {
      auto group = hostir::CoalesceOp::create(rewriter, loc, workType);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.createBlock(&group.getBody());
        send();
        receive();
      }
      hostir::WaitOp::create(rewriter, loc, group);
    });
    inside(exchanging.elseBlock(),
           [&] { hostir::WaitOp::create(rewriter, loc, send()); });
  });
  inside(sending.elseBlock(), [&] {
    auto receiving = scf::IfOp::create(rewriter, loc, receives,
                                       /*withElseRegion=*/false);
    inside(receiving.thenBlock(),
           [&] { hostir::WaitOp::create(rewriter, loc, receive()); });
  });
  return success();
}
