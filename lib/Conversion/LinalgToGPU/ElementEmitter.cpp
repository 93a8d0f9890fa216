//===- ElementEmitter.cpp - a kernel's values, one element at a time ------===//

#include "ElementEmitter.h"
#include "ViewIndexing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

ElementEmitter::ElementEmitter(OpBuilder &builder, Location loc,
                               const IRMapping &kernelValues,
                               int64_t vectorWidth)
    : build(builder), loc(loc), kernelValues(kernelValues),
      width(vectorWidth) {
  // The lane's value is never read: indices substitute the current lane.
  coordinates.push_back(arith::ConstantIndexOp::create(build, loc, 0));
}

AffineExpr ElementEmitter::bind(Value value) {
  coordinates.push_back(value);
  return build.getAffineDimExpr(coordinates.size() - 1);
}

AffineExpr ElementEmitter::lane() const {
  return getAffineDimExpr(0, build.getContext());
}

AffineExpr ElementEmitter::atLane(AffineExpr expr) const {
  return simplifyAffineExpr(
      expr.replace(lane(), getAffineConstantExpr(currentLane,
                                                 build.getContext())),
      coordinates.size(), 0);
}

AffineMap ElementEmitter::key(ArrayRef<AffineExpr> index) const {
  SmallVector<AffineExpr> exprs;
  for (AffineExpr expr : index)
    exprs.push_back(atLane(expr));
  return AffineMap::get(coordinates.size(), 0, exprs, build.getContext());
}

Value ElementEmitter::materialize(AffineExpr expr) {
  AffineMap map =
      AffineMap::get(coordinates.size(), 0, atLane(expr), build.getContext());
  SmallVector<OpFoldResult> operands(coordinates.begin(), coordinates.end());
  return getValueOrCreateConstantIndexOp(
      build, loc,
      affine::makeComposedFoldedAffineApply(build, loc, map, operands));
}

bool ElementEmitter::visible(Value value) const {
  Block *definedIn = value.getParentBlock();
  for (Block *block = build.getInsertionBlock(); block;) {
    if (block == definedIn)
      return true;
    Operation *parent = block->getParentOp();
    block = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

FailureOr<Value> ElementEmitter::element(Value tensor,
                                         ArrayRef<AffineExpr> index) {
  std::pair<Value, AffineMap> slot{tensor, key(index)};
  if (auto known = elements.find(slot);
      known != elements.end() && visible(known->second))
    return known->second;
  auto result = dyn_cast<OpResult>(tensor);
  if (!result)
    return failure();
  FailureOr<Value> value = compute(result.getOwner(), result, index);
  if (succeeded(value))
    elements[slot] = *value;
  return value;
}

FailureOr<Value> ElementEmitter::compute(Operation *producer, OpResult result,
                                         ArrayRef<AffineExpr> index) {
  if (isIndexView(producer)) {
    FailureOr<SourceElement> source = sourceElement(
        producer, index, [&](AffineExpr linear, ArrayRef<int64_t> sizes) {
          return delinearizeLanes(linear, sizes);
        });
    if (failed(source))
      return failure();
    return element(source->source, source->index);
  }
  return TypeSwitch<Operation *, FailureOr<Value>>(producer)
      .Case([&](bufferization::ToTensorOp op) -> FailureOr<Value> {
        return load(kernelValue(op.getBuffer()), index);
      })
      .Case([&](linalg::GenericOp op) -> FailureOr<Value> {
        if (op.getNumReductionLoops() == 0)
          return parallelElement(op, index);
        return reductions ? reductions(op, index) : foldReduction(op, index);
      })
      .Case([&](linalg::FillOp op) -> FailureOr<Value> {
        if (Value fill = kernelValue(op.getInputs().front()))
          return fill;
        return failure();
      })
      .Case([&](tensor::InsertSliceOp op) {
        return insertedElement(op, index);
      })
      // Elements of an empty tensor that a later insert_slice overwrites:
      // the branch reading them is never taken.
      .Case([&](tensor::EmptyOp op) -> FailureOr<Value> {
        return ub::PoisonOp::create(build, loc,
                                    op.getType().getElementType())
            .getResult();
      })
      .Case([&](arith::ConstantOp op) -> FailureOr<Value> {
        auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
        if (!splat)
          return failure();
        return arith::ConstantOp::create(build, loc,
                                         splat.getSplatValue<TypedAttr>())
            .getResult();
      })
      .Default([](Operation *) { return failure(); });
}

SmallVector<AffineExpr>
ElementEmitter::delinearizeLanes(AffineExpr linear,
                                 ArrayRef<int64_t> sizes) const {
  // A group of lanes that starts on a multiple of the width and cannot
  // cross the innermost size stays within one run of it: the lane is added
  // after the split, so that the innermost index alone depends on it (and
  // a vector access of a merged dim, attention's heads and head dim, can
  // still be one vector load).
  AffineExpr base = simplifyAffineExpr(linear - lane(), coordinates.size(), 0);
  if (width == 1 || sizes.empty() || sizes.back() % width != 0 ||
      base.isFunctionOfDim(0) || base.getLargestKnownDivisor() % width != 0)
    return delinearize(linear, computeSuffixProduct(sizes));
  SmallVector<AffineExpr> split = delinearize(base, computeSuffixProduct(sizes));
  split.back() = split.back() + lane();
  return split;
}

std::optional<SmallVector<AffineExpr>>
ElementEmitter::vectorBase(MemRefType type, ArrayRef<AffineExpr> index) const {
  int64_t rank = type.getRank();
  if (width == 1 || rank == 0 || type.getShape().back() % width != 0)
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (strides.back() != 1 || offset != 0)
    return std::nullopt;
  SmallVector<AffineExpr> base(index);
  base.back() = simplifyAffineExpr(index.back() - lane(),
                                   coordinates.size(), 0);
  // Strides known only at run time (a broadcast bias's row stride) are
  // multiples of the width where the vector path runs: the run-time check
  // of emitVectorOrScalar makes sure of it.
  AffineExpr address = getAffineConstantExpr(0, build.getContext());
  for (auto [dim, expr] : llvm::enumerate(base)) {
    if (expr.isFunctionOfDim(0))
      return std::nullopt;
    if (!ShapedType::isDynamic(strides[dim]))
      address = address + expr * strides[dim];
  }
  address = simplifyAffineExpr(address, coordinates.size(), 0);
  int64_t divisor = address.getLargestKnownDivisor();
  if (divisor % width != 0)
    return std::nullopt;
  return base;
}

FailureOr<Value> ElementEmitter::load(Value buffer,
                                      ArrayRef<AffineExpr> index) {
  if (!buffer)
    return failure();
  auto type = cast<MemRefType>(buffer.getType());
  if (auto base = vectorBase(type, index)) {
    std::pair<Value, AffineMap> slot{buffer, key(*base)};
    Value vector = vectors.lookup(slot);
    if (!vector || !visible(vector)) {
      SmallVector<Value> indices;
      for (AffineExpr expr : *base)
        indices.push_back(materialize(expr));
      auto vectorType = VectorType::get({width}, type.getElementType());
      // A group that starts on a multiple of its width, in a dim of whole
      // groups, lies inside the buffer: no padding is ever read.
      Value padding = arith::ConstantOp::create(
          build, loc, build.getZeroAttr(type.getElementType()));
      vector = vector::TransferReadOp::create(build, loc, vectorType, buffer,
                                              indices, padding,
                                              ArrayRef<bool>{true});
      vectors[slot] = vector;
      vectorized.insert(buffer);
    }
    return vector::ExtractOp::create(build, loc, vector, currentLane)
        .getResult();
  }
  SmallVector<Value> indices;
  for (AffineExpr expr : index)
    indices.push_back(materialize(expr));
  return memref::LoadOp::create(build, loc, buffer, indices).getResult();
}

FailureOr<SmallVector<Value>>
ElementEmitter::lanes(Value tensor, ArrayRef<AffineExpr> index) {
  SmallVector<Value> values;
  for (int64_t lane = 0; lane < width; ++lane) {
    setLane(lane);
    FailureOr<Value> value = element(tensor, index);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  setLane(0);
  return values;
}

LogicalResult ElementEmitter::storeLanes(Value buffer,
                                         ArrayRef<AffineExpr> index,
                                         ArrayRef<Value> lanes) {
  Value target = kernelValue(buffer);
  if (!target)
    return failure();
  auto type = cast<MemRefType>(target.getType());
  int64_t lane = currentLane;
  auto base = static_cast<int64_t>(lanes.size()) == width
                  ? vectorBase(type, index)
                  : std::nullopt;
  if (base) {
    setLane(0);
    SmallVector<Value> indices;
    for (AffineExpr expr : *base)
      indices.push_back(materialize(expr));
    auto vectorType = VectorType::get({width}, type.getElementType());
    Value vector = vector::FromElementsOp::create(build, loc, vectorType, lanes);
    vector::TransferWriteOp::create(build, loc, vector, target, indices,
                                    ArrayRef<bool>{true});
    vectorized.insert(target);
  } else {
    for (auto [position, value] : llvm::enumerate(lanes)) {
      setLane(position);
      SmallVector<Value> indices;
      for (AffineExpr expr : index)
        indices.push_back(materialize(expr));
      memref::StoreOp::create(build, loc, value, target, indices);
    }
  }
  setLane(lane);
  return success();
}

FailureOr<Value> ElementEmitter::applyBody(linalg::GenericOp generic,
                                           ArrayRef<AffineExpr> iteration,
                                           Value accumulator) {
  SmallVector<Value> inputs;
  for (OpOperand *operand : generic.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(operand->get().getType())) {
      Value scalar = kernelValue(operand->get());
      if (!scalar)
        return failure();
      inputs.push_back(scalar);
      continue;
    }
    SmallVector<AffineExpr> at;
    for (AffineExpr expr :
         generic.getMatchingIndexingMap(operand).getResults())
      at.push_back(expr.replaceDims(iteration));
    FailureOr<Value> value = element(operand->get(), at);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  inputs.push_back(accumulator);
  Block *body = generic.getBody();
  IRMapping mapping;
  for (auto [argument, value] : llvm::zip(body->getArguments(), inputs))
    if (value)
      mapping.map(argument, value);
  for (Operation &op : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      mapping.map(index.getResult(), materialize(iteration[index.getDim()]));
      continue;
    }
    // An element of a tensor the body captures (a lookup: embedding) at
    // indices it computed: that tensor's element there, like an input's.
    if (auto extract = dyn_cast<tensor::ExtractOp>(op);
        extract && !generic->isAncestor(
                       extract.getTensor().getParentBlock()->getParentOp())) {
      SmallVector<AffineExpr> at;
      for (Value index : extract.getIndices()) {
        Value computed = mapping.lookupOrNull(index);
        if (!computed)
          computed = kernelValue(index);
        if (!computed)
          return failure();
        at.push_back(bind(computed));
      }
      FailureOr<Value> value = element(extract.getTensor(), at);
      if (failed(value))
        return failure();
      mapping.map(extract.getResult(), *value);
      continue;
    }
    // Values the body captures are the kernel's scalars.
    WalkResult walk = op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        if (mapping.contains(operand) ||
            generic->isAncestor(operand.getParentBlock()->getParentOp()))
          continue;
        Value captured = kernelValue(operand);
        if (!captured)
          return WalkResult::interrupt();
        mapping.map(operand, captured);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    build.clone(op, mapping);
  }
  Value yielded = body->getTerminator()->getOperand(0);
  Value result = mapping.lookupOrNull(yielded);
  if (!result)
    result = kernelValue(yielded);
  if (!result)
    return failure();
  return result;
}

FailureOr<Value> ElementEmitter::parallelElement(linalg::GenericOp generic,
                                                 ArrayRef<AffineExpr> index) {
  if (generic.getNumDpsInits() != 1)
    return failure();
  AffineMap output = generic.getIndexingMapsArray().back();
  if (!output.isPermutation())
    return failure();
  SmallVector<AffineExpr> iteration = resultIteration(generic, index);
  Value accumulator;
  if (!generic.getBody()->getArguments().back().use_empty()) {
    FailureOr<Value> initial = element(generic.getDpsInits().front(), index);
    if (failed(initial))
      return failure();
    accumulator = *initial;
  }
  return applyBody(generic, iteration, accumulator);
}

FailureOr<Value> ElementEmitter::foldReduction(linalg::GenericOp generic,
                                               ArrayRef<AffineExpr> index) {
  if (generic.getNumDpsInits() != 1)
    return failure();
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return failure();
  SmallVector<AffineExpr> iteration = resultIteration(generic, index);
  SmallVector<unsigned> reduced;
  generic.getReductionDims(reduced);
  FailureOr<Value> initial = element(generic.getDpsInits().front(), index);
  if (failed(initial))
    return failure();
  // One loop per reduced dim, the accumulator carried through all.
  std::function<FailureOr<Value>(unsigned, Value)> fold =
      [&](unsigned depth, Value accumulator) -> FailureOr<Value> {
    if (depth == reduced.size())
      return applyBody(generic, iteration, accumulator);
    Value zero = arith::ConstantIndexOp::create(build, loc, 0);
    Value bound =
        arith::ConstantIndexOp::create(build, loc, ranges[reduced[depth]]);
    Value one = arith::ConstantIndexOp::create(build, loc, 1);
    auto loop = scf::ForOp::create(build, loc, zero, bound, one, accumulator);
    OpBuilder::InsertionGuard guard(build);
    build.setInsertionPointToStart(loop.getBody());
    iteration[reduced[depth]] = bind(loop.getInductionVar());
    FailureOr<Value> next = fold(depth + 1, loop.getRegionIterArg(0));
    if (failed(next))
      return failure();
    scf::YieldOp::create(build, loc, *next);
    return loop.getResult(0);
  };
  return fold(0, *initial);
}

FailureOr<Value> ElementEmitter::insertedElement(Operation *op,
                                                 ArrayRef<AffineExpr> index) {
  auto insert = cast<tensor::InsertSliceOp>(op);
  RankedTensorType source = insert.getSourceType();
  RankedTensorType dest = insert.getResultType();
  if (source.getRank() != dest.getRank() ||
      ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
      llvm::any_of(insert.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return failure();
  // Which dims decide, statically or at run time, whether the element
  // comes from the inserted slice.
  SmallVector<AffineExpr> within;
  bool outside = false;
  SmallVector<Value> conditions;
  for (auto [dim, offset] : llvm::enumerate(insert.getStaticOffsets())) {
    within.push_back(index[dim] - offset);
    int64_t size = source.getDimSize(dim);
    if (size == dest.getDimSize(dim))
      continue;
    AffineExpr position = atLane(index[dim]);
    if (auto constant = dyn_cast<AffineConstantExpr>(position)) {
      outside |= constant.getValue() < offset ||
                 constant.getValue() >= offset + size;
      continue;
    }
    Value at = materialize(index[dim]);
    auto bound = [&](int64_t value) {
      return arith::ConstantIndexOp::create(build, loc, value);
    };
    conditions.push_back(arith::CmpIOp::create(
        build, loc, arith::CmpIPredicate::sge, at, bound(offset)));
    conditions.push_back(arith::CmpIOp::create(
        build, loc, arith::CmpIPredicate::slt, at, bound(offset + size)));
  }
  if (outside)
    return element(insert.getDest(), index);
  if (conditions.empty())
    return element(insert.getSource(), within);
  Value inside = conditions.front();
  for (Value condition : ArrayRef(conditions).drop_front())
    inside = arith::AndIOp::create(build, loc, inside, condition);
  auto branch = scf::IfOp::create(build, loc, TypeRange{dest.getElementType()},
                                  inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(build);
  for (auto [block, tensor, at] :
       {std::tuple{branch.thenBlock(), insert.getSource(), ArrayRef(within)},
        std::tuple{branch.elseBlock(), insert.getDest(), index}}) {
    build.setInsertionPointToStart(block);
    FailureOr<Value> value = element(tensor, at);
    if (failed(value))
      return failure();
    scf::YieldOp::create(build, loc, *value);
  }
  return branch.getResult(0);
}
