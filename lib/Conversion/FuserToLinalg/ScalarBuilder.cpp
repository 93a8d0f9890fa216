//===- ScalarBuilder.cpp - scalar code of kernel loop bodies -------------===//

#include "ScalarBuilder.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

static constexpr double kPi = 3.14159265358979323846;
static constexpr double kSqrt2 = 1.41421356237309504880;

Type mlir::fuser::getComputeType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

Value ScalarBuilder::convert(Value value, Type to) {
  Type from = value.getType();
  // Upstream truncates integers to i1 and converts floats with fptosi; a
  // fuser bool is `value != 0`.
  if (to.isInteger(1) && from != to) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNE,
                                   value, constant(from, 0));
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ne, value,
                                 constant(from, 0));
  }
  return convertScalarToDtype(builder, loc, value, to,
                              /*isUnsignedCast=*/from.isInteger(1));
}

Value ScalarBuilder::constant(Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(type, value));
  return arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value ScalarBuilder::constantI64(int64_t value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getI64IntegerAttr(value));
}

Value ScalarBuilder::negate(Value x) {
  if (isa<FloatType>(x.getType()))
    return arith::NegFOp::create(builder, loc, x);
  return sub(constant(x.getType(), 0), x);
}

/// `FloatOp` on float operands, `IntegerOp` on (signed) integer ones.
template <typename FloatOp, typename IntegerOp, typename... Operands>
static Value createFloatOrInteger(OpBuilder &builder, Location loc, Value first,
                                  Operands... rest) {
  if (isa<FloatType>(first.getType()))
    return FloatOp::create(builder, loc, first, rest...);
  return IntegerOp::create(builder, loc, first, rest...);
}

Value ScalarBuilder::absolute(Value x) {
  return createFloatOrInteger<math::AbsFOp, math::AbsIOp>(builder, loc, x);
}

Value ScalarBuilder::divide(Value lhs, Value rhs) {
  return createFloatOrInteger<arith::DivFOp, arith::DivSIOp>(builder, loc, lhs,
                                                             rhs);
}

Value ScalarBuilder::maximum(Value lhs, Value rhs) {
  return createFloatOrInteger<arith::MaximumFOp, arith::MaxSIOp>(builder, loc,
                                                                 lhs, rhs);
}

Value ScalarBuilder::minimum(Value lhs, Value rhs) {
  return createFloatOrInteger<arith::MinimumFOp, arith::MinSIOp>(builder, loc,
                                                                 lhs, rhs);
}

Value ScalarBuilder::compare(CompareKind kind, Value lhs, Value rhs) {
  // Indexed by CompareKind: eq, ne, lt, le, gt, ge. Floats compare ordered
  // but for ne, which holds for NaN as in C.
  if (isa<FloatType>(lhs.getType())) {
    static const arith::CmpFPredicate predicates[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return arith::CmpFOp::create(builder, loc,
                                 predicates[static_cast<int>(kind)], lhs, rhs);
  }
  static const arith::CmpIPredicate predicates[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  return arith::CmpIOp::create(builder, loc, predicates[static_cast<int>(kind)],
                               lhs, rhs);
}

Value ScalarBuilder::rsqrt(Value x) {
  return divide(constant(x.getType(), 1),
                math::SqrtOp::create(builder, loc, x));
}

/// Approximate functions on f32 only: f64 keeps its precision, which the
/// finite-difference checks of derivatives rely on.
static arith::FastMathFlags approximateOn(Type type) {
  return type.isF32() ? arith::FastMathFlags::afn : arith::FastMathFlags::none;
}

Value ScalarBuilder::approximateExp(Value x) {
  return math::ExpOp::create(builder, loc, x, approximateOn(x.getType()));
}

Value ScalarBuilder::approximateDivide(Value lhs, Value rhs) {
  return arith::DivFOp::create(builder, loc, lhs, rhs,
                               approximateOn(lhs.getType()));
}

Value ScalarBuilder::sigmoid(Value x) {
  Value one = constant(x.getType(), 1);
  return approximateDivide(one, add(one, approximateExp(negate(x))));
}

Value ScalarBuilder::gelu(Value x, GeluApproximation approximation) {
  Type type = x.getType();
  Value one = constant(type, 1);
  if (approximation == GeluApproximation::Tanh) {
    // x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), is x / (1 +
    // exp(-2u)): one exp and a division instead of a tanh, and no
    // cancellation in 1 + tanh(u) where tanh nears -1 (x < -3).
    Value cube = mul(x, mul(x, x));
    Value sum = add(x, mul(constant(type, 0.044715), cube));
    Value exp =
        approximateExp(mul(constant(type, -2 * std::sqrt(2.0 / kPi)), sum));
    return approximateDivide(x, add(one, exp));
  }
  Value erf =
      math::ErfOp::create(builder, loc, mul(x, constant(type, 1.0 / kSqrt2)));
  return mul(mul(constant(type, 0.5), x), add(one, erf));
}

Value ScalarBuilder::mix(Value state, Value value) {
  Value x = add(arith::XOrIOp::create(builder, loc, state, value),
                constantI64(0x9e3779b97f4a7c15ull));
  for (auto [shift, factor] :
       {std::pair<int64_t, uint64_t>{30, 0xbf58476d1ce4e5b9ull},
        {27, 0x94d049bb133111ebull}}) {
    x = arith::XOrIOp::create(
        builder, loc, x,
        arith::ShRUIOp::create(builder, loc, x, constantI64(shift)));
    x = mul(x, constantI64(factor));
  }
  return arith::XOrIOp::create(
      builder, loc, x,
      arith::ShRUIOp::create(builder, loc, x, constantI64(31)));
}

Value ScalarBuilder::unitInterval(Value bits) {
  Type f64 = builder.getF64Type();
  Value top = arith::ShRUIOp::create(builder, loc, bits, constantI64(11));
  return mul(arith::UIToFPOp::create(builder, loc, f64, top),
             constant(f64, 1.0 / 9007199254740992.0));
}

Value ScalarBuilder::uniform(Value state, double low, double high) {
  Type f64 = builder.getF64Type();
  return add(constant(f64, low),
             mul(constant(f64, high - low), unitInterval(state)));
}

Value ScalarBuilder::normal(Value state, double mean, double std) {
  Type f64 = builder.getF64Type();
  Value u1 = sub(constant(f64, 1.0), unitInterval(state));
  Value u2 = unitInterval(mix(state, constantI64(1)));
  Value radius = math::SqrtOp::create(
      builder, loc,
      mul(constant(f64, -2.0), math::LogOp::create(builder, loc, u1)));
  Value angle = mul(constant(f64, 2 * kPi), u2);
  Value standard = mul(radius, math::CosOp::create(builder, loc, angle));
  return add(constant(f64, mean), mul(constant(f64, std), standard));
}
