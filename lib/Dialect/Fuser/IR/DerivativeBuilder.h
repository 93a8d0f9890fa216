//===- DerivativeBuilder.h - ops that derivative rules build ----*- C++ -*-===//
//
// What the derivative rules (buildVjp of DifferentiableOpInterface) are
// written in: elementwise arithmetic on values of one shape, constants of
// that shape, and the shape ops that undo a reduction or a broadcast. Every
// value built has a global type without sharding, as type inference gives:
// sharding propagation places the backward program as a whole.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_DIALECT_FUSER_IR_DERIVATIVEBUILDER_H
#define FUSER_LIB_DIALECT_FUSER_IR_DERIVATIVEBUILDER_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

namespace mlir::fuser {

/// The global type of `value`: its shape and element type, no sharding.
RankedTensorType getGlobalType(Value value);

class DerivativeBuilder {
public:
  DerivativeBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  /// A tensor of `like`'s global type filled with `value`.
  Value constant(double value, Value like);
  Value constant(double value, RankedTensorType type);

  Value add(Value lhs, Value rhs);
  Value sub(Value lhs, Value rhs);
  Value mul(Value lhs, Value rhs);
  Value div(Value lhs, Value rhs);
  Value neg(Value value);
  /// `value * factor`.
  Value scale(Value value, double factor);
  Value compare(CompareKind kind, Value lhs, Value rhs);
  /// `value` where `condition` holds, 0 elsewhere.
  Value keepWhere(Value condition, Value value);
  /// 0 where `condition` holds, `value` elsewhere.
  Value dropWhere(Value condition, Value value);
  Value cast(Value value, Type elementType);
  Value exp(Value value);
  Value log(Value value);
  Value tanh(Value value);
  Value sigmoid(Value value);
  Value erf(Value value);
  Value sin(Value value);
  Value cos(Value value);
  Value pow(Value base, Value exponent);

  /// f16 and bf16 values in f32, where derivative formulas keep their
  /// precision; others as they are.
  Value widen(Value value);
  /// `value` in `like`'s element type.
  Value castLike(Value value, Value like);

  Value reshape(Value value, ArrayRef<int64_t> shape);
  Value permute(Value value, ArrayRef<int64_t> perm);
  /// `value` with its last two dims swapped.
  Value transpose(Value value);
  Value sum(Value value, ArrayRef<int64_t> dims, bool keepdim = false);
  /// `value` placed at result dims `dims` of a tensor of `shape`.
  Value broadcast(Value value, ArrayRef<int64_t> shape, ArrayRef<int64_t> dims);
  Value expand(Value value, ArrayRef<int64_t> shape);
  Value matmul(Value lhs, Value rhs);
  Value pad(Value value, ArrayRef<int64_t> low, ArrayRef<int64_t> high);
  Value slice(Value value, ArrayRef<int64_t> starts, ArrayRef<int64_t> limits);

  /// The inverse of a reduction over `dims` (with `keepdim` as it had):
  /// `reduced` repeated along those dims to `inputType`'s shape.
  Value unreduce(Value reduced, RankedTensorType inputType,
                 ArrayRef<int64_t> dims, bool keepdim);
  /// The adjoint of repeating `value` to `resultShape` (fuser.broadcast
  /// with `dims`, or fuser.expand with every dim its own): the sum of the
  /// cotangent over the repeated elements, in `inputType`'s shape.
  Value sumToShape(Value cotangent, RankedTensorType inputType,
                   ArrayRef<int64_t> dims);

  OpBuilder &builder;
  Location loc;
};

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_IR_DERIVATIVEBUILDER_H
