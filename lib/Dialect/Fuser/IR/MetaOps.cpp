//===- MetaOps.cpp - layout/meta op inference and verifiers ---------------===//

#include "TypeInference.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;

static RankedTensorType withShape(RankedTensorType type,
                                  ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, type.getElementType());
}

static LogicalResult verifySameElementType(Operation *op, RankedTensorType input,
                                           RankedTensorType result) {
  if (input.getElementType() != result.getElementType())
    return op->emitOpError("result element type ")
           << result.getElementType() << " differs from the input's "
           << input.getElementType();
  return success();
}

/// A dim of size `from` may become `to` by repetition: equal, or from 1.
static bool canExpand(int64_t from, int64_t to) {
  return from == to || from == 1 || ShapedType::isDynamic(from) ||
         ShapedType::isDynamic(to);
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifySameElementType(*this, input, result)))
    return failure();
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != input.getRank())
    return emitOpError("dims has ")
           << dims.size() << " entries for an input of rank " << input.getRank();
  for (auto [inputDim, resultDim] : llvm::enumerate(dims)) {
    if (resultDim < 0 || resultDim >= result.getRank())
      return emitOpError("input dim ")
             << inputDim << " maps to result dim " << resultDim
             << ", out of range for rank " << result.getRank();
    if (inputDim > 0 && resultDim <= dims[inputDim - 1])
      return emitOpError("dims must be strictly increasing (input dim ")
             << inputDim << " maps to " << resultDim << " after "
             << dims[inputDim - 1] << "); reorder dims with fuser.permute";
    int64_t from = input.getDimSize(inputDim);
    int64_t to = result.getDimSize(resultDim);
    if (!canExpand(from, to))
      return emitOpError("input dim ")
             << inputDim << " of size " << from
             << " cannot broadcast to result dim " << resultDim << " of size "
             << to << " (sizes must match or the input size must be 1)";
  }
  return success();
}

LogicalResult ExpandOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifySameElementType(*this, input, result)))
    return failure();
  if (input.getRank() != result.getRank())
    return emitOpError("input rank ")
           << input.getRank() << " differs from result rank "
           << result.getRank() << "; add dims with fuser.broadcast";
  for (int64_t dim = 0; dim < input.getRank(); ++dim)
    if (!canExpand(input.getDimSize(dim), result.getDimSize(dim)))
      return emitOpError("input dim ")
             << dim << " of size " << input.getDimSize(dim)
             << " cannot expand to size " << result.getDimSize(dim)
             << " (only size-1 dims expand)";
  return success();
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType();
  RankedTensorType result = getResult().getType();
  if (failed(verifySameElementType(*this, input, result)))
    return failure();
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError("changes the number of elements from ")
           << input.getNumElements() << " to " << result.getNumElements();
  return success();
}

LogicalResult mlir::fuser::inferSqueezeType(OptionalLoc loc, Value input,
                                            ArrayRef<int64_t> dims,
                                            InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type) ||
      failed(checkDimList(loc, dims, type->getRank(), "squeezed dim")))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < type->getRank(); ++dim) {
    int64_t size = type->getDimSize(dim);
    if (!llvm::is_contained(dims, dim)) {
      shape.push_back(size);
      continue;
    }
    if (size != 1)
      return emitOptionalError(loc, "squeezed dim ", dim, " has size ",
                               ShapedType::isDynamic(size)
                                   ? std::string("?")
                                   : std::to_string(size),
                               ", not 1");
  }
  types.push_back(withShape(*type, shape));
  return success();
}

LogicalResult mlir::fuser::inferPermuteType(OptionalLoc loc, Value input,
                                            ArrayRef<int64_t> perm,
                                            InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type))
    return failure();
  if (static_cast<int64_t>(perm.size()) != type->getRank() ||
      failed(checkDimList(std::nullopt, perm, type->getRank(), "")))
    return emitOptionalError(loc, "perm [", perm,
                             "] is not a permutation of the ", type->getRank(),
                             " input dims");
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(type->getDimSize(dim));
  types.push_back(withShape(*type, shape));
  return success();
}

LogicalResult mlir::fuser::inferSliceType(OptionalLoc loc, Value input,
                                          ArrayRef<int64_t> starts,
                                          ArrayRef<int64_t> limits,
                                          ArrayRef<int64_t> steps,
                                          InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  for (auto [name, list] : {std::pair<StringRef, ArrayRef<int64_t>>{"starts", starts},
                            {"limits", limits},
                            {"steps", steps}})
    if (static_cast<int64_t>(list.size()) != rank)
      return emitOptionalError(loc, name, " has ", list.size(),
                               " entries for an input of rank ", rank);
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t size = type->getDimSize(dim);
    int64_t start = starts[dim], limit = limits[dim], step = steps[dim];
    if (step < 1)
      return emitOptionalError(loc, "step ", step, " of dim ", dim,
                               " must be at least 1");
    if (start < 0 || start > limit ||
        (!ShapedType::isDynamic(size) && limit > size))
      return emitOptionalError(loc, "slice [", start, ", ", limit, ") of dim ",
                               dim, " is outside [0, ",
                               ShapedType::isDynamic(size)
                                   ? std::string("?")
                                   : std::to_string(size),
                               "]");
    shape.push_back((limit - start + step - 1) / step);
  }
  types.push_back(withShape(*type, shape));
  return success();
}

LogicalResult mlir::fuser::inferCatType(OptionalLoc loc, ValueRange inputs,
                                        int64_t dim, InferredTypes &types) {
  if (inputs.empty())
    return emitOptionalError(loc, "cat needs at least one input");
  FailureOr<RankedTensorType> first = getTensorOperand(loc, inputs[0], "input #0");
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  if (dim < 0 || dim >= rank)
    return emitOptionalError(loc, "cat dim ", dim, " is out of range for rank ",
                             rank);
  SmallVector<int64_t> shape(first->getShape());
  for (unsigned i = 1; i < inputs.size(); ++i) {
    std::string name = "input #" + std::to_string(i);
    FailureOr<RankedTensorType> type = getTensorOperand(loc, inputs[i], name);
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return emitOptionalError(loc, name, " has element type ",
                               type->getElementType(), " but input #0 has ",
                               first->getElementType());
    if (type->getRank() != rank)
      return emitOptionalError(loc, name, " has rank ", type->getRank(),
                               " but input #0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type->getDimSize(d);
      if (d == dim) {
        shape[d] = ShapedType::isDynamic(size) || ShapedType::isDynamic(shape[d])
                       ? ShapedType::kDynamic
                       : shape[d] + size;
        continue;
      }
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(shape[d]) &&
          size != shape[d])
        return emitOptionalError(loc, name, " dim ", d, " has size ", size,
                                 " but input #0 has ", shape[d],
                                 "; only the cat dim may differ");
    }
  }
  types.push_back(withShape(*first, shape));
  return success();
}

LogicalResult mlir::fuser::inferPadType(OptionalLoc loc, Value input,
                                        ArrayRef<int64_t> low,
                                        ArrayRef<int64_t> high,
                                        InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitOptionalError(loc, "low and high need ", rank,
                             " entries each, got ", low.size(), " and ",
                             high.size());
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (low[dim] < 0 || high[dim] < 0)
      return emitOptionalError(loc, "padding of dim ", dim,
                               " is negative; use fuser.slice to shrink");
    int64_t size = type->getDimSize(dim), padded;
    if (ShapedType::isDynamic(size)) {
      shape.push_back(size);
      continue;
    }
    if (llvm::AddOverflow(size, low[dim], padded) ||
        llvm::AddOverflow(padded, high[dim], padded))
      return emitOptionalError(loc, "padded size of dim ", dim,
                               " does not fit in 64 bits");
    shape.push_back(padded);
  }
  types.push_back(withShape(*type, shape));
  return success();
}

LogicalResult mlir::fuser::inferSelectType(OptionalLoc loc, Value input,
                                           int64_t dim, int64_t index,
                                           InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type))
    return failure();
  if (dim < 0 || dim >= type->getRank())
    return emitOptionalError(loc, "select dim ", dim,
                             " is out of range for rank ", type->getRank());
  int64_t size = type->getDimSize(dim);
  if (index < 0 || (!ShapedType::isDynamic(size) && index >= size))
    return emitOptionalError(loc, "index ", index, " is out of range for dim ",
                             dim, " of size ", size);
  SmallVector<int64_t> shape(type->getShape());
  shape.erase(shape.begin() + dim);
  types.push_back(withShape(*type, shape));
  return success();
}

LogicalResult mlir::fuser::inferSameGlobalTypeOf(OptionalLoc loc, Value input,
                                                 InferredTypes &types) {
  FailureOr<RankedTensorType> type = getTensorOperand(loc, input, "input");
  if (failed(type))
    return failure();
  types.push_back(withShape(*type, type->getShape()));
  return success();
}

OpFoldResult SetOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult SegmentSetOp::verify() {
  ShardingAttr input = getSharding(getInput());
  ShardingAttr result = getSharding(getResult());
  if (!input && !result)
    return success();
  if (!input || !result || !input.hasSamePlacement(result))
    return emitOpError("moves no data: operand and result must have the same "
                       "mesh, dim axes and partial state; use fuser.set to "
                       "reshard");
  return success();
}

LogicalResult KernelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto function = dyn_cast_or_null<FunctionOpInterface>(
      symbolTable.lookupNearestSymbolFrom(*this, getKernel()));
  if (!function)
    return emitOpError("kernel ") << getKernel() << " is not a function";
  SmallVector<Type> tensors(getInputs().getTypes());
  llvm::append_range(tensors, getResultTypes());
  ArrayRef<Type> arguments = function.getArgumentTypes();
  if (arguments.size() < tensors.size())
    return emitOpError("kernel ")
           << getKernel() << " takes " << arguments.size()
           << " arguments but the op has " << tensors.size()
           << " operands and results";
  ArrayRef<Type> buffers = arguments.take_front(tensors.size());
  // The rest are the rank's positions along mesh axes, passed by the host.
  for (unsigned index = tensors.size(); index < arguments.size(); ++index)
    if (!arguments[index].isIndex() ||
        !function.getArgAttrOfType<MeshPositionAttr>(
            index, FuserDialect::getMeshPositionAttrName()))
      return emitOpError("kernel ")
             << getKernel() << " argument #" << index
             << " is neither the buffer of an operand or result nor an "
                "index marked "
             << FuserDialect::getMeshPositionAttrName();
  for (auto [index, buffer, tensor] : llvm::enumerate(buffers, tensors)) {
    auto memref = dyn_cast<MemRefType>(buffer);
    MemRefType local = getLocalBufferType(cast<RankedTensorType>(tensor));
    if (!memref || memref.getShape() != local.getShape() ||
        memref.getElementType() != local.getElementType())
      return emitOpError("kernel buffer #")
             << index << " has type " << buffer << " but the local piece is "
             << local;
  }
  return success();
}
