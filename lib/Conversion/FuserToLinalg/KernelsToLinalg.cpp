//===- KernelsToLinalg.cpp - kernel bodies as linalg on tensors ----------===//
//
// Kernel functions compute on local tensors with fuser ops. This rewrites
// each op into upstream ops on the same tensors: linalg.generic for
// pointwise ops, reductions, broadcasts and creation ops, linalg.transpose,
// tensor slices and reshapes for views, so upstream bufferization and
// lowering produce CPU code. Narrow floats (f16, bf16) compute in f32.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERKERNELSTOLINALG
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt2 = 1.41421356237309504880;

/// Builds scalar code for the body of a linalg.generic.
class Scalars {
public:
  Scalars(OpBuilder &builder, Location loc) : builder(builder), loc(loc) {}

  /// Where the body is built.
  OpBuilder &builder;
  Location loc;

  /// The type arithmetic on `type` elements happens in.
  static Type computeType(Type type) {
    if (type.isF16() || type.isBF16())
      return Float32Type::get(type.getContext());
    return type;
  }
  Value convert(Value value, Type to) {
    Type from = value.getType();
    if (from == to)
      return value;
    auto fromFloat = dyn_cast<FloatType>(from), toFloat = dyn_cast<FloatType>(to);
    if (fromFloat && toFloat)
      return fromFloat.getWidth() < toFloat.getWidth()
                 ? arith::ExtFOp::create(builder, loc, to, value).getResult()
                 : arith::TruncFOp::create(builder, loc, to, value).getResult();
    if (to.isInteger(1))
      return fromFloat ? arith::CmpFOp::create(builder, loc,
                                               arith::CmpFPredicate::UNE, value,
                                               constant(from, 0))
                             .getResult()
                       : arith::CmpIOp::create(builder, loc,
                                               arith::CmpIPredicate::ne, value,
                                               constant(from, 0))
                             .getResult();
    if (toFloat)
      return from.isInteger(1)
                 ? arith::UIToFPOp::create(builder, loc, to, value).getResult()
                 : arith::SIToFPOp::create(builder, loc, to, value).getResult();
    if (fromFloat)
      return arith::FPToSIOp::create(builder, loc, to, value);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return from.isInteger(1)
                 ? arith::ExtUIOp::create(builder, loc, to, value).getResult()
                 : arith::ExtSIOp::create(builder, loc, to, value).getResult();
    return arith::TruncIOp::create(builder, loc, to, value);
  }
  Value constant(Type type, double value) {
    if (isa<FloatType>(type))
      return arith::ConstantOp::create(builder, loc,
                                       builder.getFloatAttr(type, value));
    return arith::ConstantOp::create(
        builder, loc,
        builder.getIntegerAttr(type, static_cast<int64_t>(value)));
  }

  Value unary(Operation *op, Value x) {
    Type type = x.getType();
    bool isFloat = isa<FloatType>(type);
    return TypeSwitch<Operation *, Value>(op)
        .Case([&](NegOp) -> Value {
          if (isFloat)
            return arith::NegFOp::create(builder, loc, x);
          return arith::SubIOp::create(builder, loc, constant(type, 0), x);
        })
        .Case([&](AbsOp) -> Value {
          if (isFloat)
            return math::AbsFOp::create(builder, loc, x);
          return math::AbsIOp::create(builder, loc, x);
        })
        .Case([&](ReluOp) { return maximum(x, constant(type, 0)); })
        .Case([&](ExpOp) { return math::ExpOp::create(builder, loc, x); })
        .Case([&](LogOp) { return math::LogOp::create(builder, loc, x); })
        .Case([&](SqrtOp) { return math::SqrtOp::create(builder, loc, x); })
        // 1 / sqrt: libm has no rsqrt.
        .Case([&](RsqrtOp) {
          return arith::DivFOp::create(builder, loc, constant(type, 1),
                                       math::SqrtOp::create(builder, loc, x));
        })
        .Case([&](TanhOp) { return math::TanhOp::create(builder, loc, x); })
        .Case([&](SigmoidOp) {
          Value one = constant(type, 1);
          Value exp = math::ExpOp::create(builder, loc,
                                          arith::NegFOp::create(builder, loc, x));
          return arith::DivFOp::create(
              builder, loc, one, arith::AddFOp::create(builder, loc, one, exp));
        })
        .Case([&](GeluOp gelu) { return this->gelu(x, gelu.getApproximation()); })
        .Default([](Operation *) { return Value(); });
  }

  Value binary(Operation *op, Value a, Value b) {
    bool isFloat = isa<FloatType>(a.getType());
    return TypeSwitch<Operation *, Value>(op)
        .Case([&](AddOp) -> Value {
          if (isFloat)
            return arith::AddFOp::create(builder, loc, a, b);
          return arith::AddIOp::create(builder, loc, a, b);
        })
        .Case([&](SubOp) -> Value {
          if (isFloat)
            return arith::SubFOp::create(builder, loc, a, b);
          return arith::SubIOp::create(builder, loc, a, b);
        })
        .Case([&](MulOp) -> Value {
          if (isFloat)
            return arith::MulFOp::create(builder, loc, a, b);
          return arith::MulIOp::create(builder, loc, a, b);
        })
        .Case([&](DivOp) -> Value {
          if (isFloat)
            return arith::DivFOp::create(builder, loc, a, b);
          return arith::DivSIOp::create(builder, loc, a, b);
        })
        .Case([&](MaximumOp) { return maximum(a, b); })
        .Case([&](MinimumOp) { return minimum(a, b); })
        .Case([&](PowOp) { return math::PowFOp::create(builder, loc, a, b); })
        .Default([](Operation *) { return Value(); });
  }

  Value compare(CompareKind kind, Value a, Value b) {
    if (isa<FloatType>(a.getType())) {
      static const arith::CmpFPredicate predicates[] = {
          arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
          arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
          arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
      return arith::CmpFOp::create(builder, loc,
                                   predicates[static_cast<int>(kind)], a, b);
    }
    static const arith::CmpIPredicate predicates[] = {
        arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
        arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
        arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
    return arith::CmpIOp::create(builder, loc,
                                 predicates[static_cast<int>(kind)], a, b);
  }

  Value maximum(Value a, Value b) {
    if (isa<FloatType>(a.getType()))
      return arith::MaximumFOp::create(builder, loc, a, b);
    return arith::MaxSIOp::create(builder, loc, a, b);
  }
  Value minimum(Value a, Value b) {
    if (isa<FloatType>(a.getType()))
      return arith::MinimumFOp::create(builder, loc, a, b);
    return arith::MinSIOp::create(builder, loc, a, b);
  }

  /// A 64-bit mix (splitmix64's finalizer) of `state` and `value`.
  Value mix(Value state, Value value) {
    Type i64 = builder.getI64Type();
    Value x = arith::AddIOp::create(
        builder, loc, arith::XOrIOp::create(builder, loc, state, value),
        arith::ConstantOp::create(
            builder, loc,
            builder.getIntegerAttr(
                i64, static_cast<int64_t>(0x9e3779b97f4a7c15ull))));
    for (auto [shift, factor] :
         {std::pair<int64_t, uint64_t>{30, 0xbf58476d1ce4e5b9ull},
          {27, 0x94d049bb133111ebull}}) {
      x = arith::XOrIOp::create(
          builder, loc, x,
          arith::ShRUIOp::create(builder, loc, x, constant(i64, shift)));
      x = arith::MulIOp::create(
          builder, loc, x,
          arith::ConstantOp::create(
              builder, loc,
              builder.getIntegerAttr(i64, static_cast<int64_t>(factor))));
    }
    return arith::XOrIOp::create(
        builder, loc, x,
        arith::ShRUIOp::create(builder, loc, x, constant(i64, 31)));
  }

  /// A uniform double in [0, 1) from the top 53 bits of `bits`.
  Value unitInterval(Value bits) {
    Type f64 = builder.getF64Type();
    Value top = arith::ShRUIOp::create(builder, loc, bits,
                                       constant(builder.getI64Type(), 11));
    return arith::MulFOp::create(
        builder, loc, arith::UIToFPOp::create(builder, loc, f64, top),
        constant(f64, 1.0 / 9007199254740992.0));
  }

private:
  Value gelu(Value x, GeluApproximation approximation) {
    Type type = x.getType();
    Value half = constant(type, 0.5), one = constant(type, 1);
    Value inner;
    if (approximation == GeluApproximation::Tanh) {
      // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
      Value cube = arith::MulFOp::create(
          builder, loc, x, arith::MulFOp::create(builder, loc, x, x));
      Value sum = arith::AddFOp::create(
          builder, loc, x,
          arith::MulFOp::create(builder, loc, constant(type, 0.044715), cube));
      inner = math::TanhOp::create(
          builder, loc,
          arith::MulFOp::create(
              builder, loc,
              constant(type, std::sqrt(2.0 / kPi)), sum));
    } else {
      inner = math::ErfOp::create(
          builder, loc,
          arith::MulFOp::create(builder, loc, x,
                                constant(type, 1.0 / kSqrt2)));
    }
    return arith::MulFOp::create(
        builder, loc, arith::MulFOp::create(builder, loc, half, x),
        arith::AddFOp::create(builder, loc, one, inner));
  }
};

/// Rewrites the fuser ops of one kernel function.
class KernelLowering {
public:
  explicit KernelLowering(OpBuilder &builder) : builder(builder) {}
  LogicalResult lower(Operation *op);

private:
  using BodyBuilder =
      function_ref<Value(Scalars &, ValueRange inputs, ValueRange indices)>;
  /// A parallel linalg.generic producing a tensor of `type` from `inputs`
  /// read through `maps` (the result through the identity); the body gets
  /// the inputs in their compute type and, when `indexed`, the element's
  /// indices.
  Value generic(Location loc, RankedTensorType type, ValueRange inputs,
                ArrayRef<AffineMap> maps, BodyBuilder body,
                bool indexed = false);
  Value pointwise(Location loc, RankedTensorType type, ValueRange inputs,
                  BodyBuilder body, bool indexed = false);
  Value reduce(Location loc, Operation *op, Value input, ArrayRef<int64_t> dims,
               bool keepdim, RankedTensorType type);
  /// Input dims read for result dims: `dimFor[i]` is the result dim input
  /// dim i follows, or -1 where the input has size 1 and is broadcast.
  AffineMap broadcastMap(ArrayRef<int64_t> dimFor, int64_t resultRank);
  Value random(Location loc, Operation *op, RankedTensorType type,
               ValueRange offsets, int64_t seed);
  /// `into` with `input` inserted at `offset` along `dim`.
  Value insertAt(Location loc, Value input, Value into, int64_t dim,
                 int64_t offset);
  std::pair<Value, Value> lowerVarMean(VarMeanOp op);

  OpBuilder &builder;
};
} // namespace

Value KernelLowering::generic(Location loc, RankedTensorType type,
                              ValueRange inputs, ArrayRef<AffineMap> maps,
                              BodyBuilder body, bool indexed) {
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> indexing(maps);
  indexing.push_back(builder.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto op = linalg::GenericOp::create(
      builder, loc, type, inputs, init, indexing, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange arguments) {
        Scalars scalars(nested, nestedLoc);
        SmallVector<Value> values;
        for (Value argument : arguments.drop_back())
          values.push_back(scalars.convert(
              argument, Scalars::computeType(argument.getType())));
        SmallVector<Value> indices;
        for (int64_t dim = 0; indexed && dim < type.getRank(); ++dim)
          indices.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
        Value result = body(scalars, values, indices);
        linalg::YieldOp::create(
            nested, nestedLoc,
            scalars.convert(result, type.getElementType()));
      });
  return op.getResult(0);
}

Value KernelLowering::pointwise(Location loc, RankedTensorType type,
                                ValueRange inputs, BodyBuilder body,
                                bool indexed) {
  SmallVector<AffineMap> maps(inputs.size(),
                              builder.getMultiDimIdentityMap(type.getRank()));
  return generic(loc, type, inputs, maps, body, indexed);
}

AffineMap KernelLowering::broadcastMap(ArrayRef<int64_t> dimFor,
                                       int64_t resultRank) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dimFor)
    exprs.push_back(dim < 0 ? builder.getAffineConstantExpr(0)
                            : builder.getAffineDimExpr(dim));
  return AffineMap::get(resultRank, 0, exprs, builder.getContext());
}

Value KernelLowering::reduce(Location loc, Operation *op, Value input,
                             ArrayRef<int64_t> dims, bool keepdim,
                             RankedTensorType type) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Type element = type.getElementType();
  Type compute = Scalars::computeType(element);
  // Accumulate in the compute type, then convert.
  double identity = 0;
  if (isa<MaxOp>(op))
    identity = -std::numeric_limits<double>::infinity();
  if (isa<MinOp>(op))
    identity = std::numeric_limits<double>::infinity();
  auto accumulatorType = RankedTensorType::get(type.getShape(), compute);
  Scalars scalars(builder, loc);
  Value initial;
  if (auto integer = dyn_cast<IntegerType>(compute); integer && std::isinf(identity)) {
    unsigned width = integer.getWidth();
    initial = arith::ConstantOp::create(
        builder, loc,
        builder.getIntegerAttr(integer, identity < 0
                                            ? APInt::getSignedMinValue(width)
                                            : APInt::getSignedMaxValue(width)));
  } else {
    initial = scalars.constant(compute, identity);
  }
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(), compute);
  Value filled =
      linalg::FillOp::create(builder, loc, initial, empty).getResult(0);
  SmallVector<AffineExpr> outputExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim) {
    bool reduced = llvm::is_contained(dims, dim);
    iterators.push_back(reduced ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (!reduced)
      outputExprs.push_back(builder.getAffineDimExpr(dim));
    else if (keepdim)
      outputExprs.push_back(builder.getAffineConstantExpr(0));
  }
  SmallVector<AffineMap> maps{
      builder.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, outputExprs, builder.getContext())};
  Value accumulated =
      linalg::GenericOp::create(
          builder, loc, accumulatorType, input, filled, maps, iterators,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange arguments) {
            Scalars body(nested, nestedLoc);
            Value x = body.convert(arguments[0], compute);
            Value acc = arguments[1];
            Value next = isa<MaxOp>(op)   ? body.maximum(acc, x)
                         : isa<MinOp>(op) ? body.minimum(acc, x)
                         : isa<FloatType>(compute)
                             ? arith::AddFOp::create(nested, nestedLoc, acc, x)
                                   .getResult()
                             : arith::AddIOp::create(nested, nestedLoc, acc, x)
                                   .getResult();
            linalg::YieldOp::create(nested, nestedLoc, next);
          })
          .getResult(0);
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= inputType.getDimSize(dim);
  return pointwise(loc, type, accumulated,
                   [&](Scalars &body, ValueRange values, ValueRange) -> Value {
                     if (!isa<MeanOp>(op))
                       return values[0];
                     return arith::DivFOp::create(
                         body.builder, body.loc, values[0],
                         body.constant(compute, static_cast<double>(count)));
                   });
}

Value KernelLowering::random(Location loc, Operation *op,
                             RankedTensorType type, ValueRange offsets,
                             int64_t seed) {
  return pointwise(loc, type, {}, [&](Scalars &s, ValueRange,
                                      ValueRange indices) -> Value {
    OpBuilder &b = s.builder;
    Location at = s.loc;
    // Keyed by the seed and the element's global coordinates, so every
    // piece of a sharded tensor draws what the unsharded one holds.
    Type i64 = b.getI64Type();
    Value state = s.constant(i64, static_cast<double>(seed));
    for (auto [dim, index] : llvm::enumerate(indices)) {
      Value global =
          offsets.empty()
              ? index
              : arith::AddIOp::create(b, at, index, offsets[dim]).getResult();
      state = s.mix(state, arith::IndexCastOp::create(b, at, i64, global));
    }
    Type f64 = b.getF64Type();
    if (auto uniform = dyn_cast<UniformOp>(op)) {
      double low = uniform.getLow().convertToDouble();
      double high = uniform.getHigh().convertToDouble();
      return arith::AddFOp::create(
          b, at, s.constant(f64, low),
          arith::MulFOp::create(b, at, s.constant(f64, high - low),
                                s.unitInterval(state)));
    }
    // Box-Muller from two draws.
    auto normal = cast<NormalOp>(op);
    Value u1 = arith::SubFOp::create(b, at, s.constant(f64, 1.0),
                                     s.unitInterval(state));
    Value u2 = s.unitInterval(s.mix(state, s.constant(i64, 1)));
    Value radius = math::SqrtOp::create(
        b, at,
        arith::MulFOp::create(b, at, s.constant(f64, -2.0),
                              math::LogOp::create(b, at, u1)));
    Value angle =
        arith::MulFOp::create(b, at, s.constant(f64, 2 * kPi), u2);
    Value standard = arith::MulFOp::create(
        b, at, radius, math::CosOp::create(b, at, angle));
    return arith::AddFOp::create(
        b, at, s.constant(f64, normal.getMean().convertToDouble()),
        arith::MulFOp::create(b, at,
                              s.constant(f64, normal.getStd().convertToDouble()),
                              standard));
  }, /*indexed=*/true);
}

LogicalResult KernelLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  auto resultType = op->getNumResults() == 1
                        ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                        : RankedTensorType();
  Value result;
  if (isa<NegOp, AbsOp, ReluOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp,
          SigmoidOp, GeluOp>(op)) {
    result = pointwise(loc, resultType, op->getOperand(0),
                       [&](Scalars &scalars, ValueRange values, ValueRange) {
                         return scalars.unary(op, values[0]);
                       });
  } else if (isa<AddOp, SubOp, MulOp, DivOp, MaximumOp, MinimumOp, PowOp>(op)) {
    result = pointwise(loc, resultType, op->getOperands(),
                       [&](Scalars &scalars, ValueRange values, ValueRange) {
                         return scalars.binary(op, values[0], values[1]);
                       });
  } else if (auto compare = dyn_cast<CompareOp>(op)) {
    result = pointwise(loc, resultType, {compare.getLhs(), compare.getRhs()},
                       [&](Scalars &scalars, ValueRange values, ValueRange) {
                         return scalars.compare(compare.getKind(), values[0],
                                                values[1]);
                       });
  } else if (auto where = dyn_cast<WhereOp>(op)) {
    result = pointwise(loc, resultType, where->getOperands(),
                       [&](Scalars &s, ValueRange values, ValueRange) -> Value {
                         return arith::SelectOp::create(s.builder, s.loc,
                                                        values[0], values[1],
                                                        values[2]);
                       });
  } else if (isa<CastOp, SetOp, SegmentSetOp>(op)) {
    result = pointwise(loc, resultType, op->getOperand(0),
                       [&](Scalars &, ValueRange values, ValueRange) {
                         return values[0];
                       });
  } else if (auto full = dyn_cast<FullOp>(op)) {
    Scalars scalars(builder, loc);
    Value empty = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                          resultType.getElementType());
    result = linalg::FillOp::create(
                 builder, loc,
                 scalars.constant(resultType.getElementType(),
                                  full.getValue().convertToDouble()),
                 empty)
                 .getResult(0);
  } else if (auto iota = dyn_cast<IotaOp>(op)) {
    int64_t dim = iota.getDimAttr().getInt();
    result = pointwise(
        loc, resultType, {},
        [&](Scalars &s, ValueRange, ValueRange indices) -> Value {
          OpBuilder &b = s.builder;
          Value index = indices[dim];
          if (!iota.getOffsets().empty())
            index = arith::AddIOp::create(b, s.loc, index,
                                          iota.getOffsets()[dim]);
          Type f64 = b.getF64Type();
          Value position = arith::SIToFPOp::create(
              b, s.loc, f64,
              arith::IndexCastOp::create(b, s.loc, b.getI64Type(), index));
          return arith::AddFOp::create(
              b, s.loc, s.constant(f64, iota.getStart().convertToDouble()),
              arith::MulFOp::create(
                  b, s.loc, s.constant(f64, iota.getStep().convertToDouble()),
                  position));
        }, /*indexed=*/true);
  } else if (auto uniform = dyn_cast<UniformOp>(op)) {
    result = random(loc, op, resultType, uniform.getOffsets(),
                    uniform.getSeed());
  } else if (auto normal = dyn_cast<NormalOp>(op)) {
    result = random(loc, op, resultType, normal.getOffsets(),
                    normal.getSeed());
  } else if (isa<SumOp, MaxOp, MinOp, MeanOp>(op)) {
    auto dims = op->getAttrOfType<DenseI64ArrayAttr>("dims").asArrayRef();
    result = reduce(loc, op, op->getOperand(0), dims,
                    op->hasAttr("keepdim"), resultType);
  } else if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    auto input = cast<RankedTensorType>(broadcast.getInput().getType());
    SmallVector<int64_t> dimFor;
    for (auto [from, to] : llvm::enumerate(broadcast.getDims()))
      dimFor.push_back(input.getDimSize(from) == 1 &&
                               resultType.getDimSize(to) != 1
                           ? -1
                           : to);
    result = generic(loc, resultType, broadcast.getInput(),
                     broadcastMap(dimFor, resultType.getRank()),
                     [](Scalars &, ValueRange values, ValueRange) {
                       return values[0];
                     });
  } else if (auto expand = dyn_cast<ExpandOp>(op)) {
    auto input = cast<RankedTensorType>(expand.getInput().getType());
    SmallVector<int64_t> dimFor;
    for (int64_t dim = 0; dim < input.getRank(); ++dim)
      dimFor.push_back(input.getDimSize(dim) == 1 &&
                               resultType.getDimSize(dim) != 1
                           ? -1
                           : dim);
    result = generic(loc, resultType, expand.getInput(),
                     broadcastMap(dimFor, resultType.getRank()),
                     [](Scalars &, ValueRange values, ValueRange) {
                       return values[0];
                     });
  } else if (isa<SqueezeOp, ReshapeOp>(op)) {
    // Same elements in row-major order: through one flat dim.
    Value input = op->getOperand(0);
    auto inputType = cast<RankedTensorType>(input.getType());
    auto flatType = RankedTensorType::get({inputType.getNumElements()},
                                          inputType.getElementType());
    SmallVector<ReassociationIndices> all(1);
    for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
      all.front().push_back(dim);
    Value flat = inputType.getRank() == 0
                     ? tensor::ExpandShapeOp::create(
                           builder, loc, flatType, input,
                           ArrayRef<ReassociationIndices>())
                           .getResult()
                     : tensor::CollapseShapeOp::create(builder, loc, flatType,
                                                       input, all)
                           .getResult();
    SmallVector<ReassociationIndices> back(1);
    for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
      back.front().push_back(dim);
    result = resultType.getRank() == 0
                 ? tensor::CollapseShapeOp::create(
                       builder, loc, resultType, flat,
                       ArrayRef<ReassociationIndices>())
                       .getResult()
                 : tensor::ExpandShapeOp::create(builder, loc, resultType,
                                                 flat, back)
                       .getResult();
  } else if (auto permute = dyn_cast<PermuteOp>(op)) {
    Value empty = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                          resultType.getElementType());
    result = linalg::TransposeOp::create(builder, loc, permute.getInput(),
                                         empty, permute.getPerm())
                 .getResult()
                 .front();
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    result = tensor::ExtractSliceOp::create(
        builder, loc, resultType, slice.getInput(), ValueRange(), ValueRange(),
        ValueRange(), slice.getStarts(), resultType.getShape(),
        slice.getSteps());
  } else if (auto cat = dyn_cast<CatOp>(op)) {
    result = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                     resultType.getElementType());
    int64_t offset = 0, dim = cat.getDim();
    for (Value input : cat.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      result = insertAt(loc, input, result, dim, offset);
      offset += inputType.getDimSize(dim);
    }
  } else if (auto pad = dyn_cast<PadOp>(op)) {
    Scalars scalars(builder, loc);
    Value empty = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                          resultType.getElementType());
    Value filled =
        linalg::FillOp::create(builder, loc,
                               scalars.constant(resultType.getElementType(),
                                                pad.getValue().convertToDouble()),
                               empty)
            .getResult(0);
    SmallVector<int64_t> offsets(pad.getLow());
    result = tensor::InsertSliceOp::create(
        builder, loc, pad.getInput(), filled, ValueRange(), ValueRange(),
        ValueRange(), offsets,
        cast<RankedTensorType>(pad.getInput().getType()).getShape(),
        SmallVector<int64_t>(offsets.size(), 1));
  } else if (auto select = dyn_cast<SelectOp>(op)) {
    auto inputType = cast<RankedTensorType>(select.getInput().getType());
    SmallVector<int64_t> offsets(inputType.getRank(), 0),
        sizes(inputType.getShape()), strides(inputType.getRank(), 1);
    offsets[select.getDim()] = select.getIndex();
    sizes[select.getDim()] = 1;
    result = tensor::ExtractSliceOp::create(
        builder, loc, resultType, select.getInput(), ValueRange(),
        ValueRange(), ValueRange(), offsets, sizes, strides);
  } else if (auto varMean = dyn_cast<VarMeanOp>(op)) {
    auto [variance, mean] = lowerVarMean(varMean);
    varMean.getVariance().replaceAllUsesWith(variance);
    varMean.getMean().replaceAllUsesWith(mean);
    op->erase();
    return success();
  } else {
    return op->emitError("the CPU code generator does not handle this op "
                         "yet");
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

Value KernelLowering::insertAt(Location loc, Value input, Value into,
                               int64_t dim, int64_t offset) {
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> offsets(inputType.getRank(), 0);
  offsets[dim] = offset;
  return tensor::InsertSliceOp::create(
      builder, loc, input, into, ValueRange(), ValueRange(), ValueRange(),
      offsets, inputType.getShape(),
      SmallVector<int64_t>(inputType.getRank(), 1));
}

/// Variance and mean in the compute type: the mean (sum / N) read back
/// over the input, the squared differences summed and divided by
/// N - correction; each result read out of the keepdim form.
std::pair<Value, Value> KernelLowering::lowerVarMean(VarMeanOp op) {
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  int64_t rank = inputType.getRank();
  ArrayRef<int64_t> dims = op.getDims();
  Type element = inputType.getElementType();
  Type compute = Scalars::computeType(element);
  SmallVector<int64_t> keptShape(inputType.getShape());
  int64_t count = 1;
  for (int64_t dim : dims) {
    count *= keptShape[dim];
    keptShape[dim] = 1;
  }
  auto keptType = RankedTensorType::get(keptShape, compute);
  // Reduced dims read index 0 of the keepdim form.
  SmallVector<int64_t> fromKept;
  for (int64_t dim = 0; dim < rank; ++dim)
    fromKept.push_back(llvm::is_contained(dims, dim) ? -1 : dim);
  AffineMap keptMap = broadcastMap(fromKept, rank);
  auto divide = [&](Value sums, double by) {
    return pointwise(loc, keptType, sums,
                     [&](Scalars &s, ValueRange values, ValueRange) -> Value {
                       return arith::DivFOp::create(s.builder, s.loc, values[0],
                                                    s.constant(compute, by));
                     });
  };
  // The sums, as fuser.sum would (any op other than max/min/mean sums).
  Value mean = divide(reduce(loc, op, op.getInput(), dims, true, keptType),
                      static_cast<double>(count));
  auto squaresType = RankedTensorType::get(inputType.getShape(), compute);
  Value squares = generic(
      loc, squaresType, {op.getInput(), mean},
      {builder.getMultiDimIdentityMap(rank), keptMap},
      [&](Scalars &s, ValueRange values, ValueRange) -> Value {
        Value difference =
            arith::SubFOp::create(s.builder, s.loc, values[0], values[1]);
        return arith::MulFOp::create(s.builder, s.loc, difference, difference);
      });
  Value variance =
      divide(reduce(loc, op, squares, dims, true, keptType),
             static_cast<double>(count - op.getCorrection()));
  // Out of the keepdim form into each result's shape and element type.
  auto readOut = [&](Value kept, Type resultType) {
    auto type = cast<RankedTensorType>(resultType);
    SmallVector<int64_t> dimFor;
    for (int64_t dim = 0, next = 0; dim < rank; ++dim) {
      if (!llvm::is_contained(dims, dim) || op.getKeepdim())
        dimFor.push_back(next++);
      else
        dimFor.push_back(-2);
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t dim : dimFor)
      exprs.push_back(dim < 0 ? builder.getAffineConstantExpr(0)
                              : builder.getAffineDimExpr(dim));
    return generic(loc, type, kept,
                   AffineMap::get(type.getRank(), 0, exprs,
                                  builder.getContext()),
                   [](Scalars &, ValueRange values, ValueRange) {
                     return values[0];
                   });
  };
  return {readOut(variance, op.getVariance().getType()),
          readOut(mean, op.getMean().getType())};
}

namespace {
struct LowerKernelsToLinalgPass
    : public mlir::fuser::impl::LowerKernelsToLinalgBase<
          LowerKernelsToLinalgPass> {
  void runOnOperation() override {
    ModuleOp kernels = lookupKernelModule(getOperation());
    if (!kernels)
      return;
    SmallVector<Operation *> ops;
    kernels.walk([&](Operation *op) {
      if (isa<FuserDialect>(op->getDialect()))
        ops.push_back(op);
    });
    OpBuilder builder(&getContext());
    KernelLowering lowering(builder);
    for (Operation *op : ops)
      if (failed(lowering.lower(op)))
        return signalPassFailure();
  }
};
} // namespace
