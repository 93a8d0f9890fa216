//===- AttentionOps.cpp - sdpa, sdpa_backward and embedding --------------===//
//
// Shape rules, type inference, verifiers and sharding rules of the fused
// attention ops and of the embedding lookup.
//
//===----------------------------------------------------------------------===//

#include "TypeInference.h"
#include "fuser/Dialect/Fuser/IR/ShapeRules.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fuser;

static bool sizesConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

FailureOr<AttentionShapes>
mlir::fuser::getAttentionShapes(std::optional<Location> loc, ShapedType query,
                                ShapedType key, ShapedType value) {
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"query", query},
                            {"key", key},
                            {"value", value}}) {
    if (type.getRank() != 4)
      return emitOptionalError(loc, "attention ", name,
                               " must be [batch, heads, sequence, head dim], "
                               "got rank ",
                               type.getRank());
    if (type.getElementType() != query.getElementType())
      return emitOptionalError(loc, "attention ", name, " element type ",
                               type.getElementType(),
                               " differs from the query's ",
                               query.getElementType());
  }
  for (int64_t dim : {0, 1})
    for (auto [name, type] : {std::pair<StringRef, ShapedType>{"key", key},
                              {"value", value}})
      if (sizesConflict(query.getDimSize(dim), type.getDimSize(dim)))
        return emitOptionalError(
            loc, "attention ", name, " has ", type.getDimSize(dim),
            dim == 0 ? " batch entries" : " heads", " but the query has ",
            query.getDimSize(dim));
  // One head dim for all three, as the fused kernels take them.
  for (auto [name, type] : {std::pair<StringRef, ShapedType>{"key", key},
                            {"value", value}})
    if (sizesConflict(query.getDimSize(3), type.getDimSize(3)))
      return emitOptionalError(loc, "attention ", name, " head dim ",
                               type.getDimSize(3), " differs from the query's ",
                               query.getDimSize(3));
  if (sizesConflict(key.getDimSize(2), value.getDimSize(2)))
    return emitOptionalError(loc, "attention value has ", value.getDimSize(2),
                             " positions but the key has ", key.getDimSize(2));
  AttentionShapes shapes;
  shapes.output = {query.getDimSize(0), query.getDimSize(1),
                   query.getDimSize(2), value.getDimSize(3)};
  shapes.logsumexp = {query.getDimSize(0), query.getDimSize(1),
                      query.getDimSize(2)};
  return shapes;
}

LogicalResult mlir::fuser::verifyAttentionSettings(Operation *op,
                                                   std::optional<double> scale,
                                                   double dropoutProbability) {
  if (scale && !std::isfinite(*scale))
    return op->emitOpError("scale must be finite, got ") << *scale;
  if (!(dropoutProbability >= 0.0 && dropoutProbability < 1.0))
    return op->emitOpError("dropout probability must be in [0, 1), got ")
           << dropoutProbability;
  return success();
}

LogicalResult mlir::fuser::verifyAttentionBackwardShapes(
    std::optional<Location> loc, ShapedType query, ShapedType key,
    ShapedType value, ShapedType output, ShapedType gradOutput,
    ShapedType logsumexp) {
  FailureOr<AttentionShapes> shapes =
      getAttentionShapes(loc, query, key, value);
  if (failed(shapes))
    return failure();
  for (auto [name, type, expected, elementType] :
       {std::tuple<StringRef, ShapedType, ArrayRef<int64_t>, Type>{
            "output", output, shapes->output, query.getElementType()},
        {"output gradient", gradOutput, shapes->output,
         query.getElementType()},
        {"log-sum-exp", logsumexp, shapes->logsumexp,
         Float32Type::get(query.getContext())}}) {
    if (type.getShape() != expected)
      return emitOptionalError(loc, "attention ", name, " has shape [",
                               type.getShape(), "] but the forward gives [",
                               expected, "]");
    if (type.getElementType() != elementType)
      return emitOptionalError(loc, "attention ", name, " has element type ",
                               type.getElementType(), ", expected ",
                               elementType);
  }
  return success();
}

LogicalResult mlir::fuser::inferSdpaTypes(OptionalLoc loc, Value query,
                                          Value key, Value value,
                                          InferredTypes &types) {
  FailureOr<RankedTensorType> q = getTensorOperand(loc, query, "query");
  FailureOr<RankedTensorType> k = getTensorOperand(loc, key, "key");
  FailureOr<RankedTensorType> v = getTensorOperand(loc, value, "value");
  if (failed(q) || failed(k) || failed(v))
    return failure();
  FailureOr<AttentionShapes> shapes = getAttentionShapes(loc, *q, *k, *v);
  if (failed(shapes))
    return failure();
  types.push_back(RankedTensorType::get(shapes->output, q->getElementType()));
  types.push_back(RankedTensorType::get(shapes->logsumexp,
                                        Float32Type::get(q->getContext())));
  return success();
}

LogicalResult mlir::fuser::inferSdpaBackwardTypes(OptionalLoc loc,
                                                  ValueRange operands,
                                                  InferredTypes &types) {
  static constexpr StringLiteral names[] = {
      "query",  "key",           "value",
      "output", "output gradient", "log-sum-exp"};
  SmallVector<RankedTensorType> tensors;
  for (auto [operand, name] : llvm::zip(operands, names)) {
    FailureOr<RankedTensorType> type = getTensorOperand(loc, operand, name);
    if (failed(type))
      return failure();
    tensors.push_back(*type);
  }
  if (failed(verifyAttentionBackwardShapes(loc, tensors[0], tensors[1],
                                           tensors[2], tensors[3], tensors[4],
                                           tensors[5])))
    return failure();
  for (RankedTensorType primal : ArrayRef(tensors).take_front(3))
    types.push_back(
        RankedTensorType::get(primal.getShape(), primal.getElementType()));
  return success();
}

/// `scale`, else 1/sqrt(head dim), PyTorch's default.
template <typename AttentionOp>
static double getScaleOf(AttentionOp op) {
  if (op.getScale())
    return op.getScale()->convertToDouble();
  auto query = cast<ShapedType>(op.getQuery().getType());
  return 1.0 / std::sqrt(static_cast<double>(query.getDimSize(3)));
}

template <typename AttentionOp>
static LogicalResult verifySettingsOf(AttentionOp op) {
  std::optional<double> scale;
  if (op.getScale())
    scale = op.getScale()->convertToDouble();
  return verifyAttentionSettings(op, scale,
                                 op.getDropoutProbability().convertToDouble());
}

double SdpaOp::getScaleOrDefault() { return getScaleOf(*this); }
double SdpaBackwardOp::getScaleOrDefault() { return getScaleOf(*this); }
LogicalResult SdpaOp::verify() { return verifySettingsOf(*this); }
LogicalResult SdpaBackwardOp::verify() { return verifySettingsOf(*this); }

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

namespace {
/// The factors of attention: batch and heads shared by every tensor, the
/// query sequence (blocked unless `querySplittable`), the key sequence and
/// the head dim blocked. Size-1 dims have none.
struct AttentionFactors {
  AttentionFactors(ShardingRule &rule, ArrayRef<int64_t> query,
                   ArrayRef<int64_t> key, bool querySplittable)
      : rule(rule) {
    batch = factor(query[0], FactorKind::Parallel);
    heads = factor(query[1], FactorKind::Parallel);
    queries = factor(query[2], querySplittable ? FactorKind::Parallel
                                               : FactorKind::Blocked);
    keys = factor(key[2], FactorKind::Blocked);
    headDim = factor(query[3], FactorKind::Blocked);
  }
  /// The dims of a [b, h, sequence, head dim] tensor (or [b, h, sequence]).
  DimFactors tensor(std::optional<int64_t> sequence,
                    std::optional<int64_t> head, bool hasHeadDim = true) {
    DimFactors dims(hasHeadDim ? 4 : 3);
    std::optional<int64_t> factorOf[] = {batch, heads, sequence, head};
    for (size_t dim = 0; dim < dims.size(); ++dim)
      if (factorOf[dim])
        dims[dim].push_back(*factorOf[dim]);
    return dims;
  }

  ShardingRule &rule;
  std::optional<int64_t> batch, heads, queries, keys, headDim;

private:
  std::optional<int64_t> factor(int64_t size, FactorKind kind) {
    if (size == 1)
      return std::nullopt;
    return rule.addFactor(size, kind);
  }
};
} // namespace

ShardingRule SdpaOp::getShardingRule() {
  ShardingRule rule;
  // A mask (causal or dropout) depends on global query positions, which a
  // rank holding a slice of the queries does not know.
  bool querySplittable =
      !getCausal() && getDropoutProbability().convertToDouble() == 0.0;
  AttentionFactors f(rule, shapeOf(getQuery()), shapeOf(getKey()),
                     querySplittable);
  DimFactors queries = f.tensor(f.queries, f.headDim),
             keys = f.tensor(f.keys, f.headDim);
  rule.operands = {queries, keys, keys};
  rule.results = {queries,
                  f.tensor(f.queries, std::nullopt, /*hasHeadDim=*/false)};
  return rule;
}

ShardingRule SdpaBackwardOp::getShardingRule() {
  ShardingRule rule;
  AttentionFactors f(rule, shapeOf(getQuery()), shapeOf(getKey()),
                     /*querySplittable=*/false);
  DimFactors queries = f.tensor(f.queries, f.headDim),
             keys = f.tensor(f.keys, f.headDim);
  rule.operands = {queries, keys, keys, queries, queries,
                   f.tensor(f.queries, std::nullopt, /*hasHeadDim=*/false)};
  rule.results = {queries, keys, keys};
  return rule;
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

LogicalResult mlir::fuser::inferEmbeddingType(OptionalLoc loc, Value table,
                                              Value indices,
                                              InferredTypes &types) {
  FailureOr<RankedTensorType> rows = getTensorOperand(loc, table, "table");
  FailureOr<RankedTensorType> positions =
      getTensorOperand(loc, indices, "indices");
  if (failed(rows) || failed(positions))
    return failure();
  if (rows->getRank() != 2)
    return emitOptionalError(loc, "embedding table must be [rows, features], "
                                  "got rank ",
                             rows->getRank());
  SmallVector<int64_t> shape(positions->getShape());
  shape.push_back(rows->getDimSize(1));
  types.push_back(RankedTensorType::get(shape, rows->getElementType()));
  return success();
}

ShardingRule EmbeddingOp::getShardingRule() {
  ArrayRef<int64_t> table = shapeOf(getTable()),
                    indices = shapeOf(getIndices());
  ShardingRule rule;
  DimFactors rows(2), positions(indices.size()),
      result(indices.size() + 1);
  rule.addOwnFactor(rows, 0, table[0], FactorKind::Blocked);
  for (auto [dim, size] : llvm::enumerate(indices)) {
    if (size == 1)
      continue;
    int64_t factor = rule.addFactor(size);
    positions[dim].push_back(factor);
    result[dim].push_back(factor);
  }
  if (table[1] != 1) {
    int64_t features = rule.addFactor(table[1]);
    rows[1].push_back(features);
    result[indices.size()].push_back(features);
  }
  rule.operands = {std::move(rows), std::move(positions)};
  rule.results = {std::move(result)};
  return rule;
}
