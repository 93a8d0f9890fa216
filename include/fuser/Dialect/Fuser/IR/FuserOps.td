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

// An op with a derivative rule (its buildVjp is defined in C++).
defvar Fuser_Differentiable =
    DeclareOpInterfaceMethods<Fuser_DifferentiableOpInterface>;

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
                       [Pure, Fuser_ShardingRuleOpInterface, Fuser_Differentiable]> {
  let summary = opSummary;
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Fuser_NegOp : Fuser_UnaryOp<"neg", Fuser_NumericTensor, "elementwise negation"> {
  let description = [{
    Computes `-x` for each element `x` of `input`. Integers are negated in two's
    complement (`0 - x`, so the most negative value stays itself).

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.neg %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_AbsOp : Fuser_UnaryOp<"abs", Fuser_NumericTensor, "elementwise absolute value"> {
  let description = [{
    Computes `|x|` for each element `x` of `input`. Integers are read as signed
    (`math.absi`: the most negative value stays itself).

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.abs %x : tensor<4x8xi32> -> tensor<4x8xi32>
    ```
  }];
}

def Fuser_ReluOp : Fuser_UnaryOp<"relu", Fuser_NumericTensor, "elementwise max(x, 0)"> {
  let description = [{
    Computes `max(x, 0)` for each element `x` of `input`: the rectified linear
    unit. Integers are compared as signed; for floats a NaN propagates
    (`arith.maximumf`).

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.relu %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
    ```
  }];
}

def Fuser_ExpOp : Fuser_UnaryOp<"exp", Fuser_FloatTensor, "elementwise e^x"> {
  let description = [{
    Computes `e^x` for each element `x` of `input`, which has a floating-point
    element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_LogOp : Fuser_UnaryOp<"log", Fuser_FloatTensor, "elementwise natural logarithm"> {
  let description = [{
    Computes the natural logarithm `ln(x)` for each element `x` of `input`,
    which has a floating-point element type: NaN below 0, `-inf` at 0.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.log %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_SqrtOp : Fuser_UnaryOp<"sqrt", Fuser_FloatTensor, "elementwise square root"> {
  let description = [{
    Computes the square root of each element of `input`, which has a
    floating-point element type: NaN below 0.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.sqrt %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_RsqrtOp : Fuser_UnaryOp<"rsqrt", Fuser_FloatTensor, "elementwise 1/sqrt(x)"> {
  let description = [{
    Computes `1 / sqrt(x)` for each element `x` of `input`, which has a
    floating-point element type (the reciprocal square root of normalizations):
    `+inf` at 0, NaN below 0.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.rsqrt %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_TanhOp : Fuser_UnaryOp<"tanh", Fuser_FloatTensor, "elementwise tanh"> {
  let description = [{
    Computes the hyperbolic tangent of each element of `input`, which has a
    floating-point element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.tanh %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_SinOp : Fuser_UnaryOp<"sin", Fuser_FloatTensor, "elementwise sine"> {
  let description = [{
    Computes the sine (in radians) of each element of `input`, which has a floating-point
    element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.sin %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_CosOp : Fuser_UnaryOp<"cos", Fuser_FloatTensor, "elementwise cosine"> {
  let description = [{
    Computes the cosine (in radians) of each element of `input`, which has a floating-point
    element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.cos %angles : tensor<2048x64xf32> -> tensor<2048x64xf32>
    ```
  }];
}

def Fuser_ErfOp : Fuser_UnaryOp<"erf", Fuser_FloatTensor, "elementwise error function"> {
  let description = [{
    Computes the error function `2 / sqrt(pi) * integral from 0 to x of e^(-t^2) dt` of each element of `input`, which has a floating-point
    element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.erf %x : tensor<4x8xbf16> -> tensor<4x8xbf16>
    ```
  }];
}

def Fuser_SigmoidOp : Fuser_UnaryOp<"sigmoid", Fuser_FloatTensor, "elementwise 1/(1+e^-x)"> {
  let description = [{
    Computes the logistic function `1 / (1 + e^-x)` for each element `x` of
    `input`, which has a floating-point element type.

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.sigmoid %x : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_GeluOp : Fuser_InferredOp<"gelu", "inferUnaryPointwise",
                                    [Pure, Fuser_ShardingRuleOpInterface,
                                     Fuser_Differentiable]> {
  let summary = "elementwise GELU, exact (erf) or tanh-approximated";
  let description = [{
    Computes the Gaussian error linear unit of each element `x` of `input`,
    which has a floating-point element type:

    * `approximation = none` (the default): `0.5 x (1 + erf(x / sqrt(2)))`;
    * `approximation = tanh`: `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715
      x^3)))`, PyTorch's `approximate="tanh"`. A tanh-approximated `gelu` of a
      `fuser.matmul` or `fuser.linear` result can fold into the library call's
      epilogue (`fuser-fuse-library-epilogues`).

    The result has the operand's shape and element type (inferred up to its
    sharding). `f16` and `bf16` elements are computed in `f32` and rounded back
    to the element type.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.gelu %x approximation = tanh : tensor<4x8xbf16> -> tensor<4x8xbf16>
    ```
  }];
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
                       [Pure, Fuser_ShardingRuleOpInterface, Fuser_Differentiable]> {
  let summary = opSummary;
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Fuser_AddOp : Fuser_BinaryOp<"add", Fuser_NumericTensor, "elementwise lhs + rhs"> {
  let description = [{
    Adds `lhs` and `rhs` element by element. Integers wrap around on overflow.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_SubOp : Fuser_BinaryOp<"sub", Fuser_NumericTensor, "elementwise lhs - rhs"> {
  let description = [{
    Subtracts `rhs` from `lhs` element by element. Integers wrap around on
    overflow.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.sub %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_MulOp : Fuser_BinaryOp<"mul", Fuser_NumericTensor, "elementwise lhs * rhs"> {
  let description = [{
    Multiplies `lhs` and `rhs` element by element. Integers wrap around on
    overflow.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.mul %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
    ```
  }];
}

def Fuser_DivOp : Fuser_BinaryOp<"div", Fuser_NumericTensor, "elementwise lhs / rhs"> {
  let description = [{
    Divides `lhs` by `rhs` element by element. Floats divide as IEEE 754
    (`arith.divf`); integers are signed and the quotient is rounded toward zero
    (`arith.divsi`), where a division by zero is undefined behaviour.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.div %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_MaximumOp : Fuser_BinaryOp<"maximum", Fuser_NumericTensor, "elementwise max(lhs, rhs)"> {
  let description = [{
    The larger of `lhs` and `rhs`, element by element. Integers compare as
    signed; for floats a NaN in either operand gives NaN (`arith.maximumf`).

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.maximum %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_MinimumOp : Fuser_BinaryOp<"minimum", Fuser_NumericTensor, "elementwise min(lhs, rhs)"> {
  let description = [{
    The smaller of `lhs` and `rhs`, element by element. Integers compare as
    signed; for floats a NaN in either operand gives NaN (`arith.minimumf`).

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.minimum %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_PowOp : Fuser_BinaryOp<"pow", Fuser_FloatTensor, "elementwise lhs ^ rhs"> {
  let description = [{
    Raises each element of `lhs` to the power of the element of `rhs` at the
    same position (`math.powf`); both have a floating-point element type.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit: `fuser.broadcast`, `fuser.expand`; element types meet through
    `fuser.cast`); the result has them too (inferred up to its sharding). `f16`
    and `bf16` elements are computed in `f32` and rounded back.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %z = fuser.pow %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
}

def Fuser_CompareOp : Fuser_InferredOp<"compare", "inferCompare",
                                       [Pure, Fuser_ShardingRuleOpInterface]> {
  let summary = "elementwise comparison producing i1";
  let description = [{
    Compares `lhs` and `rhs` element by element with the predicate `kind` (`eq`,
    `ne`, `lt`, `le`, `gt`, `ge`) and yields an `i1` tensor of their shape.
    Integers compare as signed. Floats compare ordered (false when either is
    NaN), except `ne`, which is unordered (true when either is NaN), as in C.

    `lhs` and `rhs` have the same shape and element type (broadcasting is
    explicit); the result type is inferred up to its sharding.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %mask = fuser.compare lt, %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Fuser_CompareKindAttr:$kind, Fuser_NumericTensor:$lhs,
                       Fuser_NumericTensor:$rhs);
  let results = (outs Fuser_BoolTensor:$result);
  let assemblyFormat = [{
    $kind `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Fuser_WhereOp : Fuser_InferredOp<"where", "inferWhere",
                                     [Pure, Fuser_ShardingRuleOpInterface,
                                      Fuser_Differentiable]> {
  let summary = "elementwise condition ? on_true : on_false";
  let description = [{
    Selects, element by element, `on_true` where `condition` holds and
    `on_false` elsewhere. `condition` is an `i1` tensor; `on_true` and
    `on_false` have the same element type, which the result takes, and all three
    have the same shape (broadcasting is explicit). The result type is inferred
    up to its sharding.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.where %mask, %x, %zeros
        : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fuser_BoolTensor:$condition, Fuser_Tensor:$on_true,
                       Fuser_Tensor:$on_false);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)
  }];
}

def Fuser_CastOp : Fuser_Op<"cast", [Pure, Fuser_ShardingRuleOpInterface,
                                     Fuser_Differentiable]> {
  let summary = "elementwise conversion to the result's element type";
  let description = [{
    Converts each element of `input` to the result's element type; the shapes
    are equal (the verifier refuses a cast that changes the shape). Floats round
    to the nearest representable value, floats convert to integers by truncation
    toward zero, integers extend or truncate as signed, and `i1` converts as
    unsigned (0 or 1). A conversion to `i1` tests `x != 0`.

    Sharding: each dim is one factor that the operands and the result share, so
    a split of a dim splits all of them alike and each rank computes its own
    piece without communication. The op reduces nothing: a partial operand is
    resolved before it, and its result is never partial.

    ```mlir
    %y = fuser.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    ```
  }];
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
        DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
        Fuser_Differentiable]> {
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

def Fuser_SumOp : Fuser_ReductionOp<"sum", Fuser_NumericTensor, "sum over dims"> {
  let description = [{
    Sums `input` over `dims`. Integers wrap around on overflow.

    `dims` lists at least one dim of `input`, each once. Reduced dims are
    removed from the result, or kept with size 1 when `keepdim` is set; the
    result type is inferred up to its sharding. `f16` and `bf16` elements
    accumulate in `f32`.

    Sharding: each dim that is not reduced is a factor shared with the result. A
    reduced dim that is split along mesh axes makes every rank reduce its own
    piece: the result is partial over those axes with reduction kind `sum`, and
    a `fuser.comm.allreduce` (or `reduce_scatter`, `reduce`) resolves it where a
    consumer needs the full value.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %r = fuser.sum %x dims = [1]
        : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
        -> tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
    ```
  }];
}

def Fuser_MaxOp : Fuser_ReductionOp<"max", Fuser_NumericTensor, "maximum over dims"> {
  let description = [{
    The largest element of `input` over `dims`. Integers compare as signed; for
    floats a NaN propagates (`arith.maximumf`).

    `dims` lists at least one dim of `input`, each once. Reduced dims are
    removed from the result, or kept with size 1 when `keepdim` is set; the
    result type is inferred up to its sharding. `f16` and `bf16` elements
    accumulate in `f32`.

    Sharding: each dim that is not reduced is a factor shared with the result. A
    reduced dim that is split along mesh axes makes every rank reduce its own
    piece: the result is partial over those axes with reduction kind `max`, and
    a `fuser.comm.allreduce` (or `reduce_scatter`, `reduce`) resolves it where a
    consumer needs the full value.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %r = fuser.max %x dims = [1]
        : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
        -> tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : max}>>
    ```
  }];
}

def Fuser_MinOp : Fuser_ReductionOp<"min", Fuser_NumericTensor, "minimum over dims"> {
  let description = [{
    The smallest element of `input` over `dims`. Integers compare as signed; for
    floats a NaN propagates (`arith.minimumf`).

    `dims` lists at least one dim of `input`, each once. Reduced dims are
    removed from the result, or kept with size 1 when `keepdim` is set; the
    result type is inferred up to its sharding. `f16` and `bf16` elements
    accumulate in `f32`.

    Sharding: each dim that is not reduced is a factor shared with the result. A
    reduced dim that is split along mesh axes makes every rank reduce its own
    piece: the result is partial over those axes with reduction kind `min`, and
    a `fuser.comm.allreduce` (or `reduce_scatter`, `reduce`) resolves it where a
    consumer needs the full value.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %r = fuser.min %x dims = [1]
        : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
        -> tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : min}>>
    ```
  }];
}

def Fuser_MeanOp : Fuser_ReductionOp<"mean", Fuser_FloatTensor, "mean over dims"> {
  let description = [{
    The arithmetic mean of `input` over `dims` (floating-point elements only):
    the sum divided by the number of reduced elements. Shards are of equal size,
    so the mean of the ranks' means is the global mean: a split reduced dim
    gives a partial value of kind `avg`.

    `dims` lists at least one dim of `input`, each once. Reduced dims are
    removed from the result, or kept with size 1 when `keepdim` is set; the
    result type is inferred up to its sharding. `f16` and `bf16` elements
    accumulate in `f32`.

    Sharding: each dim that is not reduced is a factor shared with the result. A
    reduced dim that is split along mesh axes makes every rank reduce its own
    piece: the result is partial over those axes with reduction kind `avg`, and
    a `fuser.comm.allreduce` (or `reduce_scatter`, `reduce`) resolves it where a
    consumer needs the full value.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %r = fuser.mean %x dims = [1]
        : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
        -> tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : avg}>>
    ```
  }];
}

def Fuser_VarMeanOp : Fuser_InferredOp<"var_mean", "inferReduction", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_Differentiable]> {
  let summary = "variance and mean over dims";
  let description = [{
    Computes, over `dims` of `input` (floating-point elements), the variance and
    the mean: `mean = sum(x) / N` and `variance = sum((x - mean)^2) / (N -
    correction)`, where `N` is the number of reduced elements and `correction`
    defaults to 1 (Bessel's correction, the unbiased estimate; 0 gives the
    population variance). Both results have the shape a reduction over `dims`
    gives (see `fuser.sum`, `keepdim` included) and the input's element type.

    Sharding: dims that are not reduced are factors shared with both results.
    The reduced dims may not be split: per-rank variances do not combine into
    the global one by a reduction, so a split reduced dim is gathered before the
    op and its results are never partial.

    ```mlir
    %var, %mean = fuser.var_mean %x dims = [2] keepdim {correction = 0 : i64}
        : tensor<4x8x16xf32> -> tensor<4x8x1xf32>, tensor<4x8x1xf32>
    ```
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
  let description = [{
    A tensor of the result's static shape whose every element is `value`,
    converted to the element type. The verifier requires a static shape, an
    integral `value` for integer element types, and 0 or 1 for `i1`.

    Sharding: each result dim is a factor of its own, so the result may be split
    along any dims; each rank creates its own piece, without communication, and
    the result is never partial.

    ```mlir
    %zeros = fuser.full 0.0 : tensor<4x8xbf16>
    %ones = fuser.full 1.0 : tensor<16xi32>
    ```
  }];
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
    Element `(i_0, ..., i_n)` of the result is `start + step * i_dim`, computed
    in `f64` and converted to the element type, where `i_dim` is the element's
    global index along `dim` (its local index plus the offset along `dim`,
    inside kernel functions). Along the other dims the values repeat. `start`
    defaults to 0 and `step` to 1; `dim` must be a dim of the result.

    The result has a static shape. In a global program the op has no `offsets`;
    inside a kernel function, which computes a rank's local piece, `at [...]`
    gives one index per dim: the global position of the piece's first element,
    so that the piece holds what the global tensor holds there. The verifier
    checks the static shape and that there are no offsets or one per dim.

    Sharding: each result dim is a factor of its own, so the result may be split
    along any dims; each rank creates its own piece, without communication, and
    the result is never partial.

    ```mlir
    // [[0, 1, ..., 7], [0, 1, ..., 7]]
    %i = fuser.iota dim = 1 : tensor<2x8xi64>
    // A kernel's 2x4 piece at global position (%row, %col).
    %p = fuser.iota dim = 1 at [%row, %col] : tensor<2x4xi64>
    ```
  }];
}

def Fuser_UniformOp : Fuser_PositionalCreationOp<"uniform", Fuser_FloatTensor,
    (ins F64Attr:$low, F64Attr:$high, I64Attr:$seed),
    "`low` `=` $low `,` `high` `=` $high `,` `seed` `=` $seed"> {
  let summary = "random values drawn uniformly from [low, high)";
  let description = [{
    Random values drawn uniformly from `[low, high)`; the verifier requires `low
    < high`.

    Each element is drawn from a counter-based generator whose state mixes
    `seed` with the element's global coordinates (splitmix64 steps), so the
    values do not depend on how the tensor is sharded or pieced: a sharded
    tensor holds the values of the unsharded one, and the same op draws the same
    values in every execution. Draws are computed in `f64` and converted to the
    (floating-point) element type.

    The result has a static shape. In a global program the op has no `offsets`;
    inside a kernel function, which computes a rank's local piece, `at [...]`
    gives one index per dim: the global position of the piece's first element,
    so that the piece holds what the global tensor holds there. The verifier
    checks the static shape and that there are no offsets or one per dim.

    Sharding: each result dim is a factor of its own, so the result may be split
    along any dims; each rank creates its own piece, without communication, and
    the result is never partial.

    ```mlir
    %u = fuser.uniform low = 0.0, high = 1.0, seed = 42 : tensor<4x8xf32>
    ```
  }];
}

def Fuser_NormalOp : Fuser_PositionalCreationOp<"normal", Fuser_FloatTensor,
    (ins F64Attr:$mean, F64Attr:$std, I64Attr:$seed),
    "`mean` `=` $mean `,` `std` `=` $std `,` `seed` `=` $seed"> {
  let summary = "random values drawn from a normal distribution";
  let description = [{
    Random values drawn from the normal distribution of mean `mean` and standard
    deviation `std` (Box-Muller transform of two uniform draws); the verifier
    requires `std > 0`.

    Each element is drawn from a counter-based generator whose state mixes
    `seed` with the element's global coordinates (splitmix64 steps), so the
    values do not depend on how the tensor is sharded or pieced: a sharded
    tensor holds the values of the unsharded one, and the same op draws the same
    values in every execution. Draws are computed in `f64` and converted to the
    (floating-point) element type.

    The result has a static shape. In a global program the op has no `offsets`;
    inside a kernel function, which computes a rank's local piece, `at [...]`
    gives one index per dim: the global position of the piece's first element,
    so that the piece holds what the global tensor holds there. The verifier
    checks the static shape and that there are no offsets or one per dim.

    Sharding: each result dim is a factor of its own, so the result may be split
    along any dims; each rank creates its own piece, without communication, and
    the result is never partial.

    ```mlir
    %w = fuser.normal mean = 0.0, std = 0.02, seed = 7 : tensor<64x32xbf16>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Layout / meta ops
//===----------------------------------------------------------------------===//

def Fuser_BroadcastOp : Fuser_Op<"broadcast", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface, Fuser_Differentiable]> {
  let summary = "place input dims into a larger result, repeating the rest";
  let description = [{
    Places the dims of `input` into a result of higher or equal rank: input dim
    `i` becomes result dim `dims[i]`. `dims` has one entry per input dim,
    strictly increasing (reorder with `fuser.permute` first), each a result dim.
    A mapped dim keeps its size or, if it has size 1, is expanded to the
    result's size. Result dims not in `dims` are new, and the input repeats
    along them. Element types are equal.

    Sharding: a mapped dim that keeps its size is a factor shared with the
    result; expanded and new result dims are factors of the result alone, which
    it may split without communication (each rank repeats what it holds). The op
    repeats data, so a partial operand is resolved before it (the smaller
    tensor), not after.

    ```mlir
    %y = fuser.broadcast %x dims = [0, 2] : tensor<4x8xf32> -> tensor<4x5x8xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuser_ExpandOp : Fuser_Op<"expand", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface, Fuser_Differentiable]> {
  let summary = "repeat size-1 dims to the result's sizes";
  let description = [{
    Repeats the size-1 dims of `input` to the sizes of the result, which has the
    same rank and element type; every other dim keeps its size (the verifier
    checks both). New dims are added with `fuser.broadcast`.

    Sharding: unchanged dims are factors shared with the result; expanded dims
    are factors of the result alone, which it may split without communication.
    The op repeats data, so a partial operand is resolved before it, not after.

    ```mlir
    %y = fuser.expand %x : tensor<4x1x8xf32> -> tensor<4x6x8xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Fuser_SqueezeOp : Fuser_InferredOp<"squeeze", "inferSqueeze", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>, Fuser_ViewOpInterface,
    Fuser_Differentiable]> {
  let summary = "remove size-1 dims";
  let description = [{
    Removes the dims listed in `dims` from `input`; each must have size 1
    (statically) and appear once. The other dims keep their order; the result
    type is inferred up to its sharding.

    Sharding: the remaining dims are factors shared with the result. It is a
    view: it moves no data, and a partial operand gives a result partial in the
    same way.

    ```mlir
    %y = fuser.squeeze %x dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_ReshapeOp : Fuser_Op<"reshape", [Pure, DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_ViewOpInterface, Fuser_Differentiable]> {
  let summary = "same elements in row-major order, another shape";
  let description = [{
    The elements of `input` in row-major order, in the result's shape. The
    element types are equal and, where both shapes are static, so are the
    numbers of elements (the verifier checks both).

    Sharding: both shapes are decomposed into the row-major factors they have in
    common (`[4, 8] -> [2, 2, 8]` shares 2, 2 and 8), and a split of a factor
    carries over between operand and result. Where the shapes do not factor into
    each other, the dims involved may not be split. It is a view: it moves no
    data, and a partial operand gives a result partial in the same way.

    ```mlir
    %y = fuser.reshape %x : tensor<4x8xf32> -> tensor<2x2x8xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Fuser_PermuteOp : Fuser_InferredOp<"permute", "inferPermute", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>, Fuser_ViewOpInterface,
    Fuser_Differentiable]> {
  let summary = "reorder dims: result dim i is input dim perm[i]";
  let description = [{
    Reorders the dims of `input`: result dim `i` is input dim `perm[i]`. `perm`
    is a permutation of `[0, rank)`; the result type is inferred up to its
    sharding.

    Sharding: each input dim is a factor shared with the result dim it becomes,
    so splits follow their dims. It is a view: it moves no data, and a partial
    operand gives a result partial in the same way.

    ```mlir
    %y = fuser.permute %x perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_SliceOp : Fuser_InferredOp<"slice", "inferSlice", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    DeclareOpInterfaceMethods<Fuser_ViewOpInterface, ["inferViewLayout"]>,
    Fuser_Differentiable]> {
  let summary = "strided static window [start, limit) with step, per dim";
  let description = [{
    Takes from each dim of `input` the elements `start, start + step, ...` below
    `limit`, so that result dim `d` has `ceil((limits[d] - starts[d]) /
    steps[d])` elements. `starts`, `limits` and `steps` have one entry per dim,
    with `steps[d] >= 1` and `0 <= starts[d] <= limits[d] <= size(d)`; the
    result type is inferred up to its sharding. The result is a strided view of
    the input.

    Sharding: a dim the op leaves whole (start 0, limit its size, step 1) is a
    factor shared with the result; a dim it cuts may not be split, on either
    side (its elements move between shards). It is a view: it moves no data, and
    a partial operand gives a result partial in the same way.

    ```mlir
    %y = fuser.slice %x starts = [1, 0] limits = [3, 8] steps = [1, 3]
        : tensor<4x8xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$steps);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `starts` `=` $starts `limits` `=` $limits `steps` `=` $steps attr-dict
    `:` type($input) `->` type($result)
  }];
}

def Fuser_CatOp : Fuser_InferredOp<"cat", "inferCat", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_Differentiable]> {
  let summary = "concatenate along one dim";
  let description = [{
    Concatenates `inputs` along `dim` in order. There is at least one input; all
    have the same rank and element type, and equal sizes in every dim but `dim`,
    where the result's size is the sum of theirs. The result type is inferred up
    to its sharding.

    Sharding: the dims other than `dim` are factors shared by the inputs and the
    result; `dim` may not be split, on any side. The op reduces nothing: partial
    inputs are resolved before it.

    ```mlir
    %y = fuser.cat %a, %b dim = 1 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuser_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

def Fuser_PadOp : Fuser_InferredOp<"pad", "inferPad", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_Differentiable]> {
  let summary = "add `low` and `high` elements of `value` around each dim";
  let description = [{
    Surrounds `input` with `low[d]` elements before and `high[d]` elements after
    it along each dim `d`, all equal to `value` (default 0) converted to the
    element type. `low` and `high` have one non-negative entry per dim (shrink
    with `fuser.slice`); the result type is inferred up to its sharding.

    Sharding: an unpadded dim is a factor shared with the result; a padded dim
    may not be split, on either side. The op reduces nothing: a partial operand
    is resolved before it.

    ```mlir
    %y = fuser.pad %x low = [1, 1] high = [1, 1] {value = -1.0 : f64}
        : tensor<4x8xf32> -> tensor<6x10xf32>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = [{
    $input `low` `=` $low `high` `=` $high attr-dict `:` type($input) `->` type($result)
  }];
}

def Fuser_SelectOp : Fuser_InferredOp<"select", "inferSelect", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_Differentiable]> {
  let summary = "take one index of a dim, removing the dim";
  let description = [{
    Takes index `index` of dim `dim` of `input` and removes that dim: the result
    is `input[..., index, ...]`, of rank one less. `dim` is a dim of the input
    and `index` lies within its size; the result type is inferred up to its
    sharding.

    Sharding: the other dims are factors shared with the result; `dim` may not
    be split. The op reduces nothing: a partial operand is resolved before it.

    ```mlir
    %row = fuser.select %x dim = 0 index = 3 : tensor<4x8xf32> -> tensor<8xf32>
    ```
  }];
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
                              ["getShardingRule", "getPreferredOperands"]>,
    Fuser_Differentiable]> {
  let summary = "batched matrix product [..., M, K] x [..., K, N] -> [..., M, N]";
  let description = [{
    The matrix product of the last two dims of `lhs` `[..., M, K]` and `rhs`
    `[..., K, N]`, for each index of the batch dims: `[..., M, N]`. Both
    operands have rank >= 2 and one element type, which the result has. Either
    they have the same rank and equal batch dims (other broadcasting is
    explicit), or `rhs` is a matrix `[K, N]` that every batch entry of `lhs`
    multiplies, as in `torch.matmul`. Accumulation is in `f32` for 16-bit
    inputs. The op is a library call: host lowering turns it into
    `hostir.matmul` (cuBLASLt on GPUs).

    An `activation` (floating-point elements only, which the verifier checks)
    applies to each element of the product before it is rounded to the result
    type, in the library's epilogue: `fuser-fuse-library-epilogues` folds a
    `gelu` (tanh approximation) or `relu` of the product into it.

    Sharding: batch dims, `M` and `N` are factors shared with the result. `K` is
    a reduction factor: splitting it (in both operands, along the same mesh
    axes) gives every rank a product of its pieces, and the result is partial
    with kind `sum` over those axes. Propagation keeps `rhs` (usually a weight)
    where it is and moves `lhs` to match.

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
                              ["getShardingRule", "getPreferredOperands"]>,
    Fuser_Differentiable]> {
  let summary = "input [..., K] x weight [N, K]^T (+ bias [N]) -> [..., N]";
  let description = [{
    PyTorch's linear layer: `input [..., K] x weight^T (+ bias)`, with the
    weight stored `[N, K]` (`[out_features, in_features]`), gives `[..., N]`.
    With a rank-1 weight `[K]` the last dim is contracted away (`[...]`) and a
    bias is a scalar tensor. `input` has rank >= 1; all operands have one
    element type, which the result has; a bias has shape `[N]` (rank 0 for a
    rank-1 weight). An `activation` (floating-point elements only) applies after
    the bias, as for `fuser.matmul`. The op is a library call (`hostir.linear`).

    Sharding: the batch dims of `input` are factors shared with the result, and
    `N` is shared by the weight, the bias and the result. `K` is a reduction
    factor: splitting it in `input` and `weight` makes the result partial with
    kind `sum`. Propagation keeps the weight, then the bias, where they are, so
    that weights are never redistributed.

    ```mlir
    %y = fuser.linear %x, %w bias %b activation = gelu_tanh
        : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    ```
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
// Attention
//===----------------------------------------------------------------------===//

// What the attention ops share: how scores are scaled, masked and dropped.
class Fuser_AttentionOp<string mnemonic, string inferFn,
                        list<Trait> extraTraits = []>
    : Fuser_InferredOp<mnemonic, inferFn, [Pure, Fuser_LibraryCall,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>]
    # extraTraits> {
  dag attentionAttributes = (ins UnitAttr:$causal, OptionalAttr<F64Attr>:$scale,
                                 DefaultValuedAttr<F64Attr, "0.0">:$dropout_probability,
                                 DefaultValuedAttr<I64Attr, "0">:$seed);
  string attentionFormat = [{
    (`causal` $causal^)? (`scale` `=` $scale^)?
    (`dropout` `=` $dropout_probability^)? (`seed` `=` $seed^)? attr-dict
  }];
  let hasVerifier = 1;
  code attentionClassDeclaration = [{
    /// The factor the scores are scaled by: `scale`, else 1/sqrt(head dim).
    double getScaleOrDefault();
  }];
}

def Fuser_SdpaOp : Fuser_AttentionOp<"sdpa", "inferSdpa", [Fuser_Differentiable]> {
  let summary = "fused scaled dot-product attention, forward";
  let description = [{
    PyTorch's `scaled_dot_product_attention` on `query [b, h, sq, d]` and `key`
    and `value [b, h, skv, d]`, all of one floating-point element type and one
    head dim (as the fused kernels take them):

        S = scale * query x key^T                       [b, h, sq, skv]
        P = softmax(S) over the last dim                (masked entries are 0)
        output = dropout(P) x value                     [b, h, sq, d]
        logsumexp[b, h, i] = log(sum_j exp(S[b, h, i, j]))  (f32, unmasked j)

    `scale` defaults to `1 / sqrt(d)`. With `causal`, query `i` sees keys
    `j <= i` only (the top-left alignment of PyTorch's `is_causal`). With
    `dropout = p` (0 <= p < 1), each probability is kept and scaled by
    `1 / (1 - p)` or dropped: on CPU ranks it is kept when the draw of
    `fuser.uniform low = 0.0, high = 1.0, seed = seed` over a `[b, h, sq, skv]`
    tensor at its global coordinates is at least `p`, so sharded and unsharded
    programs drop the same entries; on GPUs the mask is cuDNN's Philox stream
    for `seed`. `logsumexp` is what `fuser.sdpa_backward` needs to recompute
    the probabilities instead of storing them: the `[b, h, sq, skv]` scores
    never reach memory.

    The op is a library call: host lowering turns it into `hostir.sdpa` (the
    runtime's fused attention: cuDNN's on GPUs).

    Sharding: `b` and `h` are factors shared by every operand and result, so
    heads split across ranks (tensor parallelism) without communication. `d`
    and `skv` are blocked: each rank needs whole keys and values. `sq` is
    shared by the query, the output and the log-sum-exp when the op is neither
    causal nor dropping (a split of the queries then gathers the keys and
    values: context parallelism); with either, the mask depends on global
    query positions and `sq` is blocked too.

    ```mlir
    %o, %lse = fuser.sdpa %q, %k, %v causal dropout = 0.1 seed = 7
        : (tensor<1x48x2048x128xbf16>, tensor<1x48x2048x128xbf16>,
           tensor<1x48x2048x128xbf16>)
        -> (tensor<1x48x2048x128xbf16>, tensor<1x48x2048xf32>)
    ```
  }];
  let arguments = !con((ins Fuser_FloatTensor:$query, Fuser_FloatTensor:$key,
                            Fuser_FloatTensor:$value), attentionAttributes);
  let results = (outs Fuser_FloatTensor:$output, Fuser_FloatTensor:$logsumexp);
  let assemblyFormat = "$query `,` $key `,` $value " # attentionFormat #
                       " `:` functional-type(operands, results)";
  let extraClassDeclaration = attentionClassDeclaration;
}

def Fuser_SdpaBackwardOp : Fuser_AttentionOp<"sdpa_backward", "inferSdpaBackward"> {
  let summary = "fused scaled dot-product attention, backward";
  let description = [{
    The gradients of `fuser.sdpa` with respect to its query, key and value,
    given the forward's operands, its `output` and `logsumexp`, and the
    gradient `grad_output` of the output: `(grad_query, grad_key, grad_value)`,
    shaped and typed as `query`, `key` and `value`. `causal`, `scale`,
    `dropout` and `seed` must be the forward's, so that the probabilities and
    the dropout mask are recomputed as the forward had them.

    The op is a library call: host lowering turns it into
    `hostir.sdpa_backward`.

    Sharding: `b` and `h` are shared by every operand and result; every other
    dim is blocked (the key and value gradients sum over all queries, the
    query gradient over all keys).

    ```mlir
    %dq, %dk, %dv = fuser.sdpa_backward %q, %k, %v, %o, %do, %lse causal
        : (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>,
           tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64xf32>)
        -> (tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>, tensor<1x4x64x32xf32>)
    ```
  }];
  let arguments = !con((ins Fuser_FloatTensor:$query, Fuser_FloatTensor:$key,
                            Fuser_FloatTensor:$value, Fuser_FloatTensor:$output,
                            Fuser_FloatTensor:$grad_output,
                            Fuser_FloatTensor:$logsumexp), attentionAttributes);
  let results = (outs Fuser_FloatTensor:$grad_query, Fuser_FloatTensor:$grad_key,
                      Fuser_FloatTensor:$grad_value);
  let assemblyFormat = "$query `,` $key `,` $value `,` $output `,` $grad_output `,` "
                       "$logsumexp " # attentionFormat #
                       " `:` functional-type(operands, results)";
  let extraClassDeclaration = attentionClassDeclaration;
}

//===----------------------------------------------------------------------===//
// Lookups
//===----------------------------------------------------------------------===//

def Fuser_EmbeddingOp : Fuser_InferredOp<"embedding", "inferEmbedding", [Pure,
    DeclareOpInterfaceMethods<Fuser_ShardingRuleOpInterface, ["getShardingRule"]>,
    Fuser_Differentiable]> {
  let summary = "rows of a table picked by index (an embedding lookup)";
  let description = [{
    PyTorch's `F.embedding(indices, table)`: `result[i..., :] = table[indices[i...],
    :]` for a `table [V, E]` and integer `indices` of any shape `[...]`, giving
    `[..., E]` with the table's element type. An index outside `[0, V)` reads
    the nearest row (the index is clamped): kernels have no way to fail.

    Sharding: the dims of `indices` are factors shared with the leading dims of
    the result, and `E` is shared by the table and the result; `V` is blocked
    (each rank looks rows up in the whole table).

    ```mlir
    %x = fuser.embedding %wte, %tokens
        : (tensor<50304x768xbf16>, tensor<1x2048xi64>) -> tensor<1x2048x768xbf16>
    ```
  }];
  let arguments = (ins Fuser_NumericTensor:$table,
                       RankedTensorOf<[AnySignlessInteger]>:$indices);
  let results = (outs Fuser_NumericTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Copies and segment boundaries
//===----------------------------------------------------------------------===//

def Fuser_SetOp : Fuser_InferredOp<"set", "inferSameGlobalType",
    [Pure, Fuser_ShardingRuleOpInterface, Fuser_ViewOpInterface,
    Fuser_Differentiable]> {
  let summary = "copy that may change the sharding or layout";
  let description = [{
    The value of `input`, unchanged, with the sharding or layout of the result
    type: a `set` is how a program asks for a resharding (a different split, a
    replicated copy, the resolution of a partial value, a move to another mesh).
    Resharding decomposition replaces each `set` that changes the placement by
    `fuser.comm` ops. Shape and element type are unchanged. A `set` whose
    operand and result types are equal folds away.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.set %x : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>>
                     -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], []]>>
    ```
  }];
  let arguments = (ins Fuser_Tensor:$input);
  let results = (outs Fuser_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Fuser_SegmentSetOp : Fuser_InferredOp<"segment_set", "inferSameGlobalType",
    [Pure, Fuser_ShardingRuleOpInterface, Fuser_ViewOpInterface,
     Fuser_SegmentBoundary,
    Fuser_Differentiable]> {
  let summary = "explicit segment boundary";
  let description = [{
    An identity that marks an explicit segment boundary (e.g. between views and
    compute). It moves no data: operand and result have the same placement
    (mesh, dim axes and partial state) or both have no sharding, which the
    verifier checks; only the layout (dim order) may differ. Reshard with
    `fuser.set`.

    ```mlir
    #mesh = #fuser.mesh<[2]>
    %y = fuser.segment_set %x
        : tensor<4x8xf32, #fuser.sharding<#mesh, [[], []]>>
        -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>>
    ```
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
    Stands for a fused kernel segment that segmentation outlined into a kernel
    module: `kernel` names a function over per-rank buffers (memrefs of the
    local shapes, inputs then outputs, destination-passing), followed by any
    `index` arguments marked `fuser.mesh_position`, which host lowering fills
    with the executing rank's position along mesh axes. Operands and results
    keep their global types and shardings; the verifier checks that `kernel` is
    a function, that its buffers have the shapes and element types of the
    operands' and results' local pieces, and that every further argument is a
    marked `index`.

    ```mlir
    #rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
    // @kernels::@scale takes (memref<4x4xf32>, memref<4x4xf32>).
    %y = fuser.kernel @kernels::@scale(%x)
        : (tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<Fuser_Tensor>:$inputs);
  let results = (outs Variadic<Fuser_Tensor>:$outputs);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
  }];
}

include "fuser/Dialect/Fuser/IR/FuserCommunicationOps.td"

#endif // FUSER_DIALECT_FUSER_IR_FUSEROPS_TD
