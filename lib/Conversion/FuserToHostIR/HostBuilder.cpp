//===- HostBuilder.cpp - buffers, teams and mesh guards ------------------===//

#include "FuserToHostIRPatterns.h"

using namespace mlir;
using namespace mlir::fuser;

Value HostBuilder::bufferOf(Value tensor) {
  if (Value own = buffers.lookupOrNull(tensor))
    return own;
  return rewriter.getRemappedValue(tensor);
}

void HostBuilder::replace(Operation *op) {
  assert(hasBuffers(op) && "replacing an op whose results have no buffer");
  rewriter.replaceOp(op, llvm::map_to_vector(op->getResults(), [&](Value v) {
                       return buffers.lookup(v);
                     }));
}

LogicalResult
HostBuilder::onExecutingMeshOnly(Operation *op,
                                 function_ref<LogicalResult()> emit) {
  MeshAttr mesh = program.getExecutingMesh(op);
  if (!mesh || !program.hasDevicesOutside(mesh))
    return emit();
  Location loc = op->getLoc();
  Value member = hostir::InMeshOp::create(rewriter, loc, rewriter.getI1Type(),
                                          getRank(), mesh);
  auto guard = scf::IfOp::create(rewriter, loc, member,
                                 /*withElseRegion=*/false);
  LogicalResult emitted = success();
  {
    OpBuilder::InsertionGuard inside(rewriter);
    rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
    emitted = emit();
  }
  for (Operation &allocation :
       llvm::make_early_inc_range(guard.thenBlock()->without_terminator()))
    if (isa<hostir::AllocateOp>(allocation))
      rewriter.moveOpBefore(&allocation, guard);
  return emitted;
}

Value HostBuilder::team(Location loc, MeshAttr mesh, int64_t axis) {
  auto type =
      hostir::TeamType::get(rewriter.getContext(), mesh.getAxisSize(axis));
  return hostir::TeamOp::create(rewriter, loc, type, getRank(), mesh,
                                ArrayRef<int64_t>{axis});
}

Value HostBuilder::teamOfDevices(Location loc, ArrayRef<int64_t> devices) {
  auto all = MeshAttr::getOfDevices(
      rewriter.getContext(), {static_cast<int64_t>(devices.size())}, devices);
  return hostir::TeamOp::create(
      rewriter, loc,
      hostir::TeamType::get(rewriter.getContext(), devices.size()), getRank(),
      all, ArrayRef<int64_t>{0});
}
