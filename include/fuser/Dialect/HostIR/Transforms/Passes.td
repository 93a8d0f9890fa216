//===- Passes.td - hostir dialect passes -------------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_TD
#define FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AssignStreams : Pass<"hostir-assign-streams", "func::FuncOp"> {
  let summary = "Run the iterations of stream-parallel loops on pool streams";
  let description = [{
    Contract. Reads: `scf.for` loops marked `hostir.stream_parallel`.
    Writes, for each: the current stream is read before the loop; a loop of
    its own first makes every pool stream wait for it (synchronizing inside
    the work loop would serialize the iterations); iteration i runs on pool
    stream i mod `streams`; after the loop the current stream is restored
    and waits for every pool stream it used. The mark is removed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"streams", "streams", "int64_t", /*default=*/"0",
           "Number of pool streams (0: one per iteration)">
  ];
}

def PlaceDeallocations : Pass<"hostir-place-deallocations", "func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Contract. Reads: a host program. Writes: one `hostir.deallocate` per
    buffer the program allocates and neither frees nor returns (returned
    buffers are the caller's).

    What refers to a buffer comes from upstream's BufferViewFlowAnalysis:
    its views (alias_select, memref views), the values control flow passes
    it on as, and its IPC handles. A buffer a branch (`scf.if`,
    `scf.index_switch`) yields is freed through the branch's result when
    every branch yields a buffer of its own there; a buffer that flows
    anywhere else (a loop's iteration arguments, a branch that may yield
    another buffer, a block argument) is reported, as its owner is not
    known statically.

    The free goes after the last op of the freed value's block that uses
    it or a value referring to it (upstream's Liveness; a use inside a
    region counts as the region's op, and a `hostir.wait` names the
    buffers its communication still uses), and after the stream joins
    right after that op, so that work on worker streams is ordered before
    it. Deallocation is stream-ordered: the memory is reused only by work
    issued after it on the current stream.
  }];
}

def CacheAllocations : Pass<"hostir-cache-allocations", "ModuleOp"> {
  let summary = "Keep intermediate buffers alive across executions";
  let description = [{
    Contract. Reads: host programs. Writes: module-level
    `hostir.cached_buffer`s for the static-shape, not zero-initialized
    allocations whose buffer each owns itself (not one a branch yields, as
    hostir-place-deallocations defines it) and that are not returned; in
    place of each allocation a `hostir.get_cached_buffer`, and no
    deallocation of it. Executions of the program then reuse the same
    memory (no allocator traffic, and a buffer shared through CUDA IPC keeps
    its handle valid for the peers).

    Buffers take turns in memory: one whose span in the function's body
    (from the first op that uses a value referring to it to the last,
    ops with regions counting as a whole) ends before another's begins
    hands its bytes on, so that a program holds about the most its buffers
    need at once rather than their sum. Work issued after a span is ordered
    after all of it: the current stream joins the worker streams right
    after a pipeline, and worker streams wait for it before one. In program
    order of first use, a buffer takes, of the free storages of its memory
    kind, the smallest that holds it, else the largest, which grows; a
    storage two or more buffers share is declared as bytes (`storage`), one
    used alone keeps its buffer's type. Buffers allocated inside a region
    (each iteration of a loop would take the same memory), shared with
    peers through IPC (their accesses are not ordered by this program) or
    of symmetric memory keep memory of their own.
  }];
}

def ExpandAliasSelects : Pass<"hostir-expand-alias-selects", "func::FuncOp"> {
  let summary = "Turn alias_select views into memref subviews";
  let description = [{
    Contract. Reads: a host program. Writes: every `hostir.alias_select` as
    the `memref.subview` of its chunk (offset: the chunk index times the
    chunk's size along the dim), cast to the op's result type where the
    subview's inferred layout is more precise, so that upstream's memref
    lowering (expand-strided-metadata, finalize-memref-to-llvm) computes
    the view's descriptor. The first step of lowering host programs to LLVM.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def VerifyHostProgram : Pass<"hostir-verify-program", "func::FuncOp"> {
  let summary = "Check the `hostir` stage contract";
  let description = [{
    Reports every violation as an error: fuser ops left in a host program;
    allocations neither freed, cached nor returned; buffers freed through a
    value that does not own them (a view, or a buffer a branch yields) or
    that flow where no single value owns them (as
    hostir-place-deallocations defines it, with the same alias analysis);
    uses of a buffer (or of a value referring to it) after it was freed;
    buffers freed twice.
  }];
}

#endif // FUSER_DIALECT_HOSTIR_TRANSFORMS_PASSES_TD
