//===- FuserInterfaces.td - interfaces of fuser ops -------*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_INTERFACES_FUSERINTERFACES_TD
#define FUSER_DIALECT_FUSER_INTERFACES_FUSERINTERFACES_TD

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

def Fuser_ViewOpInterface : OpInterface<"ViewOpInterface"> {
  let cppNamespace = "::mlir::fuser";
  let description = [{
    Ops that only rearrange how the elements of their one tensor operand are
    addressed (set, permute, reshape, squeeze, broadcast, expand, slice):
    their result can be a view of the operand's buffer, without a kernel,
    if its layout is the one inferViewLayout gives. The alias analysis reads
    ops only through this interface.
  }];
  let methods = [
    InterfaceMethod<[{
        The layout the result has as a view of an operand laid out as
        `operandLayout`, or nullopt (with the reason in `whyNot`) when no
        view can express it (e.g. merging dims that are not adjacent and
        contiguous in memory). By default it follows the op's sharding rule:
        shared factors keep their memory order, result-only factors are
        repeated (stride 0) dims.
      }],
      "std::optional<::mlir::fuser::Layout>", "inferViewLayout",
      (ins "const ::mlir::fuser::Layout &":$operandLayout,
           "std::string &":$whyNot), "",
      [{
        return ::mlir::fuser::inferViewLayoutFromFactors($_op, operandLayout,
                                                         whyNot);
      }]>,
  ];
}

def Fuser_CommunicationOpInterface : OpInterface<"CommunicationOpInterface"> {
  let cppNamespace = "::mlir::fuser";
  let description = [{
    The fuser.comm ops: one placement change of one tensor, lowered to one
    communication (or, for all_slice, none). Layout passes read what the
    communication libraries need from their buffers through it.
  }];
  let methods = [
    InterfaceMethod<[{
        The dim of the operand's (`resultSide` false) or the result's buffer
        whose per-rank blocks the communication concatenates or splits:
        allgather and gather concatenate the operand's split dim, scatter
        and reduce_scatter split the result's, all_to_all splits the
        operand along the result's split dim and concatenates the result
        along the operand's. The libraries see buffers as flat arrays, so
        this dim must be outermost. None when the communication only needs
        a contiguous buffer.
      }],
      "std::optional<int64_t>", "getBlockDim", (ins "bool":$resultSide), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The dim along which host lowering runs the communication chunk by
        chunk: operand and result are stream-split alike on a dim whose
        blocks it does not move, so chunk i of the result comes from chunk i
        of the operand. Each chunk's buffer must then serve the library on
        its own.
      }],
      "std::optional<int64_t>", "getChunkwiseStreamDim", (ins), "",
      [{
        auto source = ::mlir::fuser::getSharding($_op->getOperand(0));
        auto result = ::mlir::fuser::getSharding($_op->getResult(0));
        std::optional<int64_t> dim = source ? source.getStreamDim() : std::nullopt;
        if (!dim || !result || result.getStreamDim() != dim ||
            result.getStreamChunks() != source.getStreamChunks() ||
            $_op.getBlockDim(false) == dim || $_op.getBlockDim(true) == dim)
          return std::nullopt;
        return dim;
      }]>,
  ];
}

def Fuser_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::fuser";
  let description = [{
    An op's reverse-mode derivative rule (its vector-Jacobian product): given
    the cotangent of each result, the ops that compute the cotangent of each
    operand. `fuser-generate-vjp` builds backward programs from these rules
    alone; an op that does not implement the interface has no derivative, and
    a gradient that would have to pass through it is reported there.

    Rules build ops whose types carry no sharding, as the ops' own type
    inference does: where the backward's values are placed is sharding
    propagation's choice, made for the whole backward program. A cotangent
    has its value's global shape and element type.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at `builder`'s insertion point, the cotangent of each operand
        from `resultCotangents` (one per result; null where the result's
        cotangent is zero) and sets `operandCotangents` to them, one per
        operand: null for an operand that carries no gradient (a condition,
        an index) or whose cotangent is zero. Fails, with a diagnostic on the
        op, where the derivative does not exist or is not supported.
      }],
      "::llvm::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
  ];
}

// Ops computed by a library call (cuBLASLt, the runtime's CPU fallback), not
// by a generated kernel: each is a segment of its own, and its results are
// row-major (allocation order inference leaves them alone).
def Fuser_LibraryCall : NativeOpTrait<"LibraryCall"> {
  let cppNamespace = "::mlir::fuser::OpTrait";
}

// An explicit segment boundary: segmentation never fuses across it.
def Fuser_SegmentBoundary : NativeOpTrait<"SegmentBoundary"> {
  let cppNamespace = "::mlir::fuser::OpTrait";
}

#endif // FUSER_DIALECT_FUSER_INTERFACES_FUSERINTERFACES_TD
