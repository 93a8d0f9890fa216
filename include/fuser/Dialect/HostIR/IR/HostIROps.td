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
  let description = [{
    The rank of the executing process among all processes of the job (its MPI
    rank, from 0 to the world size - 1). Every rank runs the same host program
    (SPMD); the rank is what makes their work differ. Lowers to the runtime's
    `fuser_rank`.

    ```mlir
    %rank = hostir.rank : index
    ```
  }];
  let results = (outs Index:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def HostIR_TeamOp : HostIR_Op<"team", [Pure]> {
  let summary = "the ranks of a mesh slice along some axes containing a rank";
  let description = [{
    The team a communication along `axes` of `mesh` runs on for `rank`: all
    devices whose mesh coordinates equal the rank's outside `axes`, ordered
    row-major over `axes` in the order given. For mesh `[2, 4]` and rank 5, axes
    `[1]` is ranks 4..7 and axes `[0]` is ranks 1 and 5. A rank outside the mesh
    belongs to no such team: its team index is 0 and it must not communicate on
    it (host lowering guards communications with `hostir.in_mesh`).

    The verifier requires at least one axis, each an axis of the mesh and listed
    once, and a team type whose size is the product of their sizes. Lowers to
    the runtime's `fuser_team`, which creates the team's communicator on first
    use and caches it.

    ```mlir
    %team = hostir.team %rank mesh = #fuser.mesh<[2, 4]> axes = [1] : !hostir.team<4>
    ```
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
    Whether `rank` is one of the devices of `mesh`. Ops on values of a mesh run
    only on its devices: host programs of functions whose values live on several
    meshes guard them with this. Lowers to comparisons of the rank with the
    mesh's device ids (no runtime call).

    ```mlir
    %member = hostir.in_mesh %rank mesh = #fuser.mesh<[2], devices = [2, 3]>
    scf.if %member {
      // work of the ranks of the mesh
    }
    ```
  }];
  let arguments = (ins Index:$rank, Fuser_MeshAttr:$mesh);
  let results = (outs I1:$member);
  let assemblyFormat = "$rank `mesh` `=` qualified($mesh) attr-dict";
}

def HostIR_TeamIndexOp : HostIR_Op<"team_index", [Pure]> {
  let summary = "position of the executing rank in a team";
  let description = [{
    The executing rank's position in `team`, from 0 to the team size - 1, in the
    order `hostir.team` defines (row-major over its axes); 0 on a rank outside
    the team's mesh, so that views of blocks stay defined. Host lowering uses it
    to select the rank's block of a buffer (e.g. the view an all_slice keeps).
    Lowers to the runtime's `fuser_team_index`.

    ```mlir
    %index = hostir.team_index %team : !hostir.team<4>
    ```
  }];
  let arguments = (ins HostIR_TeamType:$team);
  let results = (outs Index:$index);
  let assemblyFormat = "$team attr-dict `:` qualified(type($team))";
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

def HostIR_GetCurrentStreamOp : HostIR_Op<"get_current_stream"> {
  let summary = "the stream work is currently issued on";
  let description = [{
    The stream that kernel launches, library calls, copies, communications and
    IPC signals are currently issued on: the backend's main stream, unless the
    program or its caller (through `fuser_wrap_stream` and
    `fuser_set_current_stream`) made another one current. On the CUDA backend a
    stream is a CUDA stream; the host backend runs work in program order and its
    streams are handles without effect. Lowers to the runtime's
    `fuser_get_current_stream`.

    ```mlir
    %main = hostir.get_current_stream
    ```
  }];
  let results = (outs HostIR_StreamType:$stream);
  let assemblyFormat = "attr-dict";
}

def HostIR_SetCurrentStreamOp : HostIR_Op<"set_current_stream"> {
  let summary = "issue subsequent work on `stream`";
  let description = [{
    Makes `stream` the current stream: the work issued after it goes there. It
    does not synchronize anything; order streams with
    `hostir.synchronize_stream`. On the CUDA backend a stream is a CUDA stream;
    the host backend runs work in program order and its streams are handles
    without effect. Lowers to the runtime's `fuser_set_current_stream`.

    ```mlir
    %worker = hostir.stream_from_pool %i
    hostir.set_current_stream %worker
    ```
  }];
  let arguments = (ins HostIR_StreamType:$stream);
  let assemblyFormat = "$stream attr-dict";
}

def HostIR_StreamFromPoolOp : HostIR_Op<"stream_from_pool"> {
  let summary = "the pool stream with a given index, created on first use";
  let description = [{
    The stream at `index` of the runtime's pool. On the CUDA backend the pool
    holds 64 non-blocking streams, each created on first use and kept; larger
    indices wrap around the pool. `hostir-assign-streams` runs the iterations of
    stream-parallel loops on these. On the CUDA backend a stream is a CUDA
    stream; the host backend runs work in program order and its streams are
    handles without effect. Lowers to the runtime's `fuser_stream_from_pool`.

    ```mlir
    %worker = hostir.stream_from_pool %i
    ```
  }];
  let arguments = (ins Index:$index);
  let results = (outs HostIR_StreamType:$stream);
  let assemblyFormat = "$index attr-dict";
}

def HostIR_SynchronizeStreamOp : HostIR_Op<"synchronize_stream"> {
  let summary = "make the current stream wait for work issued on `stream`";
  let description = [{
    Records an event on `stream` and makes the current stream wait on it: work
    issued on the current stream after this op runs after the work issued on
    `stream` before it. The host does not block. Lowers to the runtime's
    `fuser_synchronize_stream` (without effect on the host backend).

    ```mlir
    %main = hostir.get_current_stream
    // ... work issued on worker streams ...
    hostir.set_current_stream %main
    hostir.synchronize_stream %worker
    ```
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
    `@kernels::@fused_0`, a `gpu.func` or `func.func`) with a grid of `blocks`
    and `threads` per block, on `stream` or the current stream. The launch is
    asynchronous on the CUDA backend; on CPU ranks the kernel is a function that
    the host program calls (the grid is ignored).

    The verifier requires a function of that name, a `gpu.func` to be a kernel
    (`gpu.kernel`), and the arguments to match the kernel's signature, except
    for a `gpu.func` kernel's memrefs: a GPU kernel receives each memref as one
    pointer to its first element (the descriptor's aligned pointer advanced by
    its offset), indices as i64 and other scalars as themselves, so its memref
    parameters have static sizes and strides and offset 0, and take arguments of
    the same shape, element type and strides at any offset (`memref<4x16xf32>`
    takes `memref<4x16xf32, strided<[16, 1], offset: ?>>`). An argument whose
    strides are known only at run time is taken by a one-element parameter
    (`memref<1xf32>`), from which the kernel rebuilds the view with the strides
    it takes as index arguments. Once the kernel module is compiled to a
    `gpu.binary`, its kernels' signatures are no longer visible and the launch
    is taken as it is.

    On GPUs the launch lowers to the runtime's `fuser_launch_kernel` with the
    binary's image (loaded on the first launch); a launch `on` a stream makes
    that stream current for the launch and restores the previous one.

    ```mlir
    hostir.launch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c128, %c1, %c1)
        args(%a : memref<4x8xf32>) on %stream
    ```
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
    `out = lhs x rhs` with `fuser.matmul`'s shape rules (batched, or a matrix
    `rhs` shared by every batch entry), through cuBLASLt on GPUs and the
    runtime's fallback on CPUs, on the current stream; accumulation is in `f32`
    for 16-bit elements. With `accumulate` the product is added to what `out`
    holds (`out += lhs x rhs`): a ring reduce-scatter adds the rank's own
    partial block to the blocks it received in the product's epilogue instead of
    in a separate pass over memory. An `activation` applies to each element last
    (`out = activation(lhs x rhs (+ out))`), in the epilogue too.

    The verifier requires `out` to have the product's shape and the operands'
    element type, and an `activation` only for floating-point elements. Lowers
    to the runtime's `fuser_matmul`.

    ```mlir
    hostir.matmul %a, %b, accumulate %out activation = relu
        : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    ```
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
    `out = input x weight^T (+ bias)` with `fuser.linear`'s shape rules (weight
    `[N, K]`, bias `[N]`; a rank-1 weight `[K]` contracts the last dim away), on
    the current stream; with `accumulate`, added to what `out` holds, and with
    an `activation`, that applied last (after the bias), as for `hostir.matmul`.
    The verifier requires `out` to have the computed shape and the operands'
    element type, and an `activation` only for floating-point elements. Lowers
    to the runtime's `fuser_linear`.

    ```mlir
    hostir.linear %x, %w bias %b : memref<16xf32>, %out activation = gelu_tanh
        : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    ```
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
    reduce_scatter does with the partial blocks it received: the ring form of
    GEMM+RS combines them with it once every step is done. Both buffers are
    dense with static shapes and one element type, and `out` holds as many
    elements as one block (in any shape), which the verifier checks; sums of
    16-bit floats accumulate in f32. Runs on the current stream (the runtime's
    `fuser_reduce_blocks`).

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

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def HostIR_AllocateOp : HostIR_Op<"allocate"> {
  let summary = "allocate a buffer of a memory kind";
  let description = [{
    A new buffer of the result type in the memory kind `memory`: `device` memory
    of the rank's GPU, `host` memory, or `symmetric` memory (device memory of
    the same size on every rank of a team, shareable through CUDA IPC).
    `dynamicSizes` give one size per dynamic dim of the type (the verifier
    checks the count); `zeroed` fills it with zeros. A symmetric buffer is
    shared whole and needs the identity layout. The memory is aligned for any
    element and for 16-byte vector accesses.

    Lowers to the runtime's `fuser_allocate` (static shapes and layouts only).
    The CUDA backend serves device memory from a stream-ordered pool on the
    current stream; the host backend keeps every kind in host memory. Free the
    buffer with `hostir.deallocate`.

    ```mlir
    %d = hostir.allocate device : memref<8x4xf32>
    %h = hostir.allocate(%n) host zeroed : memref<?x4xf32>
    ```
  }];
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
    Declared at module level: the runtime allocates the buffer of type `type` in
    memory kind `memory` on first use, by the symbol's name, and keeps it until
    it finalizes, so every execution of a program sees the same buffer (and, for
    IPC-shared buffers, peers keep valid handles to it). Programs read it with
    `hostir.get_cached_buffer`; `hostir-cache-allocations` turns the static
    allocations of host programs into these.

    ```mlir
    hostir.cached_buffer @pool device : memref<8x4xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<HostIR_Buffer>:$type,
                       HostIR_MemoryKindAttr:$memory);
  let assemblyFormat = "$sym_name $memory attr-dict `:` $type";
}

def HostIR_GetCachedBufferOp : HostIR_Op<"get_cached_buffer",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the buffer of a hostir.cached_buffer";
  let description = [{
    The buffer that the module-level `hostir.cached_buffer` named `buffer`
    declares; the verifier requires that symbol and a result of its type.
    Allocated on first use (the runtime's `fuser_cached_buffer`, by name), then
    the same buffer in every execution; never deallocated by the program.

    ```mlir
    hostir.cached_buffer @pool device : memref<8x4xf32>
    func.func @f() {
      %b = hostir.get_cached_buffer @pool : memref<8x4xf32>
      return
    }
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$buffer);
  let results = (outs HostIR_Buffer:$result);
  let assemblyFormat = "$buffer attr-dict `:` type($result)";
}

def HostIR_DeallocateOp : HostIR_Op<"deallocate"> {
  let summary = "release a buffer";
  let description = [{
    Releases a buffer that `hostir.allocate` returned. On the CUDA backend
    device memory returns to the pool in stream order: it is reused only by work
    issued after the release on the current stream. `hostir-place-deallocations`
    places these after each buffer's last use. Lowers to the runtime's
    `fuser_deallocate`.

    ```mlir
    %d = hostir.allocate device : memref<8x4xf32>
    hostir.deallocate %d : memref<8x4xf32>
    ```
  }];
  let arguments = (ins Arg<HostIR_Buffer, "", [MemFree]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
}

def HostIR_AliasSelectOp : HostIR_Op<"alias_select", [
    Pure, DeclareOpInterfaceMethods<ViewLikeOpInterface, ["getViewSource"]>]> {
  let summary = "view of one chunk of a buffer along its stream-split dim";
  let description = [{
    Splits `dim` of `buffer` into `chunks` equal chunks and returns a view of
    chunk `index` (no copy): the chunk a stream-pipelined loop iteration works
    on. The result type states the chunk's shape and strided layout. The
    verifier requires one element type, `dim` to be a dim of the buffer, `chunks
    >= 1` dividing the dim's size (when static), and a view of the buffer's rank
    whose shape is the chunk's. `hostir-expand-alias-selects` turns it into a
    `memref.subview` before lowering to LLVM.

    ```mlir
    %chunk = hostir.alias_select %buffer[%i] dim = 0 chunks = 4
        : memref<8x4xf32> -> memref<2x4xf32, strided<[4, 1], offset: ?>>
    ```
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
