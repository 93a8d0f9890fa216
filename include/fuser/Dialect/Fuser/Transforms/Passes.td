//===- Passes.td - fuser dialect passes --------------------*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
#define FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyProgramSignature
    : Pass<"fuser-verify-program-signature", "func::FuncOp"> {
  let summary = "Check that a function's arguments and results can cross a "
                "program's boundary";
  let description = [{
    A compiled program exchanges whole values and shards with its caller:
    the runners cut a global input into the pieces its sharding names and
    put an output together from them, and the library's metadata records
    meshes and split dims. A partial argument or result (a pending
    reduction, which only the sum or maximum of every rank's piece gives)
    has no such piece, so each one is reported as an error naming it and the
    way out: annotate it without `partial`, or reduce inside the program
    (the result of a reduction that is not annotated partial is resolved
    before it is returned). Functions that are not programs (the unit
    tests of single passes) may keep partial boundaries: the program
    pipelines run this check first.
  }];
}

def GenerateVjp : Pass<"fuser-generate-vjp", "ModuleOp"> {
  let summary = "Add the reverse-mode derivative programs of each function";
  let description = [{
    For each function `@f` (every function with a floating-point input, or
    those `functions` names), adds three programs next to it:

    * `@f__vjp(f's inputs, one cotangent per floating-point output)` ->
      the gradient of each floating-point input, in order: JAX's `vjp`, the
      forward computed again inside;
    * `@f__fwd(f's inputs)` -> f's outputs, then the values the backward
      reads that f's inputs are not;
    * `@f__bwd(the inputs of f the backward reads, the values @f__fwd
      saved, the cotangents)` -> the gradients, as `@f__vjp` gives them.
      Its attribute `fuser.vjp_inputs` lists which of f's inputs it takes
      first.

    The backward is built from each op's derivative rule
    (`DifferentiableOpInterface`), in reverse order, over the values that
    both depend on a floating-point input and reach a floating-point
    output; a value used several times receives the sum of its cotangents.
    Ops whose derivative does not exist are reported where a gradient would
    have to pass through them. Integer and boolean values carry no gradient.

    Placement. The programs' boundaries are placed as f's are after
    sharding propagation: each cotangent as its output, each gradient as
    its input, each saved value as @f__fwd computes it, so that a caller
    passes pieces from one program to the next as they are. Inside, the
    backward's values carry no sharding: the pipeline places them as it
    places any program (propagation, then decomposition of each data
    movement, which turns the adjoint of a communication into the
    communication it needs).

    `save` chooses what @f__fwd saves and @f__bwd recomputes: with
    `library-calls` (the default) it saves the results of products,
    attention and data movements the backward reads and @f__bwd recomputes
    the elementwise ops, reductions and views between them (activation
    checkpointing of everything but the library calls); a product that
    propagation leaves pending a sum is not saved but the first value
    computed from it once resolved, which crosses without an allreduce.
    With `all` it saves every forward value the backward reads.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "The functions to differentiate (default: every function with "
               "a floating-point input)">,
    Option<"save", "save", "::mlir::fuser::SavedValues",
           /*default=*/"::mlir::fuser::SavedValues::LibraryCalls",
           "What @f__fwd saves for @f__bwd",
           "::mlir::fuser::savedValuesChoices()">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

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
    axis is taken once per value, so a parallel axis is propagated once.
    Where that order leaves operands to move, another sharded operand goes
    first when that moves fewer elements (each operand that loses a split
    and each partial result counted whole): a weight gradient g^T x of a
    feature-split g and a sequence-split x gathers x rather than resolve a
    weight-sized partial product. A
    split reduction factor (a matmul's K, a reduced dim) makes the results
    partial. A view of a partial value is partial too, except a broadcast or
    expand: its result is resolved, so that the partial value is resolved
    at its smaller size, before it is repeated. Backward propagation
    reaches unannotated values from their uses (e.g. the residual input of
    an add, values of creation ops); unannotated function arguments receive
    only a mesh and stream splits, never mesh-axis splits, so the caller's
    data layout is the user's choice. Stream splits propagate like mesh
    splits.

    Through a reshape a split must fall on the outer factor of the reshaped
    dim and divide it; otherwise the pass reports which dim and why, unless
    the op's results are annotated too: their placement is then the user's,
    and decomposition moves the data between both sides. Values
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
    whose sum is partial (its result is, or its operands split the
    contracted dim) becomes a linear without bias, the resolution of the
    partial sum and an add of the bias, so that the bias is added once.
    A reduction over a sharded dim stays a local reduction whose partial
    result is resolved by the communication its consumers need; a var_mean
    over a sharded dim becomes the mean and the sum of squared differences
    from it (per-rank variances do not combine), so that neither gathers
    its input. Consumers that need a value in the same placement share one
    communication, also those that read it through views (reshape,
    permute, ...): the views are repeated on the moved value, so a weight
    gradient and a data gradient reading one output gradient gather it once. Where neither side's placement passes through the op
    (both annotated: a split that would straddle a reshape's factors, or of
    a dim a slice, pad or cat changes), the operands are gathered along the
    dims whose split cannot pass, the op computes on the rest and its result
    is moved to its placement. Placement changes no communication makes
    (making a value partial) are reported.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
  let options = [
    Option<"reshardPlacement", "reshard-placement",
           "::mlir::fuser::ReshardPlacement",
           /*default=*/"::mlir::fuser::ReshardPlacement::Auto",
           "Where to move data for a resharding op: 'before' (convert its "
           "operands), 'after' (convert its result, when its operands agree), "
           "or 'auto' (whichever moves fewer elements; after on a tie)",
           "::mlir::fuser::reshardPlacementChoices()">
  ];
}

def ExposePipelinedAxes : Pass<"fuser-expose-pipelined-axes", "func::FuncOp"> {
  let summary = "Plan each pipelined communication and give its mesh axis its own dim";
  let description = [{
    Contract. Reads: a `decomposed` function. Writes: reshapes, the types of
    the communications and library calls it rewrites, and on each rewritten
    communication the plan it chose (`fuser.pipelining =
    #fuser.pipelining<none|collective|ring>`, which host lowering follows);
    the function stays `decomposed` and computes the same values.

    A pipelined communication is one a stream split asks to overlap with
    the library calls (linear, matmul) beside it:
    * AG+GEMM: an allgather over mesh axis `a` (of n ranks) that library
      calls read as their row input, with a stream split on the gathered
      dim either on the allgather's input (chunks of each rank's block) or
      on its result or the users' results (chunks of the whole dim); its
      other users (a backward's weight gradient contracting the gathered
      rows) read the whole gathered value after the pipeline, through a
      reshape placed where the first of them reads it;
    * GEMM+RS: a library call whose partial result only a reduce_scatter
      reads, with a stream split on the scattered dim of the reduce_scatter's
      result or of the partial result;
    * GEMM+allreduce: a library call whose partial result only an allreduce
      reads, both stream-split on a row dim no mesh axis splits.

    The plan is the `pipelining` option's, or with `pipelining=auto` the
    fastest by the cost model: no overlap, the collective pipeline, or the
    ring, and the chunk count. The cost model weighs the machine's
    calibration (its GEMM rates and links), found as
    docs/stream-pipelining.md ("Calibrations") says: the `calibration`
    option (a file, a folder holding one per machine, or `builtin`), else
    `$FUSER_CALIBRATION`, else the default folder
    (`${XDG_DATA_HOME:-~/.local/share}/fuser/calibrations`), else the
    built-in 2 x H200 machine; in a folder, the one measured on as many
    devices as the function's meshes span (and `ranks-per-node` where
    given), an error where several fit. The function records which in
    `fuser.calibration`.

    Nodes: each `ranks-per-node` consecutive ranks are a node (0: as the
    calibration's machine, else one node). A pipeline whose teams hold
    ranks of different nodes is marked `fuser.between_nodes`: the cost
    model rates its NCCL transfers by the calibration's network link, and
    its ring moves blocks over NCCL, never CUDA IPC (with
    `backend=cuda_ipc`, a warning says so).
    `pipelining=auto` also weighs the same patterns where no stream split
    asks (a program that annotates only its arguments, as a transformer
    layer does): chunks of each rank's block, a GEMM+allreduce chunked on
    the longest row dim no mesh axis splits; one the cost model would run
    whole, or in chunks that do not divide the rows, stays as written.
    A communication over a team of one moves nothing and stays as written
    in every mode.
    For AG+GEMM and GEMM+RS the dim [M] is then reshaped into [n, M/n]
    around the communication and the library calls: the axis splits the
    outer dim and the stream split chunks the inner one on both sides, so
    each pipeline step moves and computes one chunk of a whole dim. A ring
    GEMM+allreduce becomes a ring GEMM+RS followed by an allgather. Values
    reshaped back to the user's types keep their stated stream splits;
    values that state a layout are left alone.
  }];
  let options = [
    Option<"pipelining", "pipelining", "::mlir::fuser::PipeliningPolicy",
           /*default=*/"::mlir::fuser::PipeliningPolicy::Collective",
           "How pipelined communications overlap: collective, ring, none or "
           "auto (the cost model chooses, with the chunk count)",
           "::mlir::fuser::pipeliningChoices()">,
    Option<"backend", "backend", "::mlir::hostir::Backend",
           /*default=*/"::mlir::hostir::Backend::NCCL",
           "Communication library the program posts on: with cuda_ipc, a "
           "ring moves blocks through the copy engine",
           "::mlir::fuser::backendChoices()">,
    Option<"calibration", "calibration", "std::string", /*default=*/"\"\"",
           "The machine's calibration for pipelining=auto: a JSON file, a "
           "folder of them, or 'builtin' (default: $FUSER_CALIBRATION, "
           "else the default folder, else the built-in 2 x H200 machine)">,
    Option<"ranksPerNode", "ranks-per-node", "int64_t", /*default=*/"0",
           "Ranks of each node (consecutive ranks); 0: the calibration's "
           "machine's, else every rank on one node">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def ReorderShardedAxis : Pass<"fuser-reorder-sharded-axis", "func::FuncOp"> {
  let summary = "Lay out communication buffers the way the libraries need";
  let description = [{
    Contract. Reads: a `decomposed` function. Writes: layouts (sharding
    order and contiguity) of communication operands and results, and
    transposing copies (`fuser.set` to another layout) where needed, so that
    every communication buffer is contiguous and, for allgather, gather,
    scatter, reduce_scatter and all_to_all, has the dim whose per-rank
    blocks the communication moves outermost.

    A buffer whose layout is free (stated nowhere, not a function argument,
    not returned) gets the required layout; one whose layout is fixed and
    does not comply gets one copy on that side: before the communication for
    an operand, after it for a result (so a non-contiguous layout the user
    asked for on a result is honoured by the copy). Compliant buffers are
    left alone.
  }];
}

def MarkAliases : Pass<"fuser-mark-aliases", "func::FuncOp"> {
  let summary = "Turn meta-op chains at function boundaries into views";
  let description = [{
    Contract. Reads: the alias analysis. Writes: the view layouts of alias
    values whose layout is free, and `fuser.segment_set` boundaries.

    A chain of view ops (set, permute, reshape, squeeze, broadcast, expand,
    slice) between the last compute op and a returned value, or between a
    function argument and the first compute ops, needs no kernel: it is a
    view of a buffer. A `fuser.segment_set` separates such a chain from the
    compute next to it, so segmentation puts it in a view-only segment. The
    boundary has the type of the value it separates (sharding and layout are
    kept, so no communication appears). A view op whose result feeds compute
    between compute ops stays with that compute (no over-segmentation).
    The views of arguments and their boundaries move before the function's
    first other op: they depend on arguments only, and where they stood a
    boundary would end the kernel segment around them (segments are runs in
    program order), splitting a layer norm into a kernel per broadcast.
    Declarations are left alone.
  }];
}

def InferAllocationOrder : Pass<"fuser-infer-allocation-order", "func::FuncOp"> {
  let summary = "Propagate memory order from inputs to outputs";
  let description = [{
    Contract. Reads: layouts of function arguments and of values a previous
    pass or the user fixed, and the ops' sharding rules. Writes: the layouts
    of results whose layout is free.

    Each op's results take the memory order of the operand with the most
    dims larger than 1 that is not row-major, mapped through the op's
    factors: result dims the operand has keep its order, innermost last,
    each placed where its innermost factor lies (a dim merging factors apart
    in memory keeps the operand's fastest factor fastest, so the copy that
    makes it moves runs instead of transposing); the others go outermost in
    their logical order. Results of library calls
    (matmul, linear) stay row-major, and views keep the layout their alias
    analysis gave them.
  }];
}

def FinalizeLayouts : Pass<"fuser-finalize-layouts", "func::FuncOp"> {
  let summary = "Fix the remaining layout decisions and check them";
  let description = [{
    Contract. Reads: a function after the layout passes. Writes: whether
    each stream-split value is allocated per chunk, and reports (as errors)
    communication buffers that are not contiguous with their block dim
    outermost and values whose local shape cannot be computed. Leaves a
    function that meets the `laid-out` contract.

    A stream split enters a value's allocation (`chunked`: only the chunk of
    the current pipeline step is allocated) only for intermediates whose
    every consumer splits the same data into the same chunks; function
    arguments and returned values, and values a consumer reads whole, are
    allocated whole.
  }];
}

def FuseLibraryEpilogues : Pass<"fuser-fuse-library-epilogues",
                                 "func::FuncOp"> {
  let summary = "Fold activations into the matrix products they read";
  let description = [{
    Contract. Reads: `laid-out` functions. Writes: the `activation` of
    `fuser.matmul` and `fuser.linear` ops; the function stays `laid-out`.

    A `fuser.gelu` with the tanh approximation or a `fuser.relu` whose
    operand is a product that nothing else reads (directly, or through the
    reshape a pipeline puts after a chunked product), of the same placement
    and layout (the product writes the activation's buffer) and not a
    partial sum (which is complete only after its reduction), is removed
    and the product applies it: cuBLASLt computes it in its
    epilogue while each tile is on chip, saving a kernel that reads and
    writes the whole result again. In a pipelined product every chunk
    applies it.

    ```mlir
    %h = fuser.linear %x, %w : (...) -> tensor<64x128xbf16, #cols>
    %a = fuser.gelu %h approximation = tanh : ...
    // becomes
    %a = fuser.linear %x, %w activation = gelu_tanh : (...) -> ...
    ```
  }];
}

def Segment : Pass<"fuser-segment", "ModuleOp"> {
  let summary = "Partition functions into kernels, library calls, communications and views";
  let description = [{
    Contract. Reads: `laid-out` functions, the alias analysis, and how ops
    classify (CommunicationOpInterface, the LibraryCall and SegmentBoundary
    traits, ViewOpInterface, ShardingRuleOpInterface). Writes: a kernel
    module `@kernels` with one function per fused kernel segment, and
    `fuser.kernel` ops in place of the segments (`segmented` stage).

    A communication is a segment of its own, as is a library call (matmul,
    linear); views that need no copy stay views; a `fuser.segment_set`
    separates segments. Every maximal run of the remaining ops (pointwise,
    reductions, creation ops, views between them) in program order becomes
    one kernel: fewer, larger kernels, and never a communication inside one.
    A value a run reads from an earlier run, which that run computes
    pointwise (or by creation ops and broadcasts) from values in memory
    anyway, is computed again at the start of the later run when that reads
    fewer bytes than writing the value and reading it back (a widened copy
    of a bf16 activation, a dropout mask); the earlier run drops what only
    the later one read.
    Two exceptions keep each kernel to one iteration space, which is what
    one schedule maps onto the GPU. Pieces of the run that share no value
    are kernels of their own, one per shape of the largest value they
    compute (the cast of an allreduced weight gradient beside a layer norm's
    backward had every element fold each row again). And reductions folding the leading dims of their input (bias
    and layer-norm weight gradients, summed over batch and sequence) beside
    other work, which a schedule along the rows can only fold again per
    element. Each group of them over one input shape and dims, with the ops
    that read them at the reduced shape, becomes a kernel of its own after
    the rest of the run, recomputing the ops of the run it reads (pointwise
    work is cheaper again than through memory); one the run reads on at
    full size (a broadcast back) stays.
    A kernel function takes the per-rank buffers of its inputs and then of
    its outputs (memrefs of the local shapes, strided as laid out) and
    computes on local tensors (`bufferization.to_tensor`, the fuser ops with
    local shapes, `bufferization.materialize_in_destination`). Iota and
    random draws with a split result depend on where the local piece lies:
    the kernel then also takes the rank's index along each mesh axis that
    splits them (`index` arguments marked `fuser.mesh_position`) and gives
    the ops the piece's global offsets (`at [...]`).
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect"];
}

def ReportCommunication : Pass<"fuser-report-communication", "ModuleOp"> {
  let summary = "Report the bytes each rank communicates, per function";
  let description = [{
    Contract. Reads: `decomposed` functions (a stream split or a layout does
    not change what they communicate). Writes: nothing to the IR.

    For every fuser.comm op, its kind, mesh axis and team size, the bytes of
    its operand's and result's local pieces, and the bytes a rank of its
    team sends and receives; per function, the sums. The counts are the
    least any algorithm moves without reducing inside the network
    (allgather of a piece P over n ranks: (n-1)·P each way; allreduce of S:
    2·(n-1)/n·S each way, as a reduce_scatter and an allgather); the
    convention for every kind is in docs/communication-volume.md. Without
    `output` the report is a remark on each communication and each
    function; with it, a JSON document.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file ('-' for stdout) instead "
           "of emitting remarks">
  ];
}

def VerifyStage : Pass<"fuser-verify-stage", "func::FuncOp"> {
  let summary = "Check that a function meets the contract of a stage";
  let description = [{
    Reports every violation of the chosen stage's contract as an error:
    `propagated`: every tensor value has a sharding (or none does);
    `decomposed`: also, no compute op reshards (every placement change is a
    fuser.comm op, each of which changes one mesh axis by construction);
    `laid-out`: also, every communication buffer is contiguous, with the
    dim whose blocks the communication moves outermost where it has one;
    `segmented`: also, every fuser op is a kernel, a library call, a
    communication, a view or a segment boundary.
  }];
  let options = [
    Option<"stage", "stage", "::mlir::fuser::CompilerStage",
           /*default=*/"::mlir::fuser::CompilerStage::Decomposed",
           "The stage whose contract to check: propagated, decomposed, "
           "laid-out or segmented",
           "::mlir::fuser::compilerStageChoices()">
  ];
}

#endif // FUSER_DIALECT_FUSER_TRANSFORMS_PASSES_TD
