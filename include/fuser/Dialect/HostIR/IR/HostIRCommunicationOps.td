//===- HostIRCommunicationOps.td - data between ranks ------*- tablegen -*-===//
//
// Collectives and point-to-point transfers posted on a library (NCCL, MPI)
// and waited on, and the CUDA IPC ops ring pipelines move data with.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_HOSTIR_IR_HOSTIRCOMMUNICATIONOPS_TD
#define FUSER_DIALECT_HOSTIR_IR_HOSTIRCOMMUNICATIONOPS_TD

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

// The library a collective or a point-to-point transfer posts on, which the
// runtime backend the program selects executes: NCCL on the CUDA backend;
// MPI, or MPI standing in for NCCL, on the host backend. CUDA IPC moves
// data through the hostir.ipc_* ops and copies instead, so it is no
// library for these ops.
def HostIR_LibraryBackendAttr : ConfinedAttr<HostIR_BackendAttr, [
    AttrConstraint<CPred<"::llvm::cast<::mlir::hostir::BackendAttr>($_self)"
                         ".getValue() != ::mlir::hostir::Backend::CudaIpc">,
                   "nccl or mpi (CUDA IPC moves data through the "
                   "hostir.ipc_* ops and copies)">]>;

class HostIR_CollectiveOp<string mnemonic, string opSummary,
                          dag extraArguments = (ins), string extraFormat = "">
    : HostIR_Op<mnemonic, [HostIR_PostsCommunication]> {
  let summary = opSummary;
  let arguments = !con((ins Arg<HostIR_Buffer, "", [MemRead]>:$input,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$output,
                            HostIR_TeamType:$team,
                            HostIR_LibraryBackendAttr:$backend), extraArguments);
  let results = (outs HostIR_WorkType:$work);
  let assemblyFormat = "$input `,` $output `on` $team `backend` `=` $backend "
      # extraFormat #
      " attr-dict `:` type($input) `,` type($output) `,` qualified(type($team))";
  let hasVerifier = 1;
}

def HostIR_AllgatherOp : HostIR_CollectiveOp<"allgather",
    "output = the inputs of all team members, concatenated in team order"> {
  let description = [{
    Every member's `output` receives the `input`s of all members of `team`,
    concatenated in team order (member `i`'s input is the `i`-th block of the
    flat output): `output` holds team-size times as many elements as `input`.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_allgather` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.allgather %shard, %whole on %team backend = nccl
        : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %shard, %whole : memref<4xf32>, memref<8xf32>
    ```
  }];
}

def HostIR_AllreduceOp : HostIR_CollectiveOp<"allreduce",
    "output = reduction of all team members' inputs",
    (ins Fuser_ReductionKindAttr:$kind), "`kind` `=` $kind"> {
  let description = [{
    Every member's `output` receives the element-wise reduction with `kind`
    (`sum`, `prod`, `max`, `min`, `avg`) of the `input`s of all members of
    `team`. `input` and `output` hold the same number of elements; they may be
    the same buffer (in place).

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_allreduce` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.allreduce %partial, %partial on %team backend = nccl kind = sum
        : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %partial, %partial : memref<8xf32>, memref<8xf32>
    ```
  }];
}

def HostIR_ReduceScatterOp : HostIR_CollectiveOp<"reduce_scatter",
    "output = this member's chunk of the reduction of all inputs",
    (ins Fuser_ReductionKindAttr:$kind), "`kind` `=` $kind"> {
  let description = [{
    Reduces the `input`s of all members of `team` element by element with
    `kind`, and member `i`'s `output` receives block `i` of the result (of the
    flat buffer split into team-size equal blocks): `input` holds team-size
    times as many elements as `output`.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_reduce_scatter` call, which the
    runtime backend the program selected executes: NCCL on the current stream on
    the CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.reduce_scatter %partial, %block on %team backend = nccl kind = sum
        : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    hostir.wait %work for %partial, %block : memref<8xf32>, memref<4xf32>
    ```
  }];
}

def HostIR_ReduceOp : HostIR_CollectiveOp<"reduce",
    "the root's output = reduction of all team members' inputs",
    (ins Fuser_ReductionKindAttr:$kind, I64Attr:$root),
    "`kind` `=` $kind `root` `=` $root"> {
  let description = [{
    The `output` of the member at index `root` of `team` receives the
    element-wise reduction with `kind` of all members' `input`s; only the root's
    output holds the result. `input` and `output` hold the same number of
    elements, and `root` is below the team size.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_reduce` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.reduce %partial, %result on %team backend = nccl kind = max root = 0
        : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %partial, %result : memref<8xf32>, memref<8xf32>
    ```
  }];
}

def HostIR_BroadcastOp : HostIR_CollectiveOp<"broadcast",
    "every output = the root's input", (ins I64Attr:$root), "`root` `=` $root"> {
  let description = [{
    Every member's `output`, the root's included, receives the `input` of the
    member at index `root` of `team`; the other members' inputs are not read.
    `input` and `output` hold the same number of elements, and `root` is below
    the team size.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_broadcast` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.broadcast %value, %copy on %team backend = nccl root = 1
        : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %value, %copy : memref<8xf32>, memref<8xf32>
    ```
  }];
}

def HostIR_GatherOp : HostIR_CollectiveOp<"gather",
    "the root's output = all inputs concatenated in team order",
    (ins I64Attr:$root), "`root` `=` $root"> {
  let description = [{
    The `output` of the member at index `root` of `team` receives the `input`s
    of all members concatenated in team order; only the root's output holds the
    result. `output` holds team-size times as many elements as `input`, and
    `root` is below the team size.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_gather` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.gather %shard, %whole on %team backend = mpi root = 0
        : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %shard, %whole : memref<4xf32>, memref<8xf32>
    ```
  }];
}

def HostIR_ScatterOp : HostIR_CollectiveOp<"scatter",
    "output = this member's chunk of the root's input",
    (ins I64Attr:$root), "`root` `=` $root"> {
  let description = [{
    Member `i`'s `output` receives block `i` of the `input` of the member at
    index `root` of `team` (of the flat buffer split into team-size equal
    blocks); the other members' inputs are not read. `input` holds team-size
    times as many elements as `output`, and `root` is below the team size.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_scatter` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.scatter %whole, %shard on %team backend = nccl root = 0
        : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    hostir.wait %work for %whole, %shard : memref<8xf32>, memref<4xf32>
    ```
  }];
}

def HostIR_AllToAllOp : HostIR_CollectiveOp<"all_to_all",
    "chunk j of member i's input becomes chunk i of member j's output"> {
  let description = [{
    Each member's flat `input` and `output` are split into team-size equal
    blocks; block `j` of member `i`'s input becomes block `i` of member `j`'s
    output. `input` and `output` hold the same number of elements, a multiple of
    the team size. Host lowering views the blocks of a sharded dim outermost, so
    that each block is contiguous.

    Every member of `team` must post the same collective (kind, sizes, `root`),
    in the same order relative to its other communications on the team. The op
    posts the communication and returns its `!hostir.work` without waiting:
    `hostir.wait` completes it, and until then the buffers must be neither read
    nor written. `input` and `output` have one element type and are dense (the
    libraries read them as flat arrays); with static shapes the verifier checks
    their element counts against the team size as stated above.

    `backend` records the library host lowering chose, `nccl` or `mpi` (the
    verifier refuses `cuda_ipc`, which moves data through the `hostir.ipc_*`
    ops instead); lowering for `target=cuda` refuses `mpi`.
    The op lowers to the runtime's `fuser_all_to_all` call, which the runtime
    backend the program selected executes: NCCL on the current stream on the
    CUDA backend, MPI on the host backend.

    ```mlir
    %work = hostir.all_to_all %send, %received on %team backend = nccl
        : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %send, %received : memref<8xf32>, memref<8xf32>
    ```
  }];
}

class HostIR_P2POp<string mnemonic, string opSummary, string direction,
                   list<MemoryEffect> bufferEffects>
    : HostIR_Op<mnemonic, [HostIR_PostsCommunication]> {
  let summary = opSummary;
  let arguments = (ins Arg<HostIR_Buffer, "", bufferEffects>:$buffer,
                       Index:$peer, HostIR_TeamType:$team,
                       HostIR_LibraryBackendAttr:$backend);
  let results = (outs HostIR_WorkType:$work);
  let assemblyFormat = "$buffer `" # direction # "` $peer `on` $team "
      "`backend` `=` $backend attr-dict `:` type($buffer) `,` qualified(type($team))";
}

def HostIR_SendOp : HostIR_P2POp<"send",
    "send a buffer to the team member at index `peer`", "to", [MemRead]> {
  let description = [{
    Sends the contents of `buffer` to the member at index `peer` of `team`.
    `peer` is a team index (below the team size, which the runtime checks), and
    the peer must post the matching `hostir.recv` of a buffer of the same size
    and element type. The op posts the transfer and returns its `!hostir.work`
    without waiting: `hostir.wait` completes it. Inside a `hostir.coalesce` the
    transfer is posted with the group's other sends and receives, and the
    group's handle covers it. `backend` records the library host lowering
    chose, `nccl` or `mpi` (lowering for `target=cuda` refuses `mpi`); the op
    lowers to the runtime's `fuser_send`, which the runtime backend the
    program selected executes (NCCL on the CUDA backend, MPI on the host
    backend).

    ```mlir
    %work = hostir.send %block to %peer on %team backend = nccl
        : memref<4xf32>, !hostir.team<2>
    hostir.wait %work for %block : memref<4xf32>
    ```
  }];
}

def HostIR_RecvOp : HostIR_P2POp<"recv",
    "receive a buffer from the team member at index `peer`", "from",
    [MemWrite]> {
  let description = [{
    Receives into `buffer` what the member at index `peer` of `team` sends.
    `peer` is a team index (below the team size, which the runtime checks), and
    the peer must post the matching `hostir.send` of a buffer of the same size
    and element type. The op posts the transfer and returns its `!hostir.work`
    without waiting: `hostir.wait` completes it. Inside a `hostir.coalesce` the
    transfer is posted with the group's other sends and receives, and the
    group's handle covers it. `backend` records the library host lowering
    chose, `nccl` or `mpi` (lowering for `target=cuda` refuses `mpi`); the op
    lowers to the runtime's `fuser_recv`, which the runtime backend the
    program selected executes (NCCL on the CUDA backend, MPI on the host
    backend).

    ```mlir
    %work = hostir.recv %block from %peer on %team backend = nccl
        : memref<4xf32>, !hostir.team<2>
    hostir.wait %work for %block : memref<4xf32>
    ```
  }];
}

def HostIR_CoalesceOp : HostIR_Op<"coalesce", [NoTerminator, SingleBlock,
                                               NoRegionArguments]> {
  let summary = "post a group of sends and receives as one operation";
  let description = [{
    The sends and receives in the body are posted together (an NCCL group), so
    pairs of opposite directions cannot deadlock. The body holds only
    `hostir.send` and `hostir.recv` ops, whose own work handles are unused (the
    verifier checks both); the group's handle covers them all. Lowers to a post
    of each member and the runtime's `fuser_group` of their handles.

    ```mlir
    %work = hostir.coalesce {
      %s = hostir.send %mine to %peer on %team backend = nccl : memref<4xf32>, !hostir.team<2>
      %r = hostir.recv %theirs from %peer on %team backend = nccl : memref<4xf32>, !hostir.team<2>
    }
    hostir.wait %work for %mine, %theirs : memref<4xf32>, memref<4xf32>
    ```
  }];
  let results = (outs HostIR_WorkType:$work);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasRegionVerifier = 1;
}

def HostIR_WaitOp : HostIR_Op<"wait"> {
  let summary = "complete a posted communication";
  let description = [{
    Completes the communication `work` stands for and frees its handle;
    afterwards its buffers may be used. On the CUDA backend the current stream
    waits for the communication (an event), and the host does not block. On the
    host backend the host waits, bounded by the runtime's timeout
    (`FUSER_TIMEOUT_S`), and fails naming the operation and the team when it
    runs out. The work must come from a communication of the same program (the
    verifier refuses a handle that is a block argument). Lowers to the runtime's
    `fuser_wait`.

    `buffers` are the buffers the pending communication still uses: its
    memref operands in order (of every member, for a `hostir.coalesce`), as
    the verifier checks. Naming them makes the wait a use of each, so a
    buffer's lifetime visibly extends to the wait: deallocation placement
    (hostir-place-deallocations) and the program checks
    (hostir-verify-program) read it from the uses alone.

    ```mlir
    %work = hostir.allreduce %partial, %partial on %team backend = nccl kind = sum
        : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    hostir.wait %work for %partial, %partial : memref<8xf32>, memref<8xf32>
    ```
  }];
  let arguments = (ins HostIR_WorkType:$work, Variadic<HostIR_Buffer>:$buffers);
  let assemblyFormat =
      "$work (`for` $buffers^ `:` type($buffers))? attr-dict";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$work), [{
      build($_builder, $_state, work, getPostedBuffers(work.getDefiningOp()));
    }]>
  ];
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
    Collective over `team`: exports this rank's `buffer` and a semaphore array
    and opens every peer's. The buffer must be symmetric or cached memory
    (`hostir.allocate symmetric`, `hostir.get_cached_buffer`). Done once per
    buffer: sharing it again returns the same handles, and the allocation cache
    keeps the buffer alive across executions so peers never see a stale handle.
    CUDA IPC needs the CUDA backend: lowering to LLVM refuses IPC ops in
    programs for CPU ranks.

    ```mlir
    %handles = hostir.ipc_share %buffer on %team : memref<4x8xbf16>, !hostir.team<2>
    ```
  }];
  let arguments = (ins HostIR_Buffer:$buffer, HostIR_TeamType:$team);
  let results = (outs HostIR_IpcHandlesType:$handles);
  let assemblyFormat = "$buffer `on` $team attr-dict `:` type($buffer) `,` qualified(type($team))";
}

def HostIR_IpcPeerBufferOp : HostIR_Op<"ipc_peer_buffer", [Pure,
    TypesMatchWith<"the view has the shared buffer's type", "handles", "view",
                   "::llvm::cast<::mlir::hostir::IpcHandlesType>($_self).getBuffer()">]> {
  let summary = "view of the team member `peer`'s shared buffer";
  let description = [{
    The buffer that the member at index `peer` of the team shared through
    `handles`, as this process addresses it: of the shared buffer's type. Reads
    and writes of the view (`hostir.copy`) reach the peer's memory; order them
    with `hostir.ipc_signal` and `hostir.ipc_wait`. CUDA IPC needs the CUDA
    backend: lowering to LLVM refuses IPC ops in programs for CPU ranks.

    ```mlir
    %remote = hostir.ipc_peer_buffer %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    hostir.copy %remote, %local : memref<4x8xbf16>, memref<4x8xbf16>
    ```
  }];
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let results = (outs HostIR_Buffer:$view);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_IpcSignalOp : HostIR_Op<"ipc_signal"> {
  let summary = "signal the semaphore of peer `peer`'s shared buffer";
  let description = [{
    Stream-ordered: fires when the current stream reaches it, with no host
    synchronization. Used to tell the member at index `peer` that data is in
    place for it (or that this rank is done reading). Signals count: the peer's
    n-th `hostir.ipc_wait` on this rank completes after the n-th signal. CUDA
    IPC needs the CUDA backend: lowering to LLVM refuses IPC ops in programs for
    CPU ranks.

    ```mlir
    hostir.copy %local, %remote : memref<4x8xbf16>, memref<4x8xbf16>
    hostir.ipc_signal %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    ```
  }];
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_IpcWaitOp : HostIR_Op<"ipc_wait"> {
  let summary = "make the current stream wait for peer `peer`'s signal";
  let description = [{
    Makes the current stream wait until the member at index `peer` has signalled
    (`hostir.ipc_signal`) this rank once more: each wait consumes the next
    signal of `peer`, in the order the program issues the waits. The host does
    not block. CUDA IPC needs the CUDA backend: lowering to LLVM refuses IPC ops
    in programs for CPU ranks.

    ```mlir
    hostir.ipc_wait %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    hostir.copy %remote, %local : memref<4x8xbf16>, memref<4x8xbf16>
    ```
  }];
  let arguments = (ins HostIR_IpcHandlesType:$handles, Index:$peer);
  let assemblyFormat = "$handles `[` $peer `]` attr-dict `:` qualified(type($handles))";
}

def HostIR_CopyOp : HostIR_Op<"copy"> {
  let summary = "asynchronous copy on the current stream (copy engine)";
  let description = [{
    Copies `source` into `target`, which have the same shape and element type
    (the verifier checks both), with any strides. On the CUDA backend the copy
    is asynchronous on the current stream, through the copy engine, between any
    memory the rank can address (device, host, a peer's buffer opened through
    IPC); the innermost dim must be contiguous on both sides (a transposing copy
    is a kernel's work, and fails at run time). Lowers to the runtime's
    `fuser_copy`.

    ```mlir
    hostir.copy %remote, %local : memref<4x8xbf16>, memref<4x8xbf16>
    ```
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemRead]>:$source,
                       Arg<HostIR_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `,` type($target)
  }];
  let hasVerifier = 1;
}

#endif // FUSER_DIALECT_HOSTIR_IR_HOSTIRCOMMUNICATIONOPS_TD
