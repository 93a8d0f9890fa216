//===- ReductionOps.cpp - reduction op inference --------------------------===//

#include "TypeInference.h"

using namespace mlir;
using namespace mlir::fuser;

LogicalResult mlir::fuser::checkDimList(OptionalLoc loc, ArrayRef<int64_t> dims,
                                        int64_t rank, StringRef what) {
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return emitOptionalError(loc, what, " ", dim,
                               " is out of range for rank ", rank);
    if (seen[dim])
      return emitOptionalError(loc, what, " ", dim, " appears twice");
    seen[dim] = true;
  }
  return success();
}

LogicalResult mlir::fuser::inferReductionTypes(OptionalLoc loc, Value input,
                                               ArrayRef<int64_t> dims,
                                               bool keepdim,
                                               unsigned numResults,
                                               InferredTypes &types) {
  FailureOr<RankedTensorType> inputType = getTensorOperand(loc, input, "input");
  if (failed(inputType))
    return failure();
  int64_t rank = inputType->getRank();
  if (dims.empty())
    return emitOptionalError(loc, "reduction needs at least one dim");
  if (failed(checkDimList(loc, dims, rank, "reduction dim")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!llvm::is_contained(dims, dim))
      shape.push_back(inputType->getDimSize(dim));
    else if (keepdim)
      shape.push_back(1);
  }
  types.append(numResults,
               RankedTensorType::get(shape, inputType->getElementType()));
  return success();
}
