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
                       traits # [Pure, Fuser_Differentiable]> {
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
    Every rank receives the whole of the dim that mesh axis `axis` splits: the
    ranks whose mesh coordinates differ only along `axis` (the team along
    `axis`, `hostir.team`) exchange their shards, concatenated in team order.
    Operand and result carry shardings (the verifier requires both) on the same
    mesh, and `axis` is one of its axes. The operand splits some dim along
    `axis`; the result has the operand's sharding without that axis (other
    splits, and any partial state over other axes, are unchanged).

    Host lowering posts a `hostir.allgather` on the team into a fresh buffer and
    waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.comm.allgather %x axis = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
    ```
  }];
}

def Fuser_AllSliceOp : Fuser_CommOp<"all_slice",
    "every rank keeps its block of a value replicated along a mesh axis",
    (ins I64Attr:$axis), "`axis` `=` $axis"> {
  let description = [{
    The inverse of allgather, and the one placement change that moves no data:
    each rank keeps the block of a dim that its index along mesh axis `axis`
    selects. Operand and result carry shardings (the verifier requires both) on
    the same mesh, and `axis` is one of its axes. The operand does not use
    `axis` (no dim is split by it and it is not partial over it); the result has
    the operand's sharding with one dim additionally split by `axis`.

    Host lowering communicates nothing: the result's buffer is a view of the
    operand's, the block at the rank's index in the team along `axis`.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.comm.all_slice %x axis = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
    ```
  }];
}

def Fuser_AllreduceOp : Fuser_CommOp<"allreduce",
    "resolve a partial value across a mesh axis on every rank",
    (ins I64Attr:$axis), "`axis` `=` $axis"> {
  let description = [{
    Resolves a value that is partial over mesh axis `axis`: the ranks whose mesh
    coordinates differ only along `axis` (the team along `axis`, `hostir.team`)
    combine their partial values with the operand's partial kind (`sum`, `max`,
    `min`, `avg`, `prod`), and every one of them receives the result. Operand
    and result carry shardings (the verifier requires both) on the same mesh,
    and `axis` is one of its axes. The operand is partial over `axis`; the
    result has its sharding with `axis` no longer partial.

    Host lowering posts a `hostir.allreduce` on the team (through NCCL where the
    program communicates through CUDA IPC, which cannot reduce) and waits for
    it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.comm.allreduce %x axis = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
    ```
  }];
}

def Fuser_ReduceScatterOp : Fuser_CommOp<"reduce_scatter",
    "resolve a partial value and split a dim along the same mesh axis",
    (ins I64Attr:$axis), "`axis` `=` $axis",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    Resolves a value that is partial over mesh axis `axis` and splits one of its
    dims along the same axis: the ranks whose mesh coordinates differ only along
    `axis` (the team along `axis`, `hostir.team`) combine their partial values
    with the operand's partial kind, and each receives only its block of the
    result. Operand and result carry shardings (the verifier requires both) on
    the same mesh, and `axis` is one of its axes. The operand is partial over
    `axis`; the result is not partial over it and has one dim additionally split
    by `axis`.

    Host lowering posts a `hostir.reduce_scatter` on the team (through NCCL
    where the program communicates through CUDA IPC) and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.comm.reduce_scatter %x axis = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
    ```
  }];
}

def Fuser_ReduceOp : Fuser_CommOp<"reduce",
    "resolve a partial value onto one index of a mesh axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root"> {
  let description = [{
    Resolves a value that is partial over mesh axis `axis` onto one index of
    that axis: the ranks whose mesh coordinates differ only along `axis` (the
    team along `axis`, `hostir.team`) combine their partial values with the
    operand's partial kind, and only the member at index `root` receives the
    result. The operand is partial over `axis`. `root` is an index along `axis`
    (below its size); the rooted side lives on the slice of the full mesh at
    index `root` of `axis` (the mesh of those devices alone). The result lives
    there, with the operand's sharding no longer partial over `axis`.

    Host lowering posts a `hostir.reduce` on the team (through NCCL where the
    program communicates through CUDA IPC) and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    #root0 = #fuser.mesh<[1]>
    %y = fuser.comm.reduce %x axis = 0 root = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : max}>>
        -> tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>
    ```
  }];
}

def Fuser_BroadcastCommOp : Fuser_CommOp<"broadcast",
    "copy a value from one index of a mesh axis to the whole axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root"> {
  let description = [{
    Copies a value held at index `root` of mesh axis `axis` to every index of
    that axis: in each team along `axis`, the member at `root` sends its piece
    to all the others. The result lives on the full mesh and does not use `axis`
    (no dim split by it, not partial over it). `root` is an index along `axis`
    (below its size); the rooted side lives on the slice of the full mesh at
    index `root` of `axis` (the mesh of those devices alone). The operand lives
    there, with the result's dim shardings.

    Host lowering posts a `hostir.broadcast` on the team and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    #root1 = #fuser.mesh<[1], devices = [1]>
    %y = fuser.comm.broadcast %x axis = 0 root = 1
        : tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
    ```
  }];
}

def Fuser_GatherOp : Fuser_CommOp<"gather",
    "collect the shards of a mesh axis onto one index of it",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    Collects the shards of the dim that mesh axis `axis` splits onto one index
    of it: in each team along `axis`, the member at `root` receives every
    member's shard, concatenated in team order. The operand splits a dim along
    `axis`. `root` is an index along `axis` (below its size); the rooted side
    lives on the slice of the full mesh at index `root` of `axis` (the mesh of
    those devices alone). The result lives there, with the operand's sharding
    without the split along `axis`.

    Host lowering posts a `hostir.gather` on the team and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    #root1 = #fuser.mesh<[1], devices = [1]>
    %y = fuser.comm.gather %x axis = 0 root = 1
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
    ```
  }];
}

def Fuser_ScatterOp : Fuser_CommOp<"scatter",
    "split a value held at one index of a mesh axis across the axis",
    (ins I64Attr:$axis, I64Attr:$root), "`axis` `=` $axis `root` `=` $root",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    The inverse of gather: in each team along `axis`, the member at `root` sends
    every member its block of one dim, which the result splits along `axis`.
    `root` is an index along `axis` (below its size); the rooted side lives on
    the slice of the full mesh at index `root` of `axis` (the mesh of those
    devices alone). The operand lives there, with the result's sharding without
    the split along `axis`.

    Host lowering posts a `hostir.scatter` on the team and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    #root0 = #fuser.mesh<[1]>
    %y = fuser.comm.scatter %x axis = 0 root = 0
        : tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
    ```
  }];
}

def Fuser_SendRecvOp : Fuser_CommOp<"send_recv",
    "move a value between two meshes by point-to-point transfers",
    (ins), ""> {
  let description = [{
    Moves a value between two different meshes by point-to-point transfers (the
    verifier refuses a move within one mesh).

    * On meshes of the same shape, operand and result have the same dim
      shardings and partial state, and the device at each position of the
      operand's mesh sends its piece to the device at the same position of the
      result's mesh; a device at the same position of both keeps its piece. Host
      lowering posts these transfers on the team of all devices of both meshes,
      with each rank's send and receive posted together (`hostir.coalesce`), so
      that exchanges between overlapping meshes cannot deadlock.
    * On meshes of other shapes (neither is a slice of the other: a gather onto
      devices outside the operand's mesh, a move to a mesh of another size) any
      dim shardings may differ, but neither side may be partial (a partial value
      has no blocks to take apart). Every device of the result's mesh receives
      each block of its piece from one device of the operand's mesh that holds
      it (itself where it does).

    ```mlir
    #mesh = #fuser.mesh<[2]>
    #other = #fuser.mesh<[2], devices = [2, 3]>
    %y = fuser.comm.send_recv %x
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#other, [[0], []]>>
    ```
  }];
  let extraClassDeclaration = [{
    /// The devices of both meshes, ascending and each once: the team the
    /// transfers are posted on.
    ::llvm::SmallVector<int64_t> getDevicesOfBothMeshes();
  }];
}

def Fuser_AllToAllOp : Fuser_CommOp<"all_to_all",
    "move the split of a mesh axis from one dim to another",
    (ins I64Attr:$axis), "`axis` `=` $axis",
    [DeclareOpInterfaceMethods<Fuser_CommunicationOpInterface, ["getBlockDim"]>]> {
  let description = [{
    Moves the split of mesh axis `axis` from one dim to another: in each team
    along `axis`, member `i` sends block `j` of the dim the result splits to
    member `j`, and receives member `j`'s block as block `j` of the dim the
    operand splits. Operand and result carry shardings (the verifier requires
    both) on the same mesh, and `axis` is one of its axes. The operand splits
    one dim along `axis`, the result another one; all other placement is equal.

    Host lowering views both buffers with their blocks outermost, packs them
    into contiguous staging buffers where the views have gaps, posts a
    `hostir.all_to_all` on the team and waits for it.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.comm.all_to_all %x axis = 0
        : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
        -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
    ```
  }];
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERCOMMUNICATIONOPS_TD
