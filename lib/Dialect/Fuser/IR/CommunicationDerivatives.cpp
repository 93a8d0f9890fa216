//===- CommunicationDerivatives.cpp - derivative rules of data movement ---===//
//
// A placement change (fuser.set, the fuser.comm ops) leaves the global
// value as it is, so its cotangent is the result's, placed back where the
// operand was: a fuser.set that resharding decomposition turns into the
// adjoint communication (an allgather's is a reduce-scatter when the
// cotangent is a pending sum, an all_slice when it is whole, a send_recv's
// the send_recv back). A pending sum's pieces each receive the whole
// cotangent: its cotangent is placed as the operand with the sum resolved.
//
//===----------------------------------------------------------------------===//

#include "DerivativeBuilder.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

LogicalResult placementRule(Operation *op, OpBuilder &builder, Value g,
                            SmallVectorImpl<Value> &operandCotangents) {
  Value input = op->getOperand(0);
  ShardingAttr sharding = getSharding(input);
  if (!sharding) {
    operandCotangents.assign({g});
    return success();
  }
  if (sharding.isPartial() && sharding.getPartialKind() != ReductionKind::Sum)
    return op->emitOpError("has no derivative rule for an operand pending a '")
           << stringifyReductionKind(sharding.getPartialKind())
           << "' reduction (only pending sums are differentiated)";
  RankedTensorType placed =
      getGlobalType(input).cloneWithEncoding(sharding.withPartial({}, ReductionKind::Sum));
  if (g.getType() != placed)
    g = SetOp::create(builder, op->getLoc(), placed, g);
  operandCotangents.assign({g});
  return success();
}

} // namespace

#define FUSER_PLACEMENT_RULE(Op)                                               \
  LogicalResult Op::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,   \
                             SmallVectorImpl<Value> &operandCotangents) {      \
    return placementRule(*this, builder, cotangents[0], operandCotangents);    \
  }

FUSER_PLACEMENT_RULE(SetOp)
FUSER_PLACEMENT_RULE(SegmentSetOp)
FUSER_PLACEMENT_RULE(AllgatherOp)
FUSER_PLACEMENT_RULE(AllSliceOp)
FUSER_PLACEMENT_RULE(AllreduceOp)
FUSER_PLACEMENT_RULE(ReduceScatterOp)
FUSER_PLACEMENT_RULE(ReduceOp)
FUSER_PLACEMENT_RULE(BroadcastCommOp)
FUSER_PLACEMENT_RULE(GatherOp)
FUSER_PLACEMENT_RULE(ScatterOp)
FUSER_PLACEMENT_RULE(SendRecvOp)
FUSER_PLACEMENT_RULE(AllToAllOp)

#undef FUSER_PLACEMENT_RULE
