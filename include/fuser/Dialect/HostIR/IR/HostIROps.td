//===- HostIROps.td - hostir operations --------------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_HOSTIR_IR_HOSTIROPS_TD
#define FUSER_DIALECT_HOSTIR_IR_HOSTIROPS_TD

include "fuser/Dialect/HostIR/IR/HostIRBase.td"
include "fuser/Dialect/Fuser/IR/FuserAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

class HostIR_Op<string mnemonic, list<Trait> traits = []>
    : Op<HostIR_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Ranks and teams
//===----------------------------------------------------------------------===//

def HostIR_RankOp : HostIR_Op<"rank", [Pure]> {
  let summary = "rank of the executing process";
  let results = (outs Index:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def HostIR_TeamOp : HostIR_Op<"team", [Pure]> {
  let summary = "the ranks of a mesh slice along some axes containing a rank";
  let description = [{
    The team a communication along `axes` of `mesh` runs on for the given
    rank: all devices whose mesh coordinates equal the rank's outside
    `axes`, ordered row-major over `axes` in the order given. For mesh
    `[2, 4]` and rank 5, axes `[1]` is ranks 4..7 and axes `[0]` is 1, 5.
    A rank outside the mesh belongs to no such team: its team index is 0
    and it must not communicate on it (host lowering guards communications
    with hostir.in_mesh).
  }];
  let arguments = (ins Index:$rank, Fuser_MeshAttr:$mesh,
                       DenseI64ArrayAttr:$axes);
  let results = (outs HostIR_TeamType:$team);
  let assemblyFormat = [{
    $rank `mesh` `=` qualified($mesh) `axes` `=` $axes attr-dict `:` qualified(type($team))
  }];
  let hasVerifier = 1;
}

def HostIR_InMeshOp : HostIR_Op<"in_mesh", [Pure]> {
  let summary = "whether a rank is one of a mesh's devices";
  let description = [{
    Ops on values of a mesh run only on its devices: host programs of
    functions whose values live on several meshes guard them with this.
  }];
  let arguments = (ins Index:$rank, Fuser_MeshAttr:$mesh);
  let results = (outs I1:$member);
  let assemblyFormat = "$rank `mesh` `=` qualified($mesh) attr-dict";
}

def HostIR_TeamIndexOp : HostIR_Op<"team_index", [Pure]> {
  let summary = "position of the executing rank in a team";
  let arguments = (ins HostIR_TeamType:$team);
  let results = (outs Index:$index);
  let assemblyFormat = "$team attr-dict `:` qualified(type($team))";
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

def HostIR_GetCurrentStreamOp : HostIR_Op<"get_current_stream"> {
  let summary = "the stream work is currently issued on";
  let results = (outs HostIR_StreamType:$stream);
  let assemblyFormat = "attr-dict";
}

def HostIR_SetCurrentStreamOp : HostIR_Op<"set_current_stream"> {
  let summary = "issue subsequent work on `stream`";
  let arguments = (ins HostIR_StreamType:$stream);
  let assemblyFormat = "$stream attr-dict";
}

def HostIR_StreamFromPoolOp : HostIR_Op<"stream_from_pool"> {
  let summary = "the pool stream with a given index, created on first use";
  let arguments = (ins Index:$index);
  let results = (outs HostIR_StreamType:$stream);
  let assemblyFormat = "$index attr-dict";
}

def HostIR_SynchronizeStreamOp : HostIR_Op<"synchronize_stream"> {
  let summary = "make the current stream wait for work issued on `stream`";
  let description = [{
    Records an event on `stream` and makes the current stream wait on it;
    the host does not block.
  }];
  let arguments = (ins HostIR_StreamType:$stream);
  let assemblyFormat = "$stream attr-dict";
}

//===----------------------------------------------------------------------===//
// Compute: kernel launches and library calls
//===----------------------------------------------------------------------===//

def HostIR_LaunchOp : HostIR_Op<"launch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>,
     AttrSizedOperandSegments]> {
  let summary = "launch a kernel of a kernel module";
  let description = [{
    Launches the function `kernel` (a nested symbol such as
    `@kernels::@fused_0`, a `gpu.func` or `func.func`) with a grid of
    `blocks` and `threads` per block, on `stream` or the current stream.
    The arguments must match the kernel's signature, except for a
    `gpu.func` kernel's memrefs: a GPU kernel receives each memref as one
    pointer to its first element (the descriptor's aligned pointer advanced
    by its offset), indices as i64 and other scalars as themselves, so its
    memref parameters have static sizes and strides and offset 0, and take
    arguments of the same shape, element type and strides at any offset
    (`memref<4x16xf32>` takes `memref<4x16xf32, strided<[16, 1], offset: ?>>`).
    An argument whose strides are known only at run time is taken by a
    one-element parameter (`memref<1xf32>`), from which the kernel rebuilds
    the view with the strides it takes as index arguments.
    Once the kernel module is compiled to a `gpu.binary`, its kernels'
    signatures are no longer visible and the launch is taken as it is.
  }];
  let arguments = (ins SymbolRefAttr:$kernel,
      Index:$gridX, Index:$gridY, Index:$gridZ,
      Index:$blockX, Index:$blockY, Index:$blockZ,
      Variadic<AnyType>:$kernelOperands,
      Optional<HostIR_StreamType>:$stream);
  let assemblyFormat = [{
    $kernel `blocks` `(` $gridX `,` $gridY `,` $gridZ `)`
    `threads` `(` $blockX `,` $blockY `,` $blockZ `)`
    (`args` `(` $kernelOperands^ `:` type($kernelOperands) `)`)?
    (`on` $stream^)? attr-dict
  }];
}

def HostIR_MatmulOp : HostIR_Op<"matmul"> {
  let summary = "library matmul into a preallocated output";
  let description = [{
    `out = lhs x rhs` with fuser.matmul's shape rules, through cuBLASLt on
    GPUs and the runtime's fallback on CPUs, on the current stream. With
    `accumulate` the product is added to what `out` holds (`out += lhs x
    rhs`): a ring reduce-scatter adds the rank's own partial block to the
    blocks it received in the product's epilogue instead of in a separate
    pass over memory. An `activation` applies to each element last
    (`out = activation(lhs x rhs (+ out))`), in the epilogue too.
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemRead]>:$lhs,
                       Arg<HostIR_Buffer, "", [MemRead]>:$rhs,
                       Arg<HostIR_Buffer, "", [MemRead, MemWrite]>:$out,
                       UnitAttr:$accumulate,
                       OptionalAttr<Fuser_ActivationAttr>:$activation);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` (`accumulate` $accumulate^)? $out
    (`activation` `=` $activation^)? attr-dict `:`
    type($lhs) `,` type($rhs) `,` type($out)
  }];
  let hasVerifier = 1;
}

def HostIR_LinearOp : HostIR_Op<"linear"> {
  let summary = "library linear (x W^T + b) into a preallocated output";
  let description = [{
    `out = input x weight^T (+ bias)` with fuser.linear's shape rules, on
    the current stream; with `accumulate`, added to what `out` holds, and
    with an `activation`, that applied last, as for `hostir.matmul`.
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemRead]>:$input,
                       Arg<HostIR_Buffer, "", [MemRead]>:$weight,
                       Arg<Optional<HostIR_Buffer>, "", [MemRead]>:$bias,
                       Arg<HostIR_Buffer, "", [MemRead, MemWrite]>:$out,
                       UnitAttr:$accumulate,
                       OptionalAttr<Fuser_ActivationAttr>:$activation);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^ `:` type($bias))? `,`
    (`accumulate` $accumulate^)? $out (`activation` `=` $activation^)?
    attr-dict `:` type($input) `,` type($weight) `,` type($out)
  }];
  let hasVerifier = 1;
}

def HostIR_ReduceBlocksOp : HostIR_Op<"reduce_blocks"> {
  let summary = "library reduction of a buffer's blocks into one block";
  let description = [{
    `out = input[0] (+) input[1] (+) ... (+) input[n - 1]` for an `input` of
    shape `[n, ...]`, with the reduction `kind`: element k of `out` (in
    row-major order) combines element k of every block. It is what a
    reduce_scatter does with the partial blocks it received: the ring form
    of GEMM+RS combines them with it once every step is done. Both buffers
    are dense with static shapes and one element type, and `out` holds as
    many elements as one block; sums of 16-bit floats accumulate in f32.
    Runs on the current stream.

    ```mlir
    hostir.reduce_blocks %received, %out kind = sum
        : memref<2x8x32xf32>, memref<1x8x32xf32>
    ```
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemRead]>:$input,
                       Arg<HostIR_Buffer, "", [MemWrite]>:$out,
                       Fuser_ReductionKindAttr:$kind);
  let assemblyFormat = [{
    $input `,` $out `kind` `=` $kind attr-dict `:` type($input) `,` type($out)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Communications
//===----------------------------------------------------------------------===//

// A collective from `input` into `output` on `team`, posted on the current
// stream; the returned work is waited on with hostir.wait.
// Posting a communication acts on the other ranks.
def HostIR_CommunicationResource
    : Resource<"::mlir::hostir::CommunicationResource">;
def HostIR_PostsCommunication
    : MemoryEffects<[MemWrite<HostIR_CommunicationResource>]>;

class HostIR_CollectiveOp<string mnemonic, string opSummary,
                          dag extraArguments = (ins), string extraFormat = "">
    : HostIR_Op<mnemonic, [HostIR_PostsCommunication]> {
  let summary = opSummary;
  let arguments = !con((ins Arg<HostIR_Buffer, "", [MemRead]>:$input,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$output,
                            HostIR_TeamType:$team,
                            HostIR_BackendAttr:$backend), extraArguments);
  let results = (outs HostIR_WorkType:$work);
  let assemblyFormat = "$input `,` $output `on` $team `backend` `=` $backend "
      # extraFormat #
      " attr-dict `:` type($input) `,` type($output) `,` qualified(type($team))";
  let hasVerifier = 1;
}

def HostIR_AllgatherOp : HostIR_CollectiveOp<"allgather",
    "output = the inputs of all team members, concatenated in team order">;
def HostIR_AllreduceOp : HostIR_CollectiveOp<"allreduce",
    "output = reduction of all team members' inputs",
    (ins Fuser_ReductionKindAttr:$kind), "`kind` `=` $kind">;
def HostIR_ReduceScatterOp : HostIR_CollectiveOp<"reduce_scatter",
    "output = this member's chunk of the reduction of all inputs",
    (ins Fuser_ReductionKindAttr:$kind), "`kind` `=` $kind">;
def HostIR_ReduceOp : HostIR_CollectiveOp<"reduce",
    "the root's output = reduction of all team members' inputs",
    (ins Fuser_ReductionKindAttr:$kind, I64Attr:$root),
    "`kind` `=` $kind `root` `=` $root">;
def HostIR_BroadcastOp : HostIR_CollectiveOp<"broadcast",
    "every output = the root's input", (ins I64Attr:$root), "`root` `=` $root">;
def HostIR_GatherOp : HostIR_CollectiveOp<"gather",
    "the root's output = all inputs concatenated in team order",
    (ins I64Attr:$root), "`root` `=` $root">;
def HostIR_ScatterOp : HostIR_CollectiveOp<"scatter",
    "output = this member's chunk of the root's input",
    (ins I64Attr:$root), "`root` `=` $root">;
def HostIR_AllToAllOp : HostIR_CollectiveOp<"all_to_all",
    "chunk j of member i's input becomes chunk i of member j's output">;

class HostIR_P2POp<string mnemonic, string opSummary, string direction,
                   list<MemoryEffect> bufferEffects>
    : HostIR_Op<mnemonic, [HostIR_PostsCommunication]> {
  let summary = opSummary;
  let arguments = (ins Arg<HostIR_Buffer, "", bufferEffects>:$buffer,
                       Index:$peer, HostIR_TeamType:$team,
                       HostIR_BackendAttr:$backend);
  let results = (outs HostIR_WorkType:$work);
  let assemblyFormat = "$buffer `" # direction # "` $peer `on` $team "
      "`backend` `=` $backend attr-dict `:` type($buffer) `,` qualified(type($team))";
}

def HostIR_SendOp : HostIR_P2POp<"send",
    "send a buffer to the team member at index `peer`", "to", [MemRead]>;
def HostIR_RecvOp : HostIR_P2POp<"recv",
    "receive a buffer from the team member at index `peer`", "from",
    [MemWrite]>;

def HostIR_CoalesceOp : HostIR_Op<"coalesce", [NoTerminator, SingleBlock,
                                               NoRegionArguments]> {
  let summary = "post a group of sends and receives as one operation";
  let description = [{
    The sends and receives in the body are posted together (an NCCL group),
    so pairs of opposite directions cannot deadlock. Their own work handles
    are unused; the group's handle covers them.
  }];
  let results = (outs HostIR_WorkType:$work);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasRegionVerifier = 1;
}

def HostIR_WaitOp : HostIR_Op<"wait"> {
  let summary = "complete a posted communication";
  let description = [{
    With NCCL the current stream waits (the host does not block); with MPI
    and CUDA IPC the host waits, bounded by the runtime's timeout. The work
    must come from a communication of the same program.
  }];
  let arguments = (ins HostIR_WorkType:$work);
  let assemblyFormat = "$work attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// CUDA IPC
//===----------------------------------------------------------------------===//

def HostIR_IpcShareOp : HostIR_Op<"ipc_share", [
    TypesMatchWith<"handles describe the shared buffer's type", "buffer",
                   "handles",
                   "::mlir::hostir::IpcHandlesType::get($_self.getContext(), "
                   "::llvm::cast<::mlir::MemRefType>($_self))">]> {
  let summary = "exchange a buffer's IPC handles across a team";
  let description = [{
    Collective over `team`: exports this rank's buffer and semaphore and opens
    every peer's. Done once per buffer; the allocation cache keeps the
    result alive across executions so peers never see a stale handle.
  }];
  let arguments = (ins HostIR_Buffer:$buffer, HostIR_TeamType:$team);
  let results = (outs HostIR_IpcHandlesType:$handles);
  let assemblyFormat = "$buffer `on` $team attr-dict `:` type($buffer) `,` qualified(type($team))";
}

def HostIR_IpcPeerBufferOp : HostIR_Op<"ipc_peer_buffer", [Pure,
    TypesMatchWith<"the view has the shared buffer's type", "handles", "view",
                   "::llvm::cast<::mlir::hostir::IpcHandlesType>($_self).getBuffer()">]> {
  let summary = "view of the team member `peer`'s shared buffer";
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let results = (outs HostIR_Buffer:$view);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_IpcSignalOp : HostIR_Op<"ipc_signal"> {
  let summary = "signal the semaphore of peer `peer`'s shared buffer";
  let description = [{
    Stream-ordered: fires when the current stream reaches it. Used to tell a
    peer that data is in place for it (or that it is done reading). Signals
    count: the peer's n-th hostir.ipc_wait on this rank completes after the
    n-th signal.
  }];
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_IpcWaitOp : HostIR_Op<"ipc_wait"> {
  let summary = "make the current stream wait for peer `peer`'s signal";
  let description = [{
    Each wait consumes the next signal of `peer`, in the order the program
    issues the waits; the host does not block.
  }];
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_CopyOp : HostIR_Op<"copy"> {
  let summary = "asynchronous copy on the current stream (copy engine)";
  let description = [{
    Copies between any two buffers the rank can address, including a peer's
    buffer opened through IPC; issued on the current stream.
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemRead]>:$source,
                       Arg<HostIR_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `,` type($target)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def HostIR_AllocateOp : HostIR_Op<"allocate"> {
  let summary = "allocate a buffer of a memory kind";
  let arguments = (ins Variadic<Index>:$dynamicSizes,
                       HostIR_MemoryKindAttr:$memory, UnitAttr:$zeroed);
  let results = (outs Res<HostIR_Buffer, "", [MemAlloc]>:$buffer);
  let assemblyFormat = [{
    (`(` $dynamicSizes^ `)`)? $memory (`zeroed` $zeroed^)? attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
}

def HostIR_CachedBufferOp : HostIR_Op<"cached_buffer", [Symbol]> {
  let summary = "a buffer that lives across executions of the program";
  let description = [{
    Declared at module level: the runtime allocates it on first use and
    keeps it, so every execution of a program sees the same buffer (and, for
    IPC-shared buffers, peers keep valid handles to it).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<HostIR_Buffer>:$type,
                       HostIR_MemoryKindAttr:$memory);
  let assemblyFormat = "$sym_name $memory attr-dict `:` $type";
}

def HostIR_GetCachedBufferOp : HostIR_Op<"get_cached_buffer",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the buffer of a hostir.cached_buffer";
  let arguments = (ins FlatSymbolRefAttr:$buffer);
  let results = (outs HostIR_Buffer:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($result)";
}

def HostIR_DeallocateOp : HostIR_Op<"deallocate"> {
  let summary = "release a buffer";
  let arguments = (ins Arg<HostIR_Buffer, "", [MemFree]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

def HostIR_AliasSelectOp : HostIR_Op<"alias_select", [
    Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface, ["getViewSource"]>]> {
  let summary = "view of one chunk of a buffer along its stream-split dim";
  let description = [{
    Splits `dim` of `buffer` into `chunks` equal chunks and returns a view of
    chunk `index` (no copy). The result type states the chunk's shape and
    strided layout.
  }];
  let arguments = (ins HostIR_Buffer:$buffer, Index:$index, I64Attr:$dim,
                       I64Attr:$chunks);
  let results = (outs HostIR_Buffer:$view);
  let assemblyFormat = [{
    $buffer `[` $index `]` `dim` `=` $dim `chunks` `=` $chunks attr-dict
    `:` type($buffer) `->` type($view)
  }];
  let hasVerifier = 1;
}

#endif // FUSER_DIALECT_HOSTIR_IR_HOSTIROPS_TD
