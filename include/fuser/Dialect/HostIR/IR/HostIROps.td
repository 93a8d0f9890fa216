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

// What the attention calls share: the scores' scale, mask and dropout, and
// where the rank's piece starts in the global batch and heads (the dropout
// mask is drawn at global coordinates).
class HostIR_AttentionOp<string mnemonic> : HostIR_Op<mnemonic> {
  dag attentionOperands = (ins Index:$batch_offset, Index:$head_offset,
                               UnitAttr:$causal, F64Attr:$scale,
                               DefaultValuedAttr<F64Attr, "0.0">:$dropout_probability,
                               DefaultValuedAttr<I64Attr, "0">:$seed);
  string attentionFormat = [{
    `at` `[` $batch_offset `,` $head_offset `]` (`causal` $causal^)?
    `scale` `=` $scale (`dropout` `=` $dropout_probability^)?
    (`seed` `=` $seed^)? attr-dict
  }];
  let hasVerifier = 1;
}

def HostIR_SdpaOp : HostIR_AttentionOp<"sdpa"> {
  let summary = "library fused attention, forward, into preallocated outputs";
  let description = [{
    `fuser.sdpa` on the rank's pieces: `output [b, h, sq, dv]` and `logsumexp
    [b, h, sq]` (f32) from `query [b, h, sq, d]`, `key [b, h, skv, d]` and
    `value [b, h, skv, dv]`, scaled by `scale`, causal or not, with dropout of
    probability `dropout` drawn from `seed` at global coordinates that start at
    (`batch_offset`, `head_offset`). Runs on the current stream: cuDNN's fused
    attention on GPUs, the runtime's own on CPUs (`fuser_sdpa_forward`). The
    verifier checks shapes and element types.

    ```mlir
    hostir.sdpa %q, %k, %v, %o, %lse at [%c0, %h0] causal scale = 0.125
        : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>,
          memref<1x2x64x32xf32>, memref<1x2x64xf32>
    ```
  }];
  let arguments = !con((ins Arg<HostIR_Buffer, "", [MemRead]>:$query,
                            Arg<HostIR_Buffer, "", [MemRead]>:$key,
                            Arg<HostIR_Buffer, "", [MemRead]>:$value,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$output,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$logsumexp),
                       attentionOperands);
  let assemblyFormat = "$query `,` $key `,` $value `,` $output `,` $logsumexp " #
      attentionFormat # " `:` type($query) `,` type($key) `,` type($value) `,` "
      "type($output) `,` type($logsumexp)";
}

def HostIR_SdpaBackwardOp : HostIR_AttentionOp<"sdpa_backward"> {
  let summary = "library fused attention, backward, into preallocated outputs";
  let description = [{
    `fuser.sdpa_backward` on the rank's pieces: the gradients of the query, key
    and value from the forward's operands, output and log-sum-exp and the
    output's gradient, with the forward's scale, mask and dropout (the runtime's
    `fuser_sdpa_backward`, cuDNN's on GPUs). The verifier checks shapes and
    element types.

    ```mlir
    hostir.sdpa_backward %q, %k, %v, %o, %do, %lse, %dq, %dk, %dv
        at [%c0, %h0] scale = 0.125
        : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>,
          memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64xf32>,
          memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>
    ```
  }];
  let arguments = !con((ins Arg<HostIR_Buffer, "", [MemRead]>:$query,
                            Arg<HostIR_Buffer, "", [MemRead]>:$key,
                            Arg<HostIR_Buffer, "", [MemRead]>:$value,
                            Arg<HostIR_Buffer, "", [MemRead]>:$output,
                            Arg<HostIR_Buffer, "", [MemRead]>:$grad_output,
                            Arg<HostIR_Buffer, "", [MemRead]>:$logsumexp,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$grad_query,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$grad_key,
                            Arg<HostIR_Buffer, "", [MemWrite]>:$grad_value),
                       attentionOperands);
  let assemblyFormat = "$query `,` $key `,` $value `,` $output `,` $grad_output `,` "
      "$logsumexp `,` $grad_query `,` $grad_key `,` $grad_value " #
      attentionFormat # " `:` type($query) `,` type($key) `,` type($value) `,` "
      "type($output) `,` type($grad_output) `,` type($logsumexp) `,` "
      "type($grad_query) `,` type($grad_key) `,` type($grad_value)";
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

    With `storage`, it is bytes (`memref<Nxi8>`) that buffers of other types
    take turns in: each `hostir.get_cached_buffer` of it views the first bytes
    as its own static, dense type at offset 0. The program orders the turns:
    one buffer's last use comes before the next one's first, on the current
    stream.

    ```mlir
    hostir.cached_buffer @pool device : memref<8x4xf32>
    hostir.cached_buffer @turns device storage : memref<256xi8>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<HostIR_Buffer>:$type,
                       HostIR_MemoryKindAttr:$memory, UnitAttr:$storage);
  let assemblyFormat =
      "$sym_name $memory (`storage` $storage^)? attr-dict `:` $type";
  let hasVerifier = 1;
}

def HostIR_GetCachedBufferOp : HostIR_Op<"get_cached_buffer",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the buffer of a hostir.cached_buffer";
  let description = [{
    The buffer that the module-level `hostir.cached_buffer` named `buffer`
    declares; the verifier requires that symbol and a result of its type, or,
    for a `storage` declaration, a static, dense type at offset 0 in its memory
    space that fits its bytes. Allocated on first use (the runtime's `fuser_cached_buffer`,
    by name, with the declaration's size), then the same memory in every
    execution; never deallocated by the program.

    ```mlir
    hostir.cached_buffer @pool device : memref<8x4xf32>
    hostir.cached_buffer @turns device storage : memref<256xi8>
    func.func @f() {
      %b = hostir.get_cached_buffer @pool : memref<8x4xf32>
      %c = hostir.get_cached_buffer @turns : memref<4x16xf32>
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

include "fuser/Dialect/HostIR/IR/HostIRCommunicationOps.td"

#endif // FUSER_DIALECT_HOSTIR_IR_HOSTIROPS_TD
