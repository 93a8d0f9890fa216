//===- ArithMathShardingRules.cpp - elementwise arith and math ops --------===//
//
// An elementwise op on ranked tensors shares every dim among its operands
// and results, like fuser's pointwise ops. Its verifier requires the
// operands' encodings to equal the result's (equal types, or an i1 result
// of the same shape), so every operand is bound to the result's sharding.
// On scalars and vectors the rule has no factors: there is nothing to shard.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/ExternalModels/UpstreamShardingRules.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {
template <typename OpT>
struct ElementwiseShardingRule : public ShardingRuleOpInterface::ExternalModel<
                                     ElementwiseShardingRule<OpT>, OpT> {
  ShardingRule getShardingRule(Operation *op) const {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    ShardingRule rule =
        ShardingRule::pointwise(type ? type.getShape() : ArrayRef<int64_t>(),
                                op->getNumOperands(), op->getNumResults());
    if (type)
      rule.boundResults.assign(op->getNumOperands(), 0u);
    return rule;
  }
};
} // namespace

/// Attaches the rule to those of `OpTs` that are elementwise.
template <typename... OpTs>
static void attachToElementwiseOps(MLIRContext *context) {
  (
      [&] {
        if constexpr (OpTs::template hasTrait<::mlir::OpTrait::Elementwise>())
          OpTs::template attachInterface<ElementwiseShardingRule<OpTs>>(
              *context);
      }(),
      ...);
}

void mlir::fuser::registerArithMathShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachToElementwiseOps<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachToElementwiseOps<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(context);
  });
}
