//===- ScalarBuilder.h - scalar code of kernel loop bodies ------*- C++ -*-===//
//
// The scalar code that the bodies of the fuser-to-linalg generics share:
// element conversions, constants, the activations, comparisons and the
// counter-based random generator.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_CONVERSION_FUSERTOLINALG_SCALARBUILDER_H
#define LIB_CONVERSION_FUSERTOLINALG_SCALARBUILDER_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace mlir::fuser {

/// The type arithmetic on `element` values happens in: f32 for the narrow
/// floats (f16, bf16), `element` itself otherwise.
Type getComputeType(Type element);

/// Builds scalars at one place; add, sub, mul and select come from
/// ArithBuilder and pick the float or integer op by the operands' type.
class ScalarBuilder : public ArithBuilder {
public:
  ScalarBuilder(OpBuilder &builder, Location loc)
      : ArithBuilder(builder, loc), builder(builder), loc(loc) {}

  OpBuilder &builder;
  Location loc;

  /// `value` converted to `to`: integers are signed but i1 (true is 1), and
  /// the conversion to i1 is `value != 0`.
  Value convert(Value value, Type to);
  /// `value` as a constant of the float or integer `type`.
  Value constant(Type type, double value);
  /// An i64 constant holding exactly `value`.
  Value constantI64(int64_t value);

  Value negate(Value x);
  Value absolute(Value x);
  Value divide(Value lhs, Value rhs);
  Value maximum(Value lhs, Value rhs);
  Value minimum(Value lhs, Value rhs);
  Value compare(CompareKind kind, Value lhs, Value rhs);
  /// 1 / sqrt(x): libm has no rsqrt.
  Value rsqrt(Value x);
  /// Sigmoid and the tanh form of GELU take the hardware's approximate exp
  /// and division on f32 (a few ulp each; torch.compile's kernels compute
  /// them so): the tanh form itself is up to 1e-3 off GELU, and the cost
  /// of the exact ones makes these activations slower than memory.
  Value sigmoid(Value x);
  Value gelu(Value x, GeluApproximation approximation);

  /// A 64-bit mix (splitmix64's finalizer) of the i64s `state` and `value`.
  Value mix(Value state, Value value);
  /// An f64 drawn uniformly from [low, high) by the random i64 `state`.
  Value uniform(Value state, double low, double high);
  /// An f64 drawn from the normal distribution (mean, std) by the random i64
  /// `state`: Box-Muller from two draws.
  Value normal(Value state, double mean, double std);

private:
  /// e^x and lhs / rhs of floats, approximate on f32.
  Value approximateExp(Value x);
  Value approximateDivide(Value lhs, Value rhs);
  /// A uniform f64 in [0, 1) from the top 53 bits of the i64 `bits`.
  Value unitInterval(Value bits);
};

} // namespace mlir::fuser

#endif // LIB_CONVERSION_FUSERTOLINALG_SCALARBUILDER_H
