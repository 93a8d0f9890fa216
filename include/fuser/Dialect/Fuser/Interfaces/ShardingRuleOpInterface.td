//===- ShardingRuleOpInterface.td - factor sharding rules --*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_INTERFACES_SHARDINGRULEOPINTERFACE_TD
#define FUSER_DIALECT_FUSER_INTERFACES_SHARDINGRULEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def Fuser_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::mlir::fuser";
  let description = [{
    States how an op's operand dims map to its result dims as factors
    (see ShardingRule.h). The sharding passes read ops only through this
    interface: an op that implements it can be propagated through and
    checked for resharding; one that does not is opaque to them.
  }];
  let methods = [
    InterfaceMethod<[{
        The op's factors and which dims they make up. By default every
        operand and result dim is the same factor as the same dim of result
        0 (pointwise ops, copies, and creation ops, which have no operands).
      }],
      "::mlir::fuser::ShardingRule", "getShardingRule", (ins), "",
      [{
        return ::mlir::fuser::ShardingRule::pointwise(
            ::llvm::cast<::mlir::ShapedType>($_op->getResult(0).getType())
                .getShape(),
            $_op->getNumOperands(), $_op->getNumResults());
      }]>,
    InterfaceMethod<[{
        Operands whose sharding the op prefers to keep, most preferred first
        (e.g. a linear's weight, so that weights are never redistributed).
        Operands not listed follow, most-sharded first.
      }],
      "::llvm::SmallVector<unsigned>", "getPreferredOperands", (ins), "",
      [{ return {}; }]>,
  ];
}

#endif // FUSER_DIALECT_FUSER_INTERFACES_SHARDINGRULEOPINTERFACE_TD
