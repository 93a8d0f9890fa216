//===- FuserAttrs.td - device mesh and sharding attributes -*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD
#define FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD

include "fuser/Dialect/Fuser/IR/FuserBase.td"
include "mlir/IR/TensorEncoding.td"

class Fuser_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Fuser_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A part of #fuser.sharding: written only inside a sharding, whose parser
// and printer handle it, so it has no syntax of its own.
class Fuser_ShardingPart<string name> : AttrDef<Fuser_Dialect, name> {
  let attrName = "fuser.sharding." # !tolower(name);
}

def Fuser_MeshAttr : Fuser_Attr<"Mesh", "mesh"> {
  let summary = "An n-D array of device ids (ranks)";
  let description = [{
    A device mesh: its shape and the device id at each position, row-major.
    Mesh axes are the units of sharding; axis 0 is the outermost (the
    innermost axis is nvFuser's DIDx). When `devices` is omitted the ids are
    0 .. N-1 in row-major order.

    ```mlir
    #fuser.mesh<[2, 4]>
    #fuser.mesh<[2, 2], devices = [0, 2, 1, 3]>
    ```

    A mesh with a size-1 axis is the slice of a larger mesh at one index of
    that axis; gather, scatter, reduce and broadcast move data between a mesh
    and such a slice.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "size of each mesh axis">:$shape,
    ArrayRefParameter<"int64_t", "device ids, row-major; empty means 0..N-1">:$devices
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A mesh with implied device ids 0 .. N-1.
    static MeshAttr get(::mlir::MLIRContext *context,
                        ::llvm::ArrayRef<int64_t> shape) {
      return get(context, shape, {});
    }
    /// A mesh of `devices` in its canonical form (ids 0 .. N-1 implied).
    static MeshAttr getOfDevices(::mlir::MLIRContext *context,
                                 ::llvm::ArrayRef<int64_t> shape,
                                 ::llvm::ArrayRef<int64_t> devices);
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumDevices() const;
    int64_t getAxisSize(int64_t axis) const { return getShape()[axis]; }
    /// Device ids, row-major, whether stored explicitly or implied.
    ::llvm::SmallVector<int64_t> getDeviceIds() const;
    /// The size-1 slice of this mesh at `index` along `axis`.
    MeshAttr getSlice(int64_t axis, int64_t index) const;
    /// The same mesh in the runtime's plain C++ form.
    ::fuser::Mesh toMesh() const;
  }];
}

def Fuser_MeshPositionAttr : Fuser_Attr<"MeshPosition", "mesh_position"> {
  let summary = "the executing rank's index along one axis of a mesh";
  let description = [{
    Marks an `index` argument of a kernel function (attribute
    `fuser.mesh_position`): host lowering passes the executing rank's index
    along `axis` of `mesh` there, from which the kernel computes where its
    local piece lies in the global tensor.

    ```mlir
    func.func @k(%out: memref<4x8xf32>,
                 %r: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2]>, 0>})
    ```
  }];
  let parameters = (ins "MeshAttr":$mesh, "int64_t":$axis);
  let assemblyFormat = "`<` qualified($mesh) `,` $axis `>`";
  let genVerifyDecl = 1;
}

def Fuser_PartialAttr : Fuser_ShardingPart<"Partial"> {
  let summary = "The pending reduction of a partial value";
  let description = [{
    Part of a `#fuser.sharding`: the value is a pending reduction of kind
    `kind` across the mesh axes `axes` (e.g. after a row-parallel matmul).
    An allreduce or reduce-scatter over those axes resolves it. A sharding
    that is not partial has no `PartialAttr`; the axes are never empty and
    are kept sorted.

    Written inside a sharding as `partial = {0 : sum, 1 : sum}`.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "mesh axes holding partial values, sorted">:$axes,
    "ReductionKind":$kind
  );
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::ArrayRef<int64_t>":$axes,
                     "ReductionKind":$kind), [{
      ::llvm::SmallVector<int64_t> sorted(axes);
      ::llvm::sort(sorted);
      return $_get($_ctxt, sorted, kind);
    }]>
  ];
  let genVerifyDecl = 1;
}

def Fuser_StreamAttr : Fuser_ShardingPart<"Stream"> {
  let summary = "The split of one dim into chunks for host-side pipelining";
  let description = [{
    Part of a `#fuser.sharding`: dim `dim` of each rank's local piece is
    processed in `chunks` chunks, so that communication of one chunk
    overlaps computation on another. `chunked` (decided by layout
    finalization) means the buffer holds only the current chunk. The
    sharding checks that `dim` is one of its dims and `chunks` at least 1.

    Written inside a sharding as `stream = {1 : 4}` or
    `stream = {1 : 4 chunked}`.
  }];
  let parameters = (ins
    "int64_t":$dim,
    "int64_t":$chunks,
    "bool":$chunked
  );
}

def Fuser_LayoutAttr : Fuser_ShardingPart<"Layout"> {
  let summary = "The allocation order and contiguity of local buffers";
  let description = [{
    Part of a `#fuser.sharding`: `order` is a permutation of the logical
    dims from outermost to innermost in memory (row-major when empty), and
    `contiguity` says per allocated dim (in that order) whether it is
    contiguous with the next inner one (all contiguous when empty). Only
    what differs from those defaults is stored: a row-major, contiguous
    buffer has no `LayoutAttr`. The sharding checks both lists against
    its rank.

    Written inside a sharding as `order = [1, 0]` and
    `contiguity = [true, false]`.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"int64_t", "allocation order">:$order,
    OptionalArrayRefParameter<"bool", "contiguity per allocated dim">:$contiguity
  );
  let genVerifyDecl = 1;
}

def Fuser_ShardingAttr : Fuser_Attr<"Sharding", "sharding",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "How a tensor value is distributed over a device mesh";
  let description = [{
    The encoding of a tensor type in the fuser dialect. Shapes stay global;
    the sharding says how each rank's local piece is cut out of it:

    * `dims`: per logical dim the mesh axes that split it, outermost first.
      `[]` means the dim is replicated. A dim split by axes `[0, 1]` on a
      `[2, 4]` mesh is cut into 2 blocks by axis 0, each into 4 by axis 1.
    * `partial = {axis : kind}`: the value is a pending reduction across
      these mesh axes (e.g. after a row-parallel matmul); all axes share one
      reduction kind. An allreduce or reduce-scatter resolves it.
    * `stream = {dim : chunks}`: one dim is split into chunks for host-side
      pipelining (at most one dim). `stream = {dim : chunks chunked}`: the
      buffer holds only the current chunk (decided by layout finalization).
    * `order`: allocation order, a permutation of the logical dims from
      outermost to innermost (row-major when absent).
    * `contiguity`: per allocated dim (in allocation order) whether it is
      contiguous with the next inner one (all contiguous when absent).

    The optional fields may be written in any order and are printed in the
    order above. Every mesh axis is used at most once: by one dim or as a
    partial axis. Partial, stream, and order with contiguity are stored as
    `PartialAttr`, `StreamAttr` and `LayoutAttr`, each absent when unstated.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
    tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>
    tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []], stream = {1 : 4},
                                     order = [1, 0], contiguity = [true, false]>>
    ```
  }];
  let parameters = (ins
    "MeshAttr":$mesh,
    ArrayRefParameter<"::mlir::DenseI64ArrayAttr", "mesh axes per dim">:$dims,
    OptionalParameter<"PartialAttr">:$partial,
    OptionalParameter<"StreamAttr">:$stream,
    OptionalParameter<"LayoutAttr">:$layout
  );
  let assemblyFormat = [{
    `<` custom<Mesh>($mesh) `,` custom<DimAxes>($dims) ``
    custom<ShardingFields>(ref($dims), $partial, $stream, $layout) `>`
  }];
  let genVerifyDecl = 1;
  // Without a mesh there is no context to build in; getChecked reports that.
  let builders = [
    AttrBuilderWithInferredContext<(ins "MeshAttr":$mesh,
        "::llvm::ArrayRef<::llvm::SmallVector<int64_t>>":$dimAxes,
        CArg<"PartialAttr", "{}">:$partial,
        CArg<"StreamAttr", "{}">:$stream,
        CArg<"LayoutAttr", "{}">:$layout)>
  ];
  let extraClassDeclaration = [{
    int64_t getRank() const { return getDims().size(); }
    /// Mesh axes splitting `dim`, outermost first.
    ::llvm::ArrayRef<int64_t> getDimAxes(int64_t dim) const {
      return getDims()[dim].asArrayRef();
    }
    /// All dims' axis lists, to edit and pass to withDims.
    ::llvm::SmallVector<::llvm::SmallVector<int64_t>> getDimAxesList() const;
    /// All dims' axis lists in the runtime's plain C++ form.
    ::fuser::DimAxes toDimAxes() const;
    /// The dim `axis` splits, if any.
    std::optional<int64_t> getDimSplitBy(int64_t axis) const;
    bool isPartialOver(int64_t axis) const;
    /// Number of mesh axes the sharding uses (splitting dims or partial).
    int64_t getNumUsedAxes() const;
    bool isPartial() const { return static_cast<bool>(getPartial()); }
    /// Whether an order or contiguity is written (the canonical form leaves
    /// out row-major order and all-contiguous dims).
    bool statesLayout() const { return static_cast<bool>(getLayout()); }

    // The fields of the sub-attributes, with the defaults of an absent one.
    ::llvm::ArrayRef<int64_t> getPartialAxes() const {
      return isPartial() ? getPartial().getAxes() : ::llvm::ArrayRef<int64_t>();
    }
    ReductionKind getPartialKind() const {
      return isPartial() ? getPartial().getKind() : ReductionKind::Sum;
    }
    std::optional<int64_t> getStreamDim() const {
      return getStream() ? std::optional<int64_t>(getStream().getDim())
                         : std::nullopt;
    }
    int64_t getStreamChunks() const {
      return getStream() ? getStream().getChunks() : 0;
    }
    bool getStreamChunked() const {
      return getStream() && getStream().getChunked();
    }
    ::llvm::ArrayRef<int64_t> getOrder() const {
      return statesLayout() ? getLayout().getOrder() : ::llvm::ArrayRef<int64_t>();
    }
    ::llvm::ArrayRef<bool> getContiguity() const {
      return statesLayout() ? getLayout().getContiguity() : ::llvm::ArrayRef<bool>();
    }

    /// Number of ranks that hold distinct pieces of `dim`.
    int64_t getNumShards(int64_t dim) const;
    /// Why a tensor of `shape` cannot have this sharding (rank, divisibility,
    /// stream chunks); empty when it can.
    std::string checkShape(::llvm::ArrayRef<int64_t> shape) const;
    /// Local (per-rank) shape of a tensor of `globalShape` with this sharding.
    ::llvm::SmallVector<int64_t> getLocalShape(::llvm::ArrayRef<int64_t> globalShape) const;

    /// Same sharding with the dims' axis lists replaced (partial, stream and
    /// layout kept).
    ShardingAttr withDims(::llvm::ArrayRef<::llvm::SmallVector<int64_t>> dimAxes) const;
    /// Same sharding with `axis` taken off whatever dim it splits (if any)
    /// and placed on `dim` at `position` among its axes (at most after the
    /// last): the placement a communication over `axis` moves to.
    ShardingAttr withAxisOnDim(int64_t axis, int64_t dim,
                               int64_t position) const;
    /// Same sharding without `axis` splitting any dim.
    ShardingAttr withoutAxis(int64_t axis) const;
    /// Same sharding with the partial axes replaced (none: not partial).
    ShardingAttr withPartial(::llvm::ArrayRef<int64_t> axes, ReductionKind kind) const;
    /// Same sharding no longer partial over `axis`: the placement a
    /// reduction over that axis produces.
    ShardingAttr withoutPartialAxis(int64_t axis) const;
    /// Same sharding on another mesh.
    ShardingAttr withMesh(MeshAttr mesh) const;
    /// Same sharding with the stream split replaced (none without a dim).
    ShardingAttr withStream(::std::optional<int64_t> dim, int64_t chunks,
                            bool chunked) const;
    /// Same sharding with the layout replaced; row-major order and
    /// all-contiguous dims are left unstated.
    ShardingAttr withLayout(::llvm::ArrayRef<int64_t> order,
                            ::llvm::ArrayRef<bool> contiguity) const;
    /// Mesh and per-dim axes and partial state equal: the two values place
    /// the same data on the same ranks (stream split and layout may differ).
    bool hasSamePlacement(ShardingAttr other) const {
      return getMesh() == other.getMesh() && getDims() == other.getDims() &&
             getPartial() == other.getPartial();
    }
  }];
}

def Fuser_PipeliningAttr : EnumAttr<Fuser_Dialect, Fuser_Pipelining,
                                    "pipelining"> {
  let summary = "How a pipelined communication runs";
  let description = [{
    Set on a communication by `fuser-expose-pipelined-axes` (as the
    discardable attribute `fuser.pipelining`) when it plans the pipeline of
    that communication and the library calls beside it: `none` (the
    communication and the calls each run whole), `collective` (one
    collective per stream chunk) or `ring` (point-to-point steps between
    team members). Host lowering follows it.

    ```mlir
    %g = fuser.comm.allgather %x axis = 0 {fuser.pipelining = #fuser.pipelining<ring>} : ...
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Fuser_GPUScheduleAttr : Fuser_Attr<"GPUSchedule", "gpu_schedule"> {
  let summary = "How a GPU kernel's elements map to blocks, threads and lanes";
  let description = [{
    Chosen for each kernel function by `fuser-choose-gpu-kernel-schedules`
    (as the discardable attribute `fuser.gpu_schedule`) and read by
    `fuser-emit-gpu-kernels`, which emits exactly this mapping. A kernel
    launches `blocks` blocks of `threads` threads; each thread moves
    `vector_width` consecutive elements of a buffer's fastest dim at once
    where the buffers are 16-byte aligned at run time (1: no vectors).

    - `rows`: every reduction folds the same trailing dims (the row). A
      block holds `rows_per_block` rows, each covered by
      `threads / rows_per_block` threads (a warp per row when that is the
      warp size), and the row stays in registers.
    - `outer_reduction`: every reduction folds the same leading dims. A
      block's threads form `slices` slices of `threads / slices` threads
      over consecutive lane groups of kept elements; each slice folds every
      `slices`-th reduced row, and the slices' partial values meet in
      shared memory.
    - `transpose`: blocks compute square tiles of the output spanning
      `load_dim` (the dim of the output index space an input reads fastest)
      and `store_dim` (the output's fastest), staged in shared memory so
      that loads and stores are both coalesced.
    - `pointwise`: a grid-stride loop over the outputs in memory order,
      each step of a thread computing `groups_per_step` lane groups a
      grid's width apart, their loads issued together; reductions left in
      the kernel fold per element.

    ```mlir
    func.func @softmax(...) attributes {fuser.gpu_schedule =
        #fuser.gpu_schedule<rows, blocks = 512, threads = 128, vector_width = 8, rows_per_block = 4>}
    func.func @copy(...) attributes {fuser.gpu_schedule =
        #fuser.gpu_schedule<transpose, blocks = 64, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>}
    ```
  }];
  let parameters = (ins
    EnumParameter<Fuser_GPUScheduleKind>:$kind,
    "int64_t":$blocks,
    "int64_t":$threads,
    "int64_t":$vector_width,
    DefaultValuedParameter<"int64_t", "1",
        "rows: rows each block computes">:$rows_per_block,
    DefaultValuedParameter<"int64_t", "1",
        "outer_reduction: slices of threads folding reduced rows">:$slices,
    OptionalParameter<"std::optional<int64_t>",
        "transpose: the dim loads follow">:$load_dim,
    OptionalParameter<"std::optional<int64_t>",
        "transpose: the dim stores follow">:$store_dim,
    DefaultValuedParameter<"int64_t", "1",
        "pointwise: lane groups a thread computes per loop step">:$groups_per_step
  );
  let assemblyFormat = [{
    `<` $kind `,` struct($blocks, $threads, $vector_width, $rows_per_block,
                          $slices, $load_dim, $store_dim,
                          $groups_per_step) `>`
  }];
  let genVerifyDecl = 1;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERATTRS_TD
