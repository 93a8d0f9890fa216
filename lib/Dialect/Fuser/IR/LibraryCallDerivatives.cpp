//===- LibraryCallDerivatives.cpp - derivative rules of library calls -----===//
//
// Products differentiate into products (the two GEMMs of each linear's
// backward), attention into fuser.sdpa_backward, an embedding lookup into a
// product with the lookup's one-hot matrix.
//
//===----------------------------------------------------------------------===//

#include "DerivativeBuilder.h"

using namespace mlir;
using namespace mlir::fuser;

namespace {

/// The cotangent of a product with `activation` in its epilogue, taken back
/// through the activation. relu's derivative reads the result; gelu's needs
/// the product before it, which is computed again (`product` builds it).
Value throughActivation(DerivativeBuilder &d, std::optional<Activation> activation,
                        Value result, Value g,
                        llvm::function_ref<Value()> product) {
  if (!activation)
    return g;
  if (*activation == Activation::Relu)
    return d.keepWhere(
        d.compare(CompareKind::GT, result, d.constant(0.0, result)), g);
  auto gelu = GeluOp::create(d.builder, d.loc, product(),
                             GeluApproximation::Tanh);
  SmallVector<Value> cotangent;
  (void)gelu.buildVjp(d.builder, {g}, cotangent);
  gelu.erase();
  return cotangent[0];
}

/// Batch dims of a tensor of `rank` whose last `trailing` dims are not batch.
SmallVector<int64_t> leadingDims(int64_t rank, int64_t trailing) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank - trailing));
}

/// `lhs [..., M, K]^T x rhs [..., M, N] -> [K, N]`, summed over the batch:
/// the gradient of a matrix every batch entry multiplies. Batch dims of
/// size 1 are dropped (a view); others stay the dims of a batched product
/// summed after it, never merged into the rows, as a reshape joining a split
/// dim to the one before it has no sharding propagation can carry.
Value contractOverBatch(DerivativeBuilder &d, Value lhs, Value rhs) {
  ArrayRef<int64_t> lhsShape = getGlobalType(lhs).getShape();
  ArrayRef<int64_t> rhsShape = getGlobalType(rhs).getShape();
  ArrayRef<int64_t> batch = lhsShape.drop_back(2);
  if (llvm::all_of(batch, [](int64_t size) { return size == 1; }))
    return d.matmul(d.transpose(d.reshape(lhs, lhsShape.take_back(2))),
                    d.reshape(rhs, rhsShape.take_back(2)));
  return d.sum(d.matmul(d.transpose(lhs), rhs),
               leadingDims(lhsShape.size(), 2));
}

/// A vector [n] as a row [1, n]; a tensor of higher rank as it is.
Value asRows(DerivativeBuilder &d, Value value) {
  ArrayRef<int64_t> shape = getGlobalType(value).getShape();
  return shape.size() == 1 ? d.reshape(value, {1, shape[0]}) : value;
}

/// The cotangents of query and key from the log-sum-exp's, `gLse`:
/// d lse_i / d S_ij = P_ij, so dS = gLse_i P_ij, dq = scale dS k and
/// dk = scale dS^T q. The fused kernels do not expose this, so the scores
/// are computed here ([b, h, sq, skv], in f32): only programs whose
/// log-sum-exp reaches an output pay for it.
std::pair<Value, Value> logsumexpCotangents(DerivativeBuilder &d, SdpaOp op,
                                            Value gLse) {
  Value q = d.widen(op.getQuery()), k = d.widen(op.getKey());
  Value lse = op.getLogsumexp();
  double scale = op.getScaleOrDefault();
  Value scores = d.scale(d.matmul(q, d.transpose(k)), scale);
  RankedTensorType scoresType = getGlobalType(scores);
  ArrayRef<int64_t> shape = scoresType.getShape();
  Value repeatedLse = d.broadcast(d.cast(lse, scoresType.getElementType()),
                                  shape, {0, 1, 2});
  Value probabilities = d.exp(d.sub(scores, repeatedLse));
  if (op.getCausal()) {
    // Query i sees keys j <= i.
    auto positions = scoresType.clone(d.builder.getI64Type());
    auto iota = [&](int64_t dim) -> Value {
      return IotaOp::create(d.builder, d.loc, positions,
                            d.builder.getI64IntegerAttr(dim),
                            d.builder.getF64FloatAttr(0.0),
                            d.builder.getF64FloatAttr(1.0), ValueRange());
    };
    probabilities = d.keepWhere(d.compare(CompareKind::LE, iota(3), iota(2)),
                                probabilities);
  }
  Value gScores = d.scale(
      d.mul(d.broadcast(d.cast(gLse, scoresType.getElementType()), shape,
                        {0, 1, 2}),
            probabilities),
      scale);
  return {d.castLike(d.matmul(gScores, k), op.getQuery()),
          d.castLike(d.matmul(d.transpose(gScores), q), op.getKey())};
}

} // namespace

LogicalResult MatmulOp::buildVjp(OpBuilder &builder,
                                 ArrayRef<Value> cotangents,
                                 SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value lhs = getLhs(), rhs = getRhs();
  Value g = throughActivation(d, getActivation(), getResult(), cotangents[0],
                              [&] { return d.matmul(lhs, rhs); });
  // [..., M, N] x [..., N, K] (or x [N, K]) -> [..., M, K]
  Value lhsCotangent = d.matmul(g, d.transpose(rhs));
  // [..., K, M] x [..., M, N] -> [..., K, N]; one matrix for every batch
  // entry sums over the batch.
  Value rhsCotangent =
      getGlobalType(rhs).getRank() == getGlobalType(lhs).getRank()
          ? d.matmul(d.transpose(lhs), g)
          : contractOverBatch(d, lhs, g);
  operandCotangents.assign({lhsCotangent, rhsCotangent});
  return success();
}

LogicalResult LinearOp::buildVjp(OpBuilder &builder,
                                 ArrayRef<Value> cotangents,
                                 SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  Value input = getInput(), weight = getWeight(), bias = getBias();
  Value g = throughActivation(d, getActivation(), getResult(), cotangents[0], [&] {
    return LinearOp::create(builder, getLoc(), input, weight, bias,
                            ActivationAttr());
  });
  RankedTensorType inputType = getGlobalType(input);
  int64_t rank = inputType.getRank();
  ArrayRef<int64_t> inputShape = inputType.getShape();
  Value inputCotangent, weightCotangent, biasCotangent;
  if (getGlobalType(weight).getRank() == 2) {
    // y [..., N] = x [..., K] w^T [K, N] + b; a vector input is a row.
    Value gRows = asRows(d, g);
    inputCotangent = d.reshape(d.matmul(gRows, weight), inputShape);
    weightCotangent = contractOverBatch(d, gRows, asRows(d, input));
    if (bias)
      biasCotangent = d.sum(g, leadingDims(rank, 1));
  } else {
    // y [...] = sum_k x [..., k] w [k] + b
    SmallVector<int64_t> batch = leadingDims(rank, 1);
    Value repeated = d.broadcast(g, inputShape, batch);
    inputCotangent =
        d.mul(repeated, d.broadcast(weight, inputShape, {rank - 1}));
    weightCotangent = d.sum(d.mul(repeated, input), batch);
    if (bias)
      biasCotangent = d.sum(g, leadingDims(rank - 1, 0));
  }
  operandCotangents.assign({inputCotangent, weightCotangent});
  if (bias)
    operandCotangents.push_back(biasCotangent);
  return success();
}

LogicalResult SdpaOp::buildVjp(OpBuilder &builder, ArrayRef<Value> cotangents,
                               SmallVectorImpl<Value> &operandCotangents) {
  DerivativeBuilder d(builder, getLoc());
  operandCotangents.assign({Value(), Value(), Value()});
  if (Value gOutput = cotangents[0]) {
    auto backward = SdpaBackwardOp::create(
        builder, getLoc(), getQuery(), getKey(), getValue(), getOutput(),
        gOutput, getLogsumexp(), getCausalAttr(), getScaleAttr(),
        getDropoutProbabilityAttr(), getSeedAttr());
    operandCotangents.assign(backward->result_begin(), backward->result_end());
  }
  if (Value gLse = cotangents[1]) {
    auto [gQuery, gKey] = logsumexpCotangents(d, *this, gLse);
    Value &query = operandCotangents[0], &key = operandCotangents[1];
    query = query ? d.add(query, gQuery) : gQuery;
    key = key ? d.add(key, gKey) : gKey;
  }
  return success();
}

LogicalResult EmbeddingOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> cotangents,
                                    SmallVectorImpl<Value> &operandCotangents) {
  // grad_table [V, E] = onehot(indices)^T [V, T...] x grad [T..., E], with
  // the indices clamped as the lookup clamps them. The indices carry no
  // gradient.
  DerivativeBuilder d(builder, getLoc());
  RankedTensorType tableType = getGlobalType(getTable());
  RankedTensorType indicesType = getGlobalType(getIndices());
  int64_t rows = tableType.getDimSize(0);
  Value indices = getIndices();
  Value clamped = MaximumOp::create(
      builder, getLoc(),
      MinimumOp::create(builder, getLoc(), indices,
                        d.constant(static_cast<double>(rows - 1), indices)),
      d.constant(0.0, indices));
  SmallVector<int64_t> gridShape(indicesType.getShape());
  gridShape.push_back(rows);
  int64_t tokenRank = indicesType.getRank();
  Value rowOfToken =
      d.broadcast(clamped, gridShape, leadingDims(tokenRank + 1, 1));
  Value column = IotaOp::create(
      builder, getLoc(), indicesType.clone(gridShape),
      builder.getI64IntegerAttr(tokenRank), builder.getF64FloatAttr(0.0),
      builder.getF64FloatAttr(1.0), ValueRange());
  Value oneHot = d.cast(d.compare(CompareKind::EQ, rowOfToken, column),
                        tableType.getElementType());
  operandCotangents.assign(
      {contractOverBatch(d, asRows(d, oneHot), asRows(d, cotangents[0])),
       Value()});
  return success();
}
