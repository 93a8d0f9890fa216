//===- MeshGuards.cpp - host programs over values on several meshes ------===//
//
// Every rank runs the same host program. When a function's values live on
// several meshes, an op runs only on the devices of its mesh: kernel
// launches, library calls and communications are guarded by
// hostir.in_mesh. Buffers are allocated by every rank (outside the guard),
// so ranks outside a mesh hold placeholders that nothing touches and views
// stay unguarded. send_recv between meshes of the same shape moves each
// piece from one mesh to the other (ShardTransfers.cpp: other shapes).
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser;

void HostLowering::collectProgramDevices() {
  auto add = [&](Value value) {
    if (ShardingAttr sharding = getSharding(value))
      llvm::append_range(programDevices, sharding.getMesh().getDeviceIds());
  };
  for (Value argument : function.getArguments())
    add(argument);
  function.walk([&](Operation *op) {
    for (Value result : op->getResults())
      add(result);
  });
  llvm::sort(programDevices);
  programDevices.erase(llvm::unique(programDevices), programDevices.end());
}

MeshAttr HostLowering::getExecutingMesh(Operation *op) {
  if (isa<ViewOpInterface, SendRecvOp, AllSliceOp>(op) ||
      op->getNumResults() == 0)
    return {};
  // Broadcast and scatter start on a slice: their team is on the full mesh.
  Value value = isa<CommunicationOpInterface>(op) &&
                        !isa<BroadcastCommOp, ScatterOp>(op)
                    ? op->getOperand(0)
                    : op->getResult(0);
  ShardingAttr sharding = getSharding(value);
  return sharding ? sharding.getMesh() : MeshAttr();
}

LogicalResult HostLowering::onMeshOnly(Location loc, MeshAttr mesh,
                                       function_ref<LogicalResult()> emit) {
  if (!mesh)
    return emit();
  SmallVector<int64_t> devices = mesh.getDeviceIds();
  llvm::sort(devices);
  if (devices == programDevices)
    return emit();
  Value member = hostir::InMeshOp::create(builder, loc, builder.getI1Type(),
                                          getRank(loc), mesh);
  auto guard = scf::IfOp::create(builder, loc, member,
                                 /*withElseRegion=*/false);
  LogicalResult emitted = success();
  {
    OpBuilder::InsertionGuard inside(builder);
    builder.setInsertionPoint(guard.thenBlock()->getTerminator());
    emitted = emit();
  }
  for (Operation &op :
       llvm::make_early_inc_range(guard.thenBlock()->without_terminator()))
    if (isa<hostir::AllocateOp>(op))
      op.moveBefore(guard);
  return emitted;
}

Value HostLowering::teamOfDevices(Location loc, ArrayRef<int64_t> devices) {
  auto all = MeshAttr::getOfDevices(
      builder.getContext(), {static_cast<int64_t>(devices.size())}, devices);
  return hostir::TeamOp::create(
      builder, loc, hostir::TeamType::get(builder.getContext(), devices.size()),
      getRank(loc), all, ArrayRef<int64_t>{0});
}

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
LogicalResult HostLowering::lowerSendRecv(SendRecvOp transfer) {
  if (getSharding(transfer.getInput()).getMesh().getShape() !=
      getSharding(transfer.getResult()).getMesh().getShape())
    return lowerShardTransfers(transfer);
  Location loc = transfer.getLoc();
  Value input = bufferOf(transfer.getInput());
  Value output = allocate(loc, transfer.getResult());
  buffers.map(transfer.getResult(), output);
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
  Type indexType = builder.getIndexType();
  auto lookup = scf::IndexSwitchOp::create(
      builder, loc, TypeRange{indexType, indexType, builder.getI1Type()},
      getRank(loc), devices, devices.size());
  auto yieldRole = [&](Region &region, TransferRole role) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&region.emplaceBlock());
    scf::YieldOp::create(
        builder, loc,
        ValueRange{index(loc, role.sendTo), index(loc, role.receiveFrom),
                   arith::ConstantIntOp::create(builder, loc, role.keeps, 1)});
  };
  for (auto [device, region] : llvm::zip(devices, lookup.getCaseRegions()))
    yieldRole(region, roles.lookup(device));
  yieldRole(lookup.getDefaultRegion(), TransferRole());
  Value sendTo = lookup.getResult(0), receiveFrom = lookup.getResult(1);
  Value none = index(loc, -1);
  Value sends = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne,
                                      sendTo, none);
  Value receives = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ne, receiveFrom, none);

  auto keep = scf::IfOp::create(builder, loc, lookup.getResult(2),
                                /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(keep.thenBlock()->getTerminator());
    hostir::CopyOp::create(builder, loc, input, output);
  }
  Value team = teamOfDevices(loc, devices);
  auto workType = hostir::WorkType::get(builder.getContext());
  auto send = [&] {
    return hostir::SendOp::create(builder, loc, workType, input, sendTo, team,
                                  getLibraryBackend());
  };
  auto receive = [&] {
    return hostir::RecvOp::create(builder, loc, workType, output, receiveFrom,
                                  team, getLibraryBackend());
  };
  auto inside = [&](Block *block, auto emit) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(block->getTerminator());
    emit();
  };
  auto sending = scf::IfOp::create(builder, loc, sends,
                                   /*withElseRegion=*/true);
  inside(sending.thenBlock(), [&] {
    auto exchanging = scf::IfOp::create(builder, loc, receives,
                                        /*withElseRegion=*/true);
    inside(exchanging.thenBlock(), [&] {
      auto group = hostir::CoalesceOp::create(builder, loc, workType);
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(&group.getBody().emplaceBlock());
        send();
        receive();
      }
      hostir::WaitOp::create(builder, loc, group);
    });
    inside(exchanging.elseBlock(),
           [&] { hostir::WaitOp::create(builder, loc, send()); });
  });
  inside(sending.elseBlock(), [&] {
    auto receiving = scf::IfOp::create(builder, loc, receives,
                                       /*withElseRegion=*/false);
    inside(receiving.thenBlock(),
           [&] { hostir::WaitOp::create(builder, loc, receive()); });
  });
  return success();
}
