//===- ShapeRules.h - shape rules shared by fuser and hostir ----*- C++ -*-===//
//
// fuser.matmul/linear (global tensors) and hostir.matmul/linear (local
// buffers) follow the same shape and activation rules; both verify
// through these.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_IR_SHAPERULES_H
#define FUSER_DIALECT_FUSER_IR_SHAPERULES_H

#include "fuser/Dialect/Fuser/IR/FuserAttrs.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

namespace mlir::fuser {

/// [..., M, K] x [..., K, N] -> [..., M, N]; equal ranks >= 2, equal batch
/// dims and element types.
FailureOr<SmallVector<int64_t>> getMatmulShape(std::optional<Location> loc,
                                               ShapedType lhs, ShapedType rhs);

/// input [..., K] x weight [N, K] (+ bias [N]) -> [..., N]; a weight [K]
/// (+ bias of rank 0) contracts the last dim away. `bias` may be null.
FailureOr<SmallVector<int64_t>> getLinearShape(std::optional<Location> loc,
                                               ShapedType input,
                                               ShapedType weight,
                                               ShapedType bias);

/// The shapes fused attention computes from query [b, h, sq, d], key
/// [b, h, skv, d] and value [b, h, skv, dv].
struct AttentionShapes {
  /// [b, h, sq, dv], the query's element type.
  SmallVector<int64_t> output;
  /// [b, h, sq], f32.
  SmallVector<int64_t> logsumexp;
};
FailureOr<AttentionShapes> getAttentionShapes(std::optional<Location> loc,
                                              ShapedType query, ShapedType key,
                                              ShapedType value);
/// The backward's operands: what getAttentionShapes gives for the forward,
/// with the query's element type (f32 for the log-sum-exp).
LogicalResult verifyAttentionBackwardShapes(
    std::optional<Location> loc, ShapedType query, ShapedType key,
    ShapedType value, ShapedType output, ShapedType gradOutput,
    ShapedType logsumexp);
/// A finite scale (when given) and a dropout probability in [0, 1).
LogicalResult verifyAttentionSettings(Operation *op,
                                      std::optional<double> scale,
                                      double dropoutProbability);

/// An activation needs floating-point elements: reports it on `op`
/// otherwise.
LogicalResult verifyActivation(Operation *op,
                               std::optional<Activation> activation,
                               Type elementType);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_SHAPERULES_H
