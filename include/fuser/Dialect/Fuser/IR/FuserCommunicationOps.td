//===- FuserCommunicationOps.td - explicit data movement ---*- tablegen -*-===//
//
// After resharding decomposition every data movement is one of these ops.
// Each changes the placement along exactly one mesh axis; its verifier
// checks that the operand and result shardings differ exactly as the
// communication kind says. Operand and result must both carry shardings.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERCOMMUNICATIONOPS_TD
#define FUSER_DIALECT_FUSER_IR_FUSERCOMMUNICATIONOPS_TD

class Fuser_CommOp<string mnemonic, string opSummary, dag extraArguments,
                   string attrFormat, list<Trait> traits = [Fuser_CommunicationOpInterface]>
    : Fuser_InferredOp<"comm." # mnemonic, "inferSameGlobalType",
                       traits # [Pure]> {
  let summary = opSummary;
  let arguments = !con((ins Fuser_Tensor:$input), extraArguments);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input " # attrFormat #
                       " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Fuser_AllgatherOp : Fuser_CommOp<"allgather",
    "every rank of a mesh-axis team receives all shards",
    (ins I64Attr:$axis), "`axis` `=` $axis",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The operand is split along mesh axis `axis` on some dim; the result is
    the same sharding without that axis (same mesh).
  }];
}

def Fuser_AllSliceOp : Fuser_CommOp<"all_slice",
    "every rank keeps its block of a value replicated along a mesh axis",
    (ins I64Attr:$axis), "`axis` `=` $axis"> {
  let description = [{
    The inverse of allgather, and the one placement change that moves no
    data: the operand does not use mesh axis `axis`; the result is the same
    sharding with one dim additionally split by it (same mesh). Each rank
    keeps the block its index along the axis selects.
  }];
}

def Fuser_AllreduceOp : Fuser_CommOp<"allreduce",
    "resolve a partial value across a mesh axis on every rank",
    (ins I64Attr:$axis), "`axis` `=` $axis"> {
  let description = [{
    The operand is partial over `axis`; the result is the same sharding with
    `axis` no longer partial (same mesh). The reduction kind is the
    operand's partial kind.
  }];
}

def Fuser_ReduceScatterOp : Fuser_CommOp<"reduce_scatter",
    "resolve a partial value and split a dim along the same mesh axis",
    (ins I64Attr:$axis), "`axis` `=` $axis",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The operand is partial over `axis`; the result is no longer partial over
    it and has one dim additionally split by `axis` (same mesh).
  }];
}

def Fuser_ReduceOp : Fuser_CommOp<"reduce",
    "resolve a partial value onto one index of a mesh axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root"> {
  let description = [{
    The operand is partial over `axis`; the result lives on the slice of the
    operand's mesh at index `root` of `axis` and is not partial over it.
  }];
}

def Fuser_BroadcastCommOp : Fuser_CommOp<"broadcast",
    "copy a value from one index of a mesh axis to the whole axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root"> {
  let description = [{
    The operand lives on the slice of the result's mesh at index `root` of
    `axis`; the result has the same dim shardings on the full mesh, and no
    dim is split by `axis`.
  }];
}

def Fuser_GatherOp : Fuser_CommOp<"gather",
    "collect the shards of a mesh axis onto one index of it",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The operand is split along `axis`; the result lives on the slice of the
    operand's mesh at index `root` of `axis`, without that split.
  }];
}

def Fuser_ScatterOp : Fuser_CommOp<"scatter",
    "split a value held at one index of a mesh axis across the axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The operand lives on the slice of the result's mesh at index `root` of
    `axis`; the result is additionally split along `axis` on one dim.
  }];
}

def Fuser_SendRecvOp : Fuser_CommOp<"send_recv",
    "move a value between two meshes by point-to-point transfers",
    (ins), ""> {
  let description = [{
    Operand and result live on two different meshes. On meshes of the same
    shape they have the same dim shardings and partial state, and the
    device at each mesh position of the operand sends its piece to the
    device at the same position of the result's mesh. On meshes of other
    shapes (neither is a slice of the other: a gather onto devices outside
    the operand's mesh, a move to a mesh of another size) any dim shardings
    may differ, neither side is partial, and every device of the result's
    mesh receives each block of its piece from one device of the operand's
    mesh holding it (itself where it does).
  }];
}

def Fuser_AllToAllOp : Fuser_CommOp<"all_to_all",
    "move the split of a mesh axis from one dim to another",
    (ins I64Attr:$axis), "`axis` `=` $axis",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The operand is split by `axis` on one dim, the result on another; all
    other placement is equal (same mesh).
  }];
}

def Fuser_CollectivePermuteOp : Fuser_CommOp<"collective_permute",
    "shift the pieces held along a mesh axis by a fixed offset",
    (ins I64Attr:$axis, I64Attr:$offset), "`axis` `=` $axis `offset` `=` $offset"> {
  let description = [{
    The rank at index `i` of `axis` sends its piece to index
    `(i + offset) mod size(axis)`: a ring step of the stream pipelines.
    Operand and result have the same sharding except for the stream split
    (the piece held at each step differs, the placement does not).
  }];
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERCOMMUNICATIONOPS_TD
