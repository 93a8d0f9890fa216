//===- PointwiseDerivatives.cpp - derivative rules of elementwise ops -----===//
//
// Each rule multiplies the result's cotangent by the op's derivative,
// written with the op's own operands and result. Formulas with more than a
// product are computed in f32 for 16-bit types and rounded once, as the
// forward kernels compute.
//
//===----------------------------------------------------------------------===//

#include "DerivativeBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// Sets the one operand's cotangent to `derivative(x, y, g)`, computed on
/// widened values and rounded to the operand's type.
template <typename Op, typename Rule>
LogicalResult unaryRule(Op op, OpBuilder &builder,
                        ArrayRef<Value> resultCotangents,
                        SmallVectorImpl<Value> &operandCotangents, Rule rule) {
  DerivativeBuilder d(builder, op.getLoc());
  Value x = op.getInput();
  Value gradient = rule(d, d.widen(x), d.widen(op.getResult()),
                        d.widen(resultCotangents[0]));
  operandCotangents.assign({d.castLike(gradient, x)});
  return success();
}

} // namespace

LogicalResult NegOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign({d.neg(cotangents[0])});
  return success();
}

LogicalResult AbsOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value g = cotangents[0];
  Value negative = d.compare(CompareKind::LT, getInput(), d.constant(0.0, g));
  operandCotangents.assign(
      {WhereOp::create(builder, getLoc(), negative, d.neg(g), g)});
  return success();
}

LogicalResult ReluOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value g = cotangents[0];
  Value positive = d.compare(CompareKind::GT, getInput(), d.constant(0.0, g));
  operandCotangents.assign({d.keepWhere(positive, g)});
  return success();
}

LogicalResult ExpOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value, Value y, Value g) {
                     return d.mul(g, y);
                   });
}

LogicalResult LogOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value x, Value, Value g) {
                     return d.div(g, x);
                   });
}

LogicalResult SqrtOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  // d sqrt(x) = 1 / (2 sqrt(x))
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value, Value y, Value g) {
                     return d.div(d.scale(g, 0.5), y);
                   });
}

LogicalResult RsqrtOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                                SmallVectorImpl<Value> &operandCotangents) {
  // d x^(-1/2) = -1/2 x^(-3/2) = -1/2 y^3
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value, Value y, Value g) {
                     return d.mul(d.scale(g, -0.5), d.mul(y, d.mul(y, y)));
                   });
}

LogicalResult TanhOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  // d tanh(x) = 1 - tanh(x)^2
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value, Value y, Value g) {
                     return d.mul(g, d.sub(d.constant(1.0, y), d.mul(y, y)));
                   });
}

LogicalResult SinOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value x, Value, Value g) {
                     return d.mul(g, d.cos(x));
                   });
}

LogicalResult CosOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value x, Value, Value g) {
                     return d.neg(d.mul(g, d.sin(x)));
                   });
}

LogicalResult ErfOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  // d erf(x) = 2 / sqrt(pi) e^(-x^2)
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value x, Value, Value g) {
                     Value gaussian = d.exp(d.neg(d.mul(x, x)));
                     return d.mul(d.scale(g, 2.0 / std::sqrt(M_PI)), gaussian);
                   });
}

LogicalResult SigmoidOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  // d sigmoid(x) = sigmoid(x) (1 - sigmoid(x))
  return unaryRule(*this, builder, cotangents, operandCotangents,
                   [](DerivativeBuilder &d, Value, Value y, Value g) {
                     return d.mul(g, d.mul(y, d.sub(d.constant(1.0, y), y)));
                   });
}

LogicalResult GeluOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  bool tanhApproximation = getApproximation() == GeluApproximation::Tanh;
  return unaryRule(
      *this, builder, cotangents, operandCotangents,
      [&](DerivativeBuilder &d, Value x, Value, Value g) {
        Value one = d.constant(1.0, x);
        Value derivative;
        if (tanhApproximation) {
          // u = c (x + a x^3), gelu = x/2 (1 + tanh u) = x s with
          // s = sigmoid(2u): gelu' = s + 2 x s (1 - s) u'
          //                        = s (1 + 2 c x (1 - s) (1 + 3 a x^2)),
          // one sigmoid (an exp and a division) where the tanh form takes
          // a tanh and more products.
          const double c = std::sqrt(2.0 / M_PI), a = 0.044715;
          Value square = d.mul(x, x);
          Value s =
              d.sigmoid(d.scale(d.add(x, d.scale(d.mul(square, x), a)), 2 * c));
          Value slope = d.add(one, d.scale(square, 3 * a));
          derivative =
              d.mul(s, d.add(one, d.mul(d.scale(d.mul(x, d.sub(one, s)), 2 * c),
                                        slope)));
        } else {
          // gelu = x Phi(x): gelu' = Phi(x) + x phi(x)
          Value cdf =
              d.scale(d.add(one, d.erf(d.scale(x, 1.0 / std::sqrt(2.0)))), 0.5);
          Value pdf = d.scale(d.exp(d.scale(d.mul(x, x), -0.5)),
                              1.0 / std::sqrt(2.0 * M_PI));
          derivative = d.add(cdf, d.mul(x, pdf));
        }
        return d.mul(g, derivative);
      });
}

LogicalResult AddOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  operandCotangents.assign({cotangents[0], cotangents[0]});
  return success();
}

LogicalResult SubOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign({cotangents[0], d.neg(cotangents[0])});
  return success();
}

LogicalResult MulOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value g = cotangents[0];
  operandCotangents.assign({d.mul(g, getRhs()), d.mul(g, getLhs())});
  return success();
}

LogicalResult DivOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  // d(l/r)/dl = 1/r, d(l/r)/dr = -(l/r)/r
  DerivativeBuilder d(builder, getLoc());
  Value g = cotangents[0];
  Value lhsCotangent = d.div(g, getRhs());
  operandCotangents.assign(
      {lhsCotangent, d.neg(d.mul(lhsCotangent, getResult()))});
  return success();
}

namespace {

/// The cotangents of max(lhs, rhs) (`kind` GE) or min(lhs, rhs) (LE): the
/// operand the result came from takes it, lhs on ties.
void extremumRule(Operation *op, CompareKind kind, Value lhs, Value rhs,
                  Value g, OpBuilder &builder,
                  SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, op->getLoc());
  Value fromLhs = d.compare(kind, lhs, rhs);
  operandCotangents.assign({d.keepWhere(fromLhs, g), d.dropWhere(fromLhs, g)});
}

} // namespace

LogicalResult MaximumOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  extremumRule(*this, CompareKind::GE, getLhs(), getRhs(), cotangents[0],
               builder, operandCotangents);
  return success();
}

LogicalResult MinimumOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> cotangents,
                                  SmallVectorImpl<Value> &operandCotangents) {
  extremumRule(*this, CompareKind::LE, getLhs(), getRhs(), cotangents[0],
               builder, operandCotangents);
  return success();
}

LogicalResult PowOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                              SmallVectorImpl<Value> &operandCotangents) {
  // d l^r/dl = r l^(r-1), d l^r/dr = l^r ln(l)
  DerivativeBuilder d(builder, getLoc());
  Value l = d.widen(getLhs()), r = d.widen(getRhs());
  Value y = d.widen(getResult()), g = d.widen(cotangents[0]);
  Value lowered = d.pow(l, d.sub(r, d.constant(1.0, r)));
  operandCotangents.assign(
      {d.castLike(d.mul(g, d.mul(r, lowered)), getLhs()),
       d.castLike(d.mul(g, d.mul(y, d.log(l))), getRhs())});
  return success();
}

LogicalResult WhereOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                                SmallVectorImpl<Value> &operandCotangents) {
  // The condition selects; it carries no gradient.
  DerivativeBuilder d(builder, getLoc());
  Value g = cotangents[0];
  operandCotangents.assign({Value(), d.keepWhere(getCondition(), g),
                            d.dropWhere(getCondition(), g)});
  return success();
}

LogicalResult CastOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  Type from = getInput().getType().getElementType();
  if (!isa<FloatType>(from)) {
    InFlightDiagnostic diagnostic =
        emitOpError("has no derivative with respect to its ")
        << from << " operand";
    if (Operation *producer = getInput().getDefiningOp())
      diagnostic << ", which '" << producer->getName()
                 << "' computes from differentiable values";
    diagnostic << ": integer and boolean values carry no gradient (select "
                  "with 'fuser.where' instead of multiplying by a cast "
                  "condition)";
    return failure();
  }
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign({d.cast(cotangents[0], from)});
  return success();
}
