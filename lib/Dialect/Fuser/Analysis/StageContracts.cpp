//===- StageContracts.cpp - checkable contracts of pipeline stages --------===//

#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"
#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"

using namespace mlir;
using namespace mlir::fuser;

FailureOr<bool> mlir::fuser::verifyPropagatedStage(func::FuncOp function) {
  SmallVector<Value> tensors;
  for (BlockArgument argument : function.getArguments())
    tensors.push_back(argument);
  function.walk([&](Operation *op) { llvm::append_range(tensors, op->getResults()); });
  llvm::erase_if(tensors, [](Value value) {
    return !isa<RankedTensorType>(value.getType());
  });
  if (llvm::none_of(tensors, [](Value value) { return getSharding(value); }))
    return false;
  bool ok = true;
  for (Value value : tensors) {
    if (getSharding(value))
      continue;
    emitError(value.getLoc())
        << "value has no sharding, but others in the function do (stage "
           "'propagated': all tensor values or none)";
    ok = false;
  }
  if (!ok)
    return failure();
  return true;
}

LogicalResult mlir::fuser::verifyDecomposedStage(func::FuncOp function) {
  bool ok = true;
  function.walk([&](ShardingRuleOpInterface op) {
    std::string why;
    FailureOr<SmallVector<ShardingAttr>> required =
        getRequiredOperandShardings(op, why);
    if (failed(required)) {
      op->emitError("reshards (stage 'decomposed'): ") << why;
      ok = false;
      return;
    }
    for (auto [index, operand, sharding] :
         llvm::enumerate(op->getOperands(), *required)) {
      ShardingAttr actual = getSharding(operand);
      if (!sharding || (actual && actual.hasSamePlacement(sharding)))
        continue;
      InFlightDiagnostic diag = op->emitError("reshards (stage 'decomposed'): operand #")
                                << index << " is placed as ";
      if (actual)
        diag << placementOf(actual);
      else
        diag << "nothing";
      diag << " but the results need " << sharding;
      ok = false;
    }
  });
  return success(ok);
}

bool mlir::fuser::bufferServesCommunication(CommunicationOpInterface comm,
                                      bool resultSide) {
  Value value = resultSide ? comm->getResult(0) : comm->getOperand(0);
  return layoutServesCommunication(comm, resultSide,
                                   Layout::of(getSharding(value)));
}

bool mlir::fuser::layoutServesCommunication(CommunicationOpInterface comm,
                                            bool resultSide,
                                            const Layout &layout) {
  Value value = resultSide ? comm->getResult(0) : comm->getOperand(0);
  ShardingAttr sharding = getSharding(value);
  SmallVector<int64_t> local = sharding.getLocalShape(
      cast<RankedTensorType>(value.getType()).getShape());
  std::optional<int64_t> outerDim = comm.getBlockDim(resultSide);
  if (std::optional<int64_t> stream = comm.getChunkwiseStreamDim();
      stream && servesChunkwiseCommunication(layout, local, *stream,
                                             sharding.getStreamChunks(),
                                             outerDim))
    return true;
  return servesCommunication(layout, local, outerDim);
}

LogicalResult mlir::fuser::verifyLaidOutStage(func::FuncOp function) {
  bool ok = true;
  function.walk([&](CommunicationOpInterface comm) {
    for (StringRef side : {"operand", "result"}) {
      std::optional<int64_t> outerDim = comm.getBlockDim(side == "result");
      if (bufferServesCommunication(comm, side == "result"))
        continue;
      InFlightDiagnostic diag = comm->emitError("the ")
                                << side << " buffer is not laid out for the "
                                   "communication (stage 'laid-out'): it needs "
                                   "to be contiguous";
      if (outerDim)
        diag << " with dim " << *outerDim << " outermost";
      ok = false;
    }
  });
  return success(ok);
}

SegmentRole mlir::fuser::getSegmentRole(Operation *op,
                                        const AliasAnalysis &analysis) {
  if (isa<CommunicationOpInterface>(op) ||
      op->hasTrait<mlir::fuser::OpTrait::LibraryCall>() ||
      op->hasTrait<mlir::fuser::OpTrait::SegmentBoundary>() ||
      !isa<ShardingRuleOpInterface>(op))
    return SegmentRole::Other;
  if (isa<ViewOpInterface>(op) && analysis.getAlias(op->getResult(0)))
    return SegmentRole::View;
  return SegmentRole::Kernel;
}

LogicalResult mlir::fuser::verifySegmentedStage(func::FuncOp function) {
  AliasAnalysis analysis(function);
  bool ok = true;
  function.walk([&](Operation *op) {
    if (getSegmentRole(op, analysis) != SegmentRole::Kernel)
      return;
    op->emitOpError("is in no segment (stage 'segmented'): compute belongs in "
                  "a fuser.kernel");
    ok = false;
  });
  return success(ok);
}
