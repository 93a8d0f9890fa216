//===- GenericBuilder.h - the tensor ops the patterns share -----*- C++ -*-===//
//
// The all-parallel linalg.generic that pointwise ops, broadcasts, creation
// ops and the last step of reductions become, and the filled tensors of
// full and pad.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_CONVERSION_FUSERTOLINALG_GENERICBUILDER_H
#define LIB_CONVERSION_FUSERTOLINALG_GENERICBUILDER_H

#include "ScalarBuilder.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::fuser {

/// Builds one element of a generic from its inputs, in their compute type,
/// and, when the generic is indexed, the element's indices; the element it
/// returns is converted to the result's element type.
using ElementBuilder =
    function_ref<Value(ScalarBuilder &, ValueRange inputs, ValueRange indices)>;

/// The element builder of copies: the input as it is.
Value copyElement(ScalarBuilder &, ValueRange inputs, ValueRange);

/// A parallel linalg.generic producing a tensor of `type` from `inputs`
/// read through `maps` (the result through the identity).
Value buildParallelGeneric(OpBuilder &builder, Location loc,
                           RankedTensorType type, ValueRange inputs,
                           ArrayRef<AffineMap> maps, ElementBuilder element,
                           bool indexed = false);
/// buildParallelGeneric with every input read through the identity.
Value buildPointwiseGeneric(OpBuilder &builder, Location loc,
                            RankedTensorType type, ValueRange inputs,
                            ElementBuilder element, bool indexed = false);

/// The map reading an input from the indices of a result of rank
/// `resultRank`: input dim i reads result dim `dimFor[i]`, or index 0 where
/// `dimFor[i]` is negative (a size-1 dim broadcast).
AffineMap getBroadcastMap(MLIRContext *context, ArrayRef<int64_t> dimFor,
                          int64_t resultRank);

/// A tensor of `type` full of `value` (tensor.empty + linalg.fill).
Value buildFull(OpBuilder &builder, Location loc, RankedTensorType type,
                double value);

} // namespace mlir::fuser

#endif // LIB_CONVERSION_FUSERTOLINALG_GENERICBUILDER_H
