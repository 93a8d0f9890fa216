//===- Resharding.h - detecting placement changes ---------------*- C++ -*-===//
//
// Shared by propagation, decomposition, the alias analysis and the stage
// verifier: what an op's results get from its operands' shardings, and which
// operands are placed differently from what its results need (read through
// the op's ShardingRule only).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_ANALYSIS_RESHARDING_H
#define FUSER_DIALECT_FUSER_ANALYSIS_RESHARDING_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"


namespace mlir::fuser {

/// Whether no operand or result of `op` has a sharding: an op of an
/// unsharded program, which places nothing.
bool isUnsharded(Operation *op);

/// A sharding like `of` but only its placement: mesh, dim axes and partial
/// state, without stream split or layout.
ShardingAttr placementOf(ShardingAttr of);

/// The shardings the operands of `op` must have so that computing the op
/// locally yields its results' shardings. Fails (with `why` set) when a
/// result's sharding cannot come out of the op at all, e.g. a split of a dim
/// the op needs whole. Operands without a tensor type get a null entry;
/// operands bound to a result (ShardingRule::boundResults) get its placement.
FailureOr<SmallVector<ShardingAttr>>
getRequiredOperandShardings(ShardingRuleOpInterface op, std::string &why);

/// The sharding each result of `op` gets from its operands' shardings, the
/// preferred operands first (see ShardingRuleOpInterface), then the most
/// sharded, unless another sharded operand first moves fewer elements to
/// compute the op. Each mesh axis is taken once; a split reduction factor
/// makes the results partial. Null when no operand is sharded.
/// `conflicts` collects operands whose sharding cannot be expressed through
/// the op's factors (a split straddling factors), with the reason.
struct ProjectionConflict {
  unsigned operand;
  int64_t dim;
  std::string reason;
};
FailureOr<SmallVector<ShardingAttr>>
projectOperandShardings(ShardingRuleOpInterface op,
                        SmallVectorImpl<ProjectionConflict> &conflicts,
                        std::string &why);

/// The elements of a ranked tensor value's global type, or
/// ShapedType::kDynamic: the measure propagation and decomposition weigh
/// data movement with.
int64_t getNumElements(Value value);

/// True when every operand of `op` with an entry in `required` (from
/// getRequiredOperandShardings) is placed as that entry says.
bool hasRequiredPlacements(Operation *op, ArrayRef<ShardingAttr> required);

/// True when some tensor operand of `op` is placed differently from what its
/// results need, or the results cannot be computed locally.
bool isResharding(ShardingRuleOpInterface op);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_ANALYSIS_RESHARDING_H
