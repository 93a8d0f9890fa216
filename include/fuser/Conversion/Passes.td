//===- Passes.td - conversions between the project's dialects -*- tablegen -*-===//

#ifndef FUSER_CONVERSION_PASSES_TD
#define FUSER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertShardToFuser : Pass<"convert-shard-to-fuser", "ModuleOp"> {
  let summary = "Import upstream shard dialect annotations as fuser shardings";
  let description = [{
    Contract. Reads: a module annotated with upstream's `shard` dialect
    (`shard.grid`, `shard.sharding`, `shard.shard`) whose compute ops are
    fuser ops. Writes: the same program with the shardings in the tensor
    types, ready for fuser-propagate-shardings, and no shard op left.

    Each `shard.grid` becomes a `#fuser.mesh` of its shape; the `split_axes`
    of a `shard.sharding` become the per-dim mesh axes of a
    `#fuser.sharding` on that mesh, in the same order (outermost first),
    with dims beyond the listed ones replicated. `shard.shard %x to %s`
    gives `%x` the sharding (a function argument or a returned value also
    in the function type); `shard.shard %x to %s annotate_for_users` gives
    its users `%x` in sharding `%s`, through a `fuser.set` when `%x` is not
    already placed that way.

    Refused, with a diagnostic at the op that states them: grids with a
    dynamic size (a mesh has a fixed number of devices), `halo_sizes` and
    `sharded_dims_offsets` (every shard of a fuser tensor has the same size
    and no halo), shardings not defined by `shard.sharding`, used by other
    ops or referring to an unknown grid, split axes for more dims than the
    tensor has or that do not divide it, encodings other than a
    `#fuser.sharding`, two different shardings of one value, annotations
    of block arguments that are not function arguments, a function whose
    signature changes while something calls it, returns that disagree on
    the shardings, and every other shard op (collectives, queries).
    Nothing is rewritten unless everything imports.

    The compiler (fuser-compile) runs this pass before anything else, so
    annotated programs compile as they are.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def ConvertLinalgToFuser : Pass<"convert-linalg-to-fuser"> {
  let summary = "Raise upstream tensor compute ops to their fuser equivalents";
  let description = [{
    Contract. Reads: a program whose compute is written with upstream ops on
    ranked tensors (linalg on tensors with the tensor, arith and math ops
    that accompany it), possibly with fuser shardings in the types
    (convert-shard-to-fuser). Writes: the same program with every op that
    has a fuser equivalent replaced by it, each value keeping its type
    (sharding included), so segmentation, host lowering and kernel
    generation, which expect fuser ops, compile it. The name follows the
    level the input is written at, linalg on tensors, as
    convert-fuser-to-linalg names its output, made of the same
    dialects.

    Raised:
    - `linalg.matmul` and `linalg.batch_matmul` with their default indexing
      maps and one element type: `fuser.matmul`. The accumulator is dropped
      when it holds zeros (`tensor.empty`, a fill or splat of zero), added
      with `fuser.add` otherwise;
    - `linalg.transpose`: `fuser.permute`;
    - linalg's named elementwise ops (add, sub, mul, div, max, min, powf,
      negf, abs, exp, log, sqrt, rsqrt, tanh, erf) whose operands have the
      result's shape and element type, and the arith and math ops on ranked
      tensors they stand for (addf/addi, subf/subi, mulf/muli, divf/divsi,
      maximumf/maxsi, minimumf/minsi, math.powf, negf, math.absf/absi,
      math.exp/log/sqrt/rsqrt/tanh/sin/cos/erf): the fuser pointwise op;
    - `tensor.expand_shape` and `collapse_shape` of static shapes:
      `fuser.reshape`;
    - splat `arith.constant` tensors and `linalg.fill` of a constant (not
      when it is another op's accumulator, which the sharding rules read as
      neutral for partial sums): `fuser.full`.
    The `outs` of a raised linalg op (other than a matmul's nonzero
    accumulator) are dropped, and with them the `tensor.empty` and fill
    ops that only they used.

    Every other op, and forms the list above excludes (user-defined
    indexing maps, mixed element types, reshapes of dynamic shapes,
    unsigned integer ops), stays as it is: sharding propagation and decomposition
    handle them through their external models, and the passes after those
    report what they cannot compile. No folding happens on the way.

    The compiler (fuser-compile) runs this pass right after
    convert-shard-to-fuser.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def ConvertFuserToHostIR : Pass<"convert-fuser-to-hostir", "ModuleOp"> {
  let summary = "Turn segmented fuser functions into host programs";
  let description = [{
    Contract. Reads: `segmented` functions (one mesh per function). Writes:
    for each, a host program of the same name over per-rank buffers
    (`memref`s of the local shapes, strided by the layouts): kernel segments
    become an allocation per output and a `hostir.launch` of the outlined
    kernel (with the rank's team index for each argument marked
    `fuser.mesh_position`); library calls become `hostir.matmul`/`hostir.linear` into an
    allocated output; each communication becomes an allocation, the team of
    the executing rank along its mesh axis (`hostir.rank`, `hostir.team`),
    the collective on the chosen backend, and a `hostir.wait`; all_slice is
    an `hostir.alias_select` of the rank's block; views become buffer views
    (`memref.subview` for slices, `memref.reinterpret_cast` with the view's
    strides otherwise, stride 0 for repeated data; strides known only at run
    time are read with `memref.extract_strided_metadata`).
    The kernel module stays as it is, except that a kernel launched once
    takes the buffer views its launch passes as its parameters' layouts.

    Consecutive ops stream-split into the same chunks (library calls, and
    communications that move blocks of another dim than the stream dim) are
    pipelined: one loop runs them chunk by chunk, marked
    `hostir.stream_parallel` for hostir-assign-streams. Values that live
    only inside the loop get one contiguous slot per chunk. A group runs
    as its communication's plan (`fuser.pipelining`, set by
    fuser-expose-pipelined-axes) says, or else as the `pipelining` option
    says: `none` runs it whole; with `ring`, an allgather read by library
    calls as their rows and a library call whose partial result is
    reduce-scattered (in the form fuser-expose-pipelined-axes gives them)
    run as point-to-point steps between team members instead: coalesced
    send/recv for nccl and mpi, shared buffers, copies and signals for
    cuda_ipc (docs/stream-pipelining.md).

    Host ops already in a function (hostir, arith, memref and scf ops that
    take and give no tensors) are kept; the first op nothing lowers is
    reported.

    A reshape that merges dims which are not one strided line in memory
    (or whose strides are known only at run time) is not a view and is
    reported; segmentation leaves such reshapes in kernels.

    Every rank runs the host program. When the function's values live on
    several meshes, kernel launches, library calls and communications run
    only on the devices of their mesh (`scf.if` on `hostir.in_mesh`);
    buffers are allocated by every rank, so ranks outside a mesh hold
    placeholders. A send_recv looks up the executing rank's role (send to,
    receive from, or keep) with `scf.index_switch` on the rank and posts on
    the team of all devices of both meshes, a send and a receive of one
    rank together.
  }];
  let dependentDialects = ["::mlir::hostir::HostIRDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"backend", "backend", "::mlir::hostir::Backend",
           /*default=*/"::mlir::hostir::Backend::NCCL",
           "Communication library: nccl, mpi or cuda_ipc (CUDA IPC copies "
           "move the blocks of ring pipelines; every other communication "
           "posts on NCCL)",
           "::mlir::fuser::backendChoices()">,
    Option<"pipelining", "pipelining", "::mlir::fuser::PipeliningPolicy",
           /*default=*/"::mlir::fuser::PipeliningPolicy::Collective",
           "How stream-split groups run unless a communication of the "
           "group carries its own plan (#fuser.pipelining): 'collective' "
           "(one collective per chunk), 'ring' (point-to-point steps between "
           "team members), 'none' (whole) or 'auto' (collective)",
           "::mlir::fuser::pipeliningChoices()">
  ];
}

def ConvertFuserToLinalg : Pass<"convert-fuser-to-linalg", "ModuleOp"> {
  let summary = "Turn the kernel module's fuser ops into linalg on tensors";
  let description = [{
    Contract. Reads: the kernel module `@kernels` that fuser-segment wrote
    (functions over per-rank buffers computing on local tensors). Writes:
    the same functions with every fuser op replaced by upstream ops on the
    same tensors, ready for one-shot bufferization and lowering to loops:
    `linalg.generic` for pointwise ops, reductions (sum, max, min, mean,
    var_mean), broadcasts, expands, casts, copies, iota and random draws;
    `linalg.fill` for full; `linalg.transpose` for permute;
    `tensor.extract_slice` for slices and selects, `tensor.insert_slice` for
    cat and pad; `tensor.collapse_shape`/`expand_shape` for reshapes and
    squeezes. f16 and bf16 compute in f32; gelu uses erf (or the tanh
    approximation it names). Random draws hash the seed with each element's
    global coordinates (a splitmix64 mix; Box-Muller for normal), so a
    sharded tensor holds the unsharded one's values.

    Ops that never belong in a kernel (library calls, communications) are
    reported with their location.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def ConvertHostIRToLLVM : Pass<"convert-hostir-to-llvm", "ModuleOp"> {
  let summary = "Turn host programs into LLVM functions calling the runtime";
  let description = [{
    Contract. Reads: host programs without chunk views, loops or affine
    maps (hostir-expand-alias-selects, convert-scf-to-cf,
    expand-strided-metadata, lower-affine: `buildHostToLLVMPipeline`) and,
    for `target=cpu`, whose kernel module is already in the LLVM dialect
    (fuser-kernels-to-llvm). Writes: an LLVM-dialect module where every
    hostir op is a call of the runtime's C ABI
    (include/fuser/Runtime/Runtime.h), each memref passed as a FuserBuffer
    built from its descriptor, element types, reduction kinds and memory
    kinds as the runtime's enums. A runtime call that fails (a failure
    status, a null result) makes the program return at once with null
    results after calling fuser_note_failure: the caller asks
    fuser_take_failure and reads the runtime's message, and the process
    goes on. Host programs get a C entry point (`_mlir_ciface_<name>`)
    taking memref descriptors and a packed one (`_mlir_<name>`, taking an
    array of pointers to the C entry point's arguments, for any arity); on
    entry they select the target's runtime
    backend (`fuser_use_backend`), then check that every memref argument
    has the shape they were compiled for.

    `target=cpu` (the host backend): launches call the kernel functions,
    moved next to the host programs; CUDA IPC ops are reported;
    communications planned for NCCL run over MPI.
    `target=cuda` (the CUDA backend): CUDA IPC ops are calls (a peer's
    buffer is a descriptor over the address the runtime opened); kernel
    launches of a `gpu.binary` (fuser-kernels-to-ptx) become
    `fuser_launch_kernel` calls with the embedded PTX, each memref passed
    as a pointer to its first element; communications on MPI are reported
    (the CUDA backend posts on NCCL).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"target", "target", "::mlir::fuser::HostTarget",
           /*default=*/"::mlir::fuser::HostTarget::CPU",
           "What the programs run on: cpu (the runtime's host backend) or "
           "cuda (its CUDA backend)",
           "::mlir::fuser::hostTargetChoices()">
  ];
}

def CopiesToKernels : Pass<"fuser-copies-to-kernels", "ModuleOp"> {
  let summary = "Turn copies the copy engine cannot make into copy kernels";
  let description = [{
    Contract. Reads: host programs whose `hostir.copy` ops may have a side
    whose rows are not contiguous (a transposed view, a broadcast).
    Writes: for each such copy of static shape, a kernel function in the
    kernel module (`@kernels`, created if missing) that reads the source
    and writes the target, and a `hostir.launch` of it in the copy's place
    (grid and block are its schedule's, set by `fuser-emit-gpu-kernels`).
    Copies the copy engine makes (`cudaMemcpy2DAsync` rows) are left alone.
    Run for GPU targets only: CPU ranks copy any layout.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::arith::ArithDialect"];
}

def ChooseGPUKernelSchedules
    : Pass<"fuser-choose-gpu-kernel-schedules", "ModuleOp"> {
  let summary = "Choose how each GPU kernel maps its elements to threads";
  let description = [{
    Contract. Reads: the kernel module `@kernels` of linalg on tensors
    (convert-fuser-to-linalg). Writes: on each kernel function, the
    `#fuser.gpu_schedule` chosen for it (attribute `fuser.gpu_schedule`),
    and nothing else: choosing creates no IR. A kernel whose elements
    cannot be computed on GPUs (an op without GPU code generation, a
    buffer of dynamic shape, a view with run-time offsets) gets a
    diagnostic naming the op.

    The choice follows the kernel's shapes and layouts and the target's
    description (warp size, vector width, shared memory and threads per
    block; from `chip`), most specific first:
    - rows: every reduction folds the same trailing dims of one iteration
      space and each value read of a reduction is at the row its reader
      computes (softmax, layer and RMS norms, var_mean, row sums): a warp
      per row for rows a warp covers in two 16-byte lane groups per
      thread, several rows to a block; a block per row otherwise, as many
      threads as cover the row in two groups each (up to 1024);
    - outer_reduction: every reduction folds the same leading dims and the
      outputs are indexed by the kept dims (bias gradients, statistics over
      a batch): 32 slices of 8 threads per block, if the slices' partial
      values fit in shared memory;
    - transpose: no reduction, and some input's fastest dim is not the
      outputs' (all of one layout): 32x32 tiles through shared memory;
    - pointwise: anything else, a thread per lane group in blocks of 256,
      as many blocks as the outputs need (no schedule depends on the
      multiprocessor count).
    Vector width: 16 bytes of the narrowest element the kernel's buffers
    hold, halved until it divides the extent the lanes run along.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The NVIDIA chip the kernels are for (sm_70 .. sm_120)">
  ];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
}

def EmitGPUKernels : Pass<"fuser-emit-gpu-kernels", "ModuleOp"> {
  let summary = "Emit each kernel as the gpu.func its schedule describes";
  let description = [{
    Contract. Reads: the kernel module `@kernels` of linalg on tensors, each
    function with its `#fuser.gpu_schedule` (fuser-choose-gpu-kernel-
    schedules), and the host programs launching them. Writes:
    `gpu.module @kernels` with one `gpu.func` kernel per function, and
    every `hostir.launch` of it given its schedule's grid and block.

    A schedule is checked against its kernel before anything is emitted: a
    missing schedule, or one that does not fit (a rows schedule on a kernel
    without row reductions, a block count other than the rows need, a
    vector width the buffers' extents do not allow), is a diagnostic.
    Emission then follows the schedule exactly; it cannot fail halfway.

    Every value is computed where it is used, from the kernel's inputs, so
    a fused kernel reads each input once and writes each output once:
    - rows: each thread keeps its part of the row in registers, folds it,
      and the threads of a row combine their values with
      `gpu.subgroup_reduce` (lowered to shuffles here) and, for a block,
      the warps' values through shared memory behind one barrier;
    - outer_reduction: each slice folds its rows down the kept columns
      (coalesced loads at every step); the first slice folds the slices'
      partial values in order, so the result depends on the launch only;
    - transpose: a 32x33 shared-memory tile, computed along the load dim
      and stored along the store dim;
    - pointwise: a grid-stride loop over the outputs in their memory order;
      reductions left in it fold per element in a loop.
    Lanes move as one vector access where the layout allows; whether the
    buffers are 16-byte aligned is checked at run time, with a scalar path
    otherwise. f16 and bf16 compute in f32 (as the linalg bodies say).

    Kernel parameters: each memref is passed as a pointer to its first
    element, so parameters have the launch's shape and strides with offset
    0 (the host lowering adds the offset); strides known only at run time
    follow the buffers as index parameters.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "The NVIDIA chip the kernels are for (as the schedules were "
           "chosen)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect"];
}

def ContractKernelArithmetic
    : Pass<"fuser-contract-kernel-arithmetic", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Let GPU kernels fuse a multiply and an add into one FMA";
  let description = [{
    Contract. Reads: a `gpu.module` of scheduled kernels (arith on scalars
    and vectors). Writes: the `contract` fast-math flag on each of its
    floating-point arith ops, so that the NVPTX backend fuses a multiply
    feeding an add into one `fma.rn` (rounded once, so at least as accurate
    as the pair), as CUDA compilers do by default (`nvcc -fmad=true`).
    Without it every product and sum is its own `mul.rn`/`add.rn`, which
    ptxas may not fuse: a GELU derivative over bf16 (a tanh and twenty
    arithmetic operations per element) then issues enough instructions to
    fall behind the memory it streams. Other flags (reassociation,
    approximate functions) stay off: they change results by more than one
    rounding. Host code and CPU kernels are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def VerifyKernelBinary : Pass<"fuser-verify-kernel-binary", "ModuleOp"> {
  let summary = "Reject PTX that calls functions it does not define";
  let description = [{
    Contract. Reads: `gpu.binary` ops holding PTX (gpu-module-to-binary with
    `format=isa`). Writes: nothing. Reports any PTX that declares an
    external function, such as a libdevice math function (`__nv_expf`) left
    unlinked when no libdevice was found: such PTX would only fail when the
    driver loads it.
  }];
}

#endif // FUSER_CONVERSION_PASSES_TD
