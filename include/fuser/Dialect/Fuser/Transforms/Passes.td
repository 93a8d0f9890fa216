//===- Passes.td - fuser dialect passes --------------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PropagateShardings : Pass<"fuser-propagate-shardings", "func::FuncOp"> {
  let summary = "Give every tensor value of a function a sharding";
  let description = [{
    Contract. Reads: the shardings present when the pass starts (user
    annotations, including the function's argument and result types) and the
    ops' ShardingRuleOpInterface. Writes: a sharding on every tensor value and
    the function type (`propagated` stage). Never changes an annotated value.

    Shardings flow forward (operands to results) and then backward (results
    to operands), repeated until nothing changes. An op's results take
    shardings from its operands in priority order: the operands the op
    prefers (a linear's or matmul's weight), then the most-sharded; each mesh
    axis is taken once per value, so a parallel axis is propagated once. A
    split reduction factor (a matmul's K, a reduced dim) makes the results
    partial. Backward propagation reaches unannotated values from their uses
    (e.g. the residual input of an add, values of creation ops); unannotated
    function arguments receive only a mesh and stream splits, never mesh-axis
    splits, so the caller's data layout is the user's choice. Stream splits
    propagate like mesh splits.

    Through a reshape a split must fall on the outer factor of the reshaped
    dim and divide it; otherwise the pass reports which dim and why. Values
    no sharded value relates to are replicated on the function's mesh.
    Function results take the returned values' shardings; a partial value
    that is not annotated is resolved before it is returned (a `fuser.set`,
    which resharding decomposition turns into communication).
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def DecomposeReshardings : Pass<"fuser-decompose-reshardings", "func::FuncOp"> {
  let summary = "Make every data movement one single-axis communication";
  let description = [{
    Contract. Reads: a `propagated` function and the ops'
    ShardingRuleOpInterface. Writes: fuser.comm ops and operand/result types
    so that no compute op reshards and every placement change is a sequence
    of fuser.comm ops that each change one mesh axis (`decomposed` stage).

    An op reshards when one of its operands is placed differently from what
    its results need. The movement is inserted before the op (operands are
    converted) or after it (the op computes on its operands' placement and
    the result is converted), see `reshard-placement`. A linear with a bias
    whose result is partial becomes a linear without bias, the resolution of
    the partial sum and an add of the bias, so that the bias is added once.
    A reduction over a sharded dim stays a local reduction whose partial
    result is resolved by the communication its consumers need.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
  let options = [
    Option<"reshardPlacement", "reshard-placement", "std::string",
           /*default=*/"\"auto\"",
           "Where to move data for a resharding op: 'before' (convert its "
           "operands), 'after' (convert its result, when its operands agree), "
           "or 'auto' (after for single-input single-output ops, else before)">
  ];
}

def VerifyStage : Pass<"fuser-verify-stage", "func::FuncOp"> {
  let summary = "Check that a function meets the contract of a stage";
  let description = [{
    Reports every violation of the chosen stage's contract as an error:
    `propagated`: every tensor value has a sharding (or none does);
    `decomposed`: also, no compute op reshards (every placement change is a
    fuser.comm op, each of which changes one mesh axis by construction).
  }];
  let options = [
    Option<"stage", "stage", "std::string", /*default=*/"\"decomposed\"",
           "The stage whose contract to check: propagated or decomposed">
  ];
}

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
