//===- FuserOps.td - fuser dialect operations --------------*- tablegen -*-===//
//
// Shapes are global throughout. Ops whose result type follows from their
// operands and attributes implement InferTypeOpInterface; the inferred type
// carries no sharding (that is the propagation pass's job), so results are
// compared on shape and element type only.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
#define FUSER_DIALECT_FUSER_IR_FUSEROPS_TD

include "fuser/Dialect/Fuser/IR/FuserAttrs.td"
include "fuser/Dialect/Fuser/Interfaces/FuserInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

class Fuser_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuser_Dialect, mnemonic, traits>;

// Result types are inferred up to the sharding encoding.
def Fuser_InferGlobalType : InferTypeOpAdaptorBase<[{
  static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                      ::mlir::TypeRange actual) {
    return ::mlir::fuser::haveSameGlobalTypes(inferred, actual);
  }
}]>;

// An op with inferred result types whose inference is the C++ function
// `inferFn(location, adaptor, inferredTypes)`.
class Fuser_InferredOp<string mnemonic, string inferFn, list<Trait> traits = []>
    : Fuser_Op<mnemonic, traits # [Fuser_InferGlobalType]> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::fuser::}] # inferFn # [{(location, adaptor, types);
    }
  }];
}

def Fuser_Tensor : RankedTensorOf<[AnyType]>;
def Fuser_NumericTensor : RankedTensorOf<[AnySignlessIntegerOrIndex, AnyFloat]>;
def Fuser_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Fuser_BoolTensor : RankedTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Pointwise ops. Broadcasting is explicit: operands have equal shapes.
//===----------------------------------------------------------------------===//

class Fuser_UnaryOp<string mnemonic, Type tensorType, string opSummary>
    : Fuser_InferredOp<mnemonic, "inferUnaryPointwise",
                       [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = opSummary;
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Fuser_NegOp : Fuser_UnaryOp<"neg", Fuser_NumericTensor, "elementwise negation">;
def Fuser_AbsOp : Fuser_UnaryOp<"abs", Fuser_NumericTensor, "elementwise absolute value">;
def Fuser_ReluOp : Fuser_UnaryOp<"relu", Fuser_NumericTensor, "elementwise max(x, 0)">;
def Fuser_ExpOp : Fuser_UnaryOp<"exp", Fuser_FloatTensor, "elementwise e^x">;
def Fuser_LogOp : Fuser_UnaryOp<"log", Fuser_FloatTensor, "elementwise natural logarithm">;
def Fuser_SqrtOp : Fuser_UnaryOp<"sqrt", Fuser_FloatTensor, "elementwise square root">;
def Fuser_RsqrtOp : Fuser_UnaryOp<"rsqrt", Fuser_FloatTensor, "elementwise 1/sqrt(x)">;
def Fuser_TanhOp : Fuser_UnaryOp<"tanh", Fuser_FloatTensor, "elementwise tanh">;
def Fuser_SigmoidOp : Fuser_UnaryOp<"sigmoid", Fuser_FloatTensor, "elementwise 1/(1+e^-x)">;

def Fuser_GeluOp : Fuser_InferredOp<"gelu", "inferUnaryPointwise",
                                    [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = "elementwise GELU, exact (erf) or tanh-approximated";
  let arguments = (ins Fuser_FloatTensor:$input,
      DefaultValuedAttr<Fuser_GeluApproximationAttr,
                        "GeluApproximation::None">:$approximation);
  let results = (outs Fuser_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximation` `=` $approximation^)? attr-dict `:` type($input) `->` type($result)
  }];
}

class Fuser_BinaryOp<string mnemonic, Type tensorType, string opSummary>
    : Fuser_InferredOp<mnemonic, "inferBinaryPointwise",
                       [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = opSummary;
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuser_AddOp : Fuser_BinaryOp<"add", Fuser_NumericTensor, "elementwise lhs + rhs">;
def Fuser_SubOp : Fuser_BinaryOp<"sub", Fuser_NumericTensor, "elementwise lhs - rhs">;
def Fuser_MulOp : Fuser_BinaryOp<"mul", Fuser_NumericTensor, "elementwise lhs * rhs">;
def Fuser_DivOp : Fuser_BinaryOp<"div", Fuser_NumericTensor, "elementwise lhs / rhs">;
def Fuser_MaximumOp : Fuser_BinaryOp<"maximum", Fuser_NumericTensor, "elementwise max(lhs, rhs)">;
def Fuser_MinimumOp : Fuser_BinaryOp<"minimum", Fuser_NumericTensor, "elementwise min(lhs, rhs)">;
def Fuser_PowOp : Fuser_BinaryOp<"pow", Fuser_FloatTensor, "elementwise lhs ^ rhs">;

def Fuser_CompareOp : Fuser_InferredOp<"compare", "inferCompare",
                                       [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = "elementwise comparison producing i1";
  let arguments = (ins Fuser_CompareKindAttr:$kind, Fuser_NumericTensor:$lhs,
                       Fuser_NumericTensor:$rhs);
  let results = (outs Fuser_BoolTensor:$result);
  let assemblyFormat = [{
    $kind `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Fuser_WhereOp : Fuser_InferredOp<"where", "inferWhere",
                                     [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = "elementwise condition ? on_true : on_false";
  let arguments = (ins Fuser_BoolTensor:$condition, Fuser_Tensor:$on_true,
                       Fuser_Tensor:$on_false);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)
  }];
}

def Fuser_CastOp : Fuser_Op<"cast", [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = "elementwise conversion to the result's element type";
  let arguments = (ins Fuser_NumericTensor:$input);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Fuser_ReductionOp<string mnemonic, Type tensorType, string opSummary>
    : Fuser_InferredOp<mnemonic, "inferReduction", [Pure,
        DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let summary = opSummary;
  let description = [{
    Reduces `input` over `dims`. Reduced dims are removed from the result, or
    kept with size 1 when `keepdim` is set. When a reduced dim is sharded,
    the result is a per-rank partial value (see sharding propagation).
  }];
  let arguments = (ins tensorType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs tensorType:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_SumOp : Fuser_ReductionOp<"sum", Fuser_NumericTensor, "sum over dims">;
def Fuser_MaxOp : Fuser_ReductionOp<"max", Fuser_NumericTensor, "maximum over dims">;
def Fuser_MinOp : Fuser_ReductionOp<"min", Fuser_NumericTensor, "minimum over dims">;
def Fuser_MeanOp : Fuser_ReductionOp<"mean", Fuser_FloatTensor, "mean over dims">;

def Fuser_VarMeanOp : Fuser_InferredOp<"var_mean", "inferReduction", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let summary = "variance and mean over dims";
  let description = [{
    Variance (divided by N - correction) and mean of `input` over `dims`.
  }];
  let arguments = (ins Fuser_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim,
                       DefaultValuedAttr<I64Attr, "1">:$correction);
  let results = (outs Fuser_FloatTensor:$variance, Fuser_FloatTensor:$mean);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->` type($variance) `,` type($mean)
  }];
}

//===----------------------------------------------------------------------===//
// Creation ops: no tensor operands, static shapes.
//===----------------------------------------------------------------------===//

class Fuser_CreationOp<string mnemonic, Type tensorType, list<Trait> traits = []>
    : Fuser_Op<mnemonic, traits # [Fuser_ShardingRuleOpInterface]> {
  let results = (outs tensorType:$result);
  let hasVerifier = 1;
}

def Fuser_FullOp : Fuser_CreationOp<"full", Fuser_NumericTensor, [Pure]> {
  let summary = "tensor filled with one value";
  let arguments = (ins F64Attr:$value);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

// Creation ops whose values depend on each element's global position. Kernel
// functions compute on local pieces; there `offsets` gives the global
// position of the piece's first element along each dim. Global programs
// have none.
class Fuser_PositionalCreationOp<string mnemonic, Type tensorType,
                                 dag attributes, string attributeFormat,
                                 list<Trait> traits = []>
    : Fuser_Op<mnemonic, traits # [DeclareOpInterfaceMethods<
          Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let arguments = !con(attributes, (ins Variadic<Index>:$offsets));
  let results = (outs tensorType:$result);
  let assemblyFormat = attributeFormat #
      " (`at` `[` $offsets^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fuser_IotaOp : Fuser_PositionalCreationOp<"iota", Fuser_NumericTensor,
    (ins I64Attr:$dim, DefaultValuedAttr<F64Attr, "0.0">:$start,
         DefaultValuedAttr<F64Attr, "1.0">:$step),
    "`dim` `=` $dim", [Pure]> {
  let summary = "start + i * step along one dim, broadcast along the others";
  let description = [{
    `i` is the element's global index along `dim` (its local index plus the
    offset along `dim`, inside kernel functions).
  }];
}

def Fuser_UniformOp : Fuser_PositionalCreationOp<"uniform", Fuser_FloatTensor,
    (ins F64Attr:$low, F64Attr:$high, I64Attr:$seed),
    "`low` `=` $low `,` `high` `=` $high `,` `seed` `=` $seed"> {
  let summary = "random values drawn uniformly from [low, high)";
  let description = [{
    Draws from a counter-based generator keyed by `seed` and the global
    element index, so a sharded tensor holds the same values as the
    unsharded one.
  }];
}

def Fuser_NormalOp : Fuser_PositionalCreationOp<"normal", Fuser_FloatTensor,
    (ins F64Attr:$mean, F64Attr:$std, I64Attr:$seed),
    "`mean` `=` $mean `,` `std` `=` $std `,` `seed` `=` $seed"> {
  let summary = "random values drawn from a normal distribution";
  let description = [{
    Draws from a counter-based generator keyed by `seed` and the global
    element index, so a sharded tensor holds the same values as the
    unsharded one.
  }];
}

//===----------------------------------------------------------------------===//
// Layout / meta ops
//===----------------------------------------------------------------------===//

def Fuser_BroadcastOp : Fuser_Op<"broadcast", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface]> {
  let summary = "place input dims into a larger result, repeating the rest";
  let description = [{
    Input dim `i` becomes result dim `dims[i]` (strictly increasing). A mapped
    dim keeps its size or, if it has size 1, is expanded to the result size.
    Result dims not in `dims` are new and repeat the input.
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuser_ExpandOp : Fuser_Op<"expand", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface]> {
  let summary = "repeat size-1 dims to the result's sizes";
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Fuser_SqueezeOp : Fuser_InferredOp<"squeeze", "inferSqueeze", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>, Fuser_ViewOpInterface]> {
  let summary = "remove size-1 dims";
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_ReshapeOp : Fuser_Op<"reshape", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface]> {
  let summary = "same elements in row-major order, another shape";
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Fuser_PermuteOp : Fuser_InferredOp<"permute", "inferPermute", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>, Fuser_ViewOpInterface]> {
  let summary = "reorder dims: result dim i is input dim perm[i]";
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_SliceOp : Fuser_InferredOp<"slice", "inferSlice", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    DeclareOpInterfaceMethods<Fuser_ViewOpInterface, ["inferViewLayout"]>]> {
  let summary = "strided static window [start, limit) with step, per dim";
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `starts` `=` $starts `limits` `=` $limits `steps` `=` $steps attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Fuser_CatOp : Fuser_InferredOp<"cat", "inferCat", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let summary = "concatenate along one dim";
  let arguments = (ins Variadic<Fuser_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

def Fuser_PadOp : Fuser_InferredOp<"pad", "inferPad", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let summary = "add `low` and `high` elements of `value` around each dim";
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `low` `=` $low `high` `=` $high attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_SelectOp : Fuser_InferredOp<"select", "inferSelect", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]> {
  let summary = "take one index of a dim, removing the dim";
  let arguments = (ins Fuser_Tensor:$input, I64Attr:$dim, I64Attr:$index);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim `index` `=` $index attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Matmul and linear
//===----------------------------------------------------------------------===//

def Fuser_MatmulOp : Fuser_InferredOp<"matmul", "inferMatmul", [Pure,
    Fuser_LibraryCall,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface,
                              ["getShardingRule", "getPreferredOperands"]>]> {
  let summary = "batched matrix product [..., M, K] x [..., K, N] -> [..., M, N]";
  let description = [{
    Both operands have rank >= 2. Either they have the same rank and equal
    batch dims (other broadcasting is explicit), or `rhs` is a matrix
    [K, N] that every batch entry of `lhs` multiplies, as in torch.matmul.
    Accumulation is in f32 for 16-bit inputs.

    An `activation` (floating-point elements only) applies to each element
    of the product before it is rounded to the result type, in the
    library's epilogue: `fuser-fuse-library-epilogues` folds a `gelu`
    (tanh approximation) or `relu` of the product into it.

    ```mlir
    %y = fuser.matmul %a, %b activation = gelu_tanh
        : (tensor<64x32xbf16>, tensor<32x16xbf16>) -> tensor<64x16xbf16>
    ```
  }];
  let arguments = (ins Fuser_NumericTensor:$lhs, Fuser_NumericTensor:$rhs,
                       OptionalAttr<Fuser_ActivationAttr>:$activation);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`activation` `=` $activation^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Fuser_LinearOp : Fuser_InferredOp<"linear", "inferLinear", [Pure,
    Fuser_LibraryCall,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface,
                              ["getShardingRule", "getPreferredOperands"]>]> {
  let summary = "input [..., K] x weight [N, K]^T (+ bias [N]) -> [..., N]";
  let description = [{
    PyTorch's linear: the weight is stored [out_features, in_features]. With
    a rank-1 weight [K] the last dim is contracted away. An `activation`
    applies after the bias, as for `fuser.matmul`.
  }];
  let arguments = (ins Fuser_NumericTensor:$input, Fuser_NumericTensor:$weight,
                       Optional<Fuser_NumericTensor>:$bias,
                       OptionalAttr<Fuser_ActivationAttr>:$activation);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? (`activation` `=` $activation^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Copies and segment boundaries
//===----------------------------------------------------------------------===//

def Fuser_SetOp : Fuser_InferredOp<"set", "inferSameGlobalType",
    [Pure, Fuser_ShardingRuleOpInterface, Fuser_ViewOpInterface]> {
  let summary = "copy that may change the sharding or layout";
  let description = [{
    The value is unchanged; the result may be sharded or laid out
    differently, which makes `set` the user's way to request a resharding.
    A set whose operand and result types are equal folds away.
  }];
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Fuser_SegmentSetOp : Fuser_InferredOp<"segment_set", "inferSameGlobalType",
    [Pure, Fuser_ShardingRuleOpInterface, Fuser_ViewOpInterface,
     Fuser_SegmentBoundary]> {
  let summary = "explicit segment boundary";
  let description = [{
    Identity that separates segments (e.g. views from compute). It moves no
    data: operand and result have the same placement (mesh, dim axes,
    partial state); only the layout may differ.
  }];
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Segments
//===----------------------------------------------------------------------===//

def Fuser_KernelOp : Fuser_Op<"kernel",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run an outlined kernel segment";
  let description = [{
    Stands for a fused kernel segment that segmentation outlined into a
    kernel module: `kernel` names a function over per-rank buffers
    (memrefs of the local shapes, inputs then outputs, destination-passing),
    followed by any `index` arguments marked `fuser.mesh_position`, which
    host lowering fills with the executing rank's position.
    Operands and results keep their global types and shardings; the
    verifier checks that the kernel's buffers are their local pieces.
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<Fuser_Tensor>:$inputs);
  let results = (outs Variadic<Fuser_Tensor>:$outputs);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
  }];
}

include "fuser/Dialect/Fuser/IR/FuserCommunicationOps.td"

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
