//===- GenericBuilder.cpp - the tensor ops the patterns share ------------===//

#include "GenericBuilder.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fuser;

Value mlir::fuser::copyElement(ScalarBuilder &, ValueRange inputs, ValueRange) {
  return inputs.front();
}

Value mlir::fuser::buildParallelGeneric(OpBuilder &builder, Location loc,
                                        RankedTensorType type,
                                        ValueRange inputs,
                                        ArrayRef<AffineMap> maps,
                                        ElementBuilder element, bool indexed) {
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> indexing(maps);
  indexing.push_back(builder.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, type, inputs, init, indexing, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange arguments) {
        ScalarBuilder scalars(nested, nestedLoc);
        SmallVector<Value> values;
        for (Value argument : arguments.drop_back())
          values.push_back(
              scalars.convert(argument, getComputeType(argument.getType())));
        SmallVector<Value> indices;
        for (int64_t dim = 0; indexed && dim < type.getRank(); ++dim)
          indices.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
        Value result = element(scalars, values, indices);
        linalg::YieldOp::create(nested, nestedLoc,
                                scalars.convert(result, type.getElementType()));
      });
  return generic.getResult(0);
}

Value mlir::fuser::buildPointwiseGeneric(OpBuilder &builder, Location loc,
                                         RankedTensorType type,
                                         ValueRange inputs,
                                         ElementBuilder element, bool indexed) {
  SmallVector<AffineMap> maps(inputs.size(),
                              builder.getMultiDimIdentityMap(type.getRank()));
  return buildParallelGeneric(builder, loc, type, inputs, maps, element,
                              indexed);
}

AffineMap mlir::fuser::getBroadcastMap(MLIRContext *context,
                                       ArrayRef<int64_t> dimFor,
                                       int64_t resultRank) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dimFor)
    exprs.push_back(dim < 0 ? getAffineConstantExpr(0, context)
                            : getAffineDimExpr(dim, context));
  return AffineMap::get(resultRank, 0, exprs, context);
}

Value mlir::fuser::buildFull(OpBuilder &builder, Location loc,
                             RankedTensorType type, double value) {
  Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                        type.getElementType());
  Value element =
      ScalarBuilder(builder, loc).constant(type.getElementType(), value);
  return linalg::FillOp::create(builder, loc, element, empty).getResult(0);
}
