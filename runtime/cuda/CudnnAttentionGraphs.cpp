//===- CudnnAttentionGraphs.cpp - cuDNN's graphs of attention -------------===//
//
// The graphs cudnn-frontend's scaled_dot_product_flash_attention and its
// backward node build (include/cudnn_frontend/node/
// scaled_dot_product_flash_attention.h), which cuDNN's runtime-fusion
// engine recognizes as flash attention: the same operations, tensors,
// types (intermediates in f32 unless the frontend says otherwise) and
// layouts, for query [b, h, sq, d], key and value [b, h, skv, d] and a
// top-left causal mask. cuDNN multiplies query by key^T, so the graphs
// take key as KT [b, h, d, skv] (its strides swapped); the backward graph
// takes value as VT the same way.
//
// Forward: S = scale * Q KT; causal: S where row >= column, else -inf;
// softmax as max, subtract, exp, sum, divide; statistics = max + log(sum);
// dropout: P * Bernoulli(1 - p) * 1 / (1 - p); out = P V.
// Backward: softmaxSum = rowsum(dO * O) * (1 - p); P = exp(scale * Q KT -
// statistics) (masked); dV = (P * mask / (1 - p))^T dO; dP = dO VT * mask;
// dS = scale * (dP - softmaxSum) * P / (1 - p); dK = dS^T Q; dQ = dS K,
// accumulated in f32 and converted.
//
//===----------------------------------------------------------------------===//

#include "CudnnAttention.h"

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {

using Tensor = CudnnGraphBuilder::Tensor;
using Dims = std::vector<int64_t>;

/// The packed strides of an intermediate of `dims`.
Dims packed(const Dims &dims) {
  Dims strides(dims.size(), 1);
  for (int64_t dim = static_cast<int64_t>(dims.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * dims[dim + 1];
  return strides;
}

/// The transposed view of the last two dims of a [b, h, rows, cols] operand.
Tensor transposed(CudnnGraphBuilder &builder, int64_t uid,
                  cudnnDataType_t type, Dims dims, Dims strides) {
  std::swap(dims[2], dims[3]);
  std::swap(strides[2], strides[3]);
  return builder.tensor(uid, type, dims, strides);
}

/// statistics [b, h, sq] as the graphs see it, [b, h, sq, 1].
Dims statisticStrides(const Dims &strides) {
  return {strides[0], strides[1], strides[2], 1};
}

/// Scores where row >= column (query i sees key j <= i), else -inf.
Tensor maskCausal(CudnnGraphBuilder &builder, Tensor scores,
                  const Dims &dims) {
  Dims strides = packed(dims);
  Tensor row = builder.intermediate(CUDNN_DATA_INT32, dims, strides),
         column = builder.intermediate(CUDNN_DATA_INT32, dims, strides),
         visible = builder.intermediate(CUDNN_DATA_BOOLEAN, dims, strides),
         masked = builder.intermediate(CUDNN_DATA_FLOAT, dims, strides);
  builder.pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr, row,
                    CUDNN_DATA_FLOAT, 2);
  builder.pointwise(CUDNN_POINTWISE_GEN_INDEX, scores, nullptr, nullptr,
                    column, CUDNN_DATA_FLOAT, 3);
  builder.pointwise(CUDNN_POINTWISE_CMP_GE, row, column, nullptr, visible,
                    CUDNN_DATA_BOOLEAN);
  builder.pointwise(CUDNN_POINTWISE_BINARY_SELECT, scores,
                    builder.scalar(kNegativeInfinity, CUDNN_DATA_FLOAT),
                    visible, masked);
  return masked;
}

/// The dropout mask: ones with probability 1 - p.
Tensor drawMask(CudnnGraphBuilder &builder, const AttentionKey &key,
                const Dims &dims) {
  Tensor mask = builder.intermediate(CUDNN_DATA_FLOAT, dims, packed(dims));
  Dims one = {1, 1, 1, 1};
  builder.bernoulli(1 - key.dropoutProbability,
                    builder.tensor(kSeed, CUDNN_DATA_INT64, one, one),
                    builder.tensor(kOffset, CUDNN_DATA_INT64, one, one), mask);
  return mask;
}

/// y = x * b, a new f32 intermediate of x's dims.
Tensor multiply(CudnnGraphBuilder &builder, Tensor x, Tensor b,
                const Dims &dims, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
  Tensor y = builder.intermediate(type, dims, packed(dims));
  builder.pointwise(CUDNN_POINTWISE_MUL, x, b, nullptr, y);
  return y;
}

} // namespace

void cuda::describeForwardGraph(const AttentionKey &key,
                                CudnnGraphBuilder &builder) {
  auto type = static_cast<cudnnDataType_t>(key.dataType);
  int64_t b = key.batch, h = key.heads, sq = key.queries, skv = key.keys,
          d = key.depth;
  Dims scoreDims = {b, h, sq, skv}, rowDims = {b, h, sq, 1};
  Tensor query = builder.tensor(kQuery, type, {b, h, sq, d}, key.strides[0]);
  Tensor keyT = transposed(builder, kKey, type, {b, h, skv, d}, key.strides[1]);
  Tensor value = builder.tensor(kValue, type, {b, h, skv, d}, key.strides[2]);

  Tensor product =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.matmul(query, keyT, product);
  Tensor scores = multiply(builder, product,
                           builder.scalar(kScale, CUDNN_DATA_FLOAT), scoreDims);
  if (key.causal)
    scores = maskCausal(builder, scores, scoreDims);

  Tensor maximum =
      builder.intermediate(CUDNN_DATA_FLOAT, rowDims, packed(rowDims));
  builder.reduction(CUDNN_REDUCE_TENSOR_MAX, scores, maximum);
  Tensor shifted =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_SUB, scores, maximum, nullptr, shifted);
  Tensor exponentials =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, nullptr,
                    exponentials);
  Tensor sum = builder.intermediate(CUDNN_DATA_FLOAT, rowDims, packed(rowDims));
  builder.reduction(CUDNN_REDUCE_TENSOR_ADD, exponentials, sum);
  Tensor logSum =
      builder.intermediate(CUDNN_DATA_FLOAT, rowDims, packed(rowDims));
  builder.pointwise(CUDNN_POINTWISE_LOG, sum, nullptr, nullptr, logSum);
  builder.pointwise(CUDNN_POINTWISE_ADD, maximum, logSum, nullptr,
                    builder.tensor(kStatistics, CUDNN_DATA_FLOAT, rowDims,
                                   statisticStrides(key.strides[4])));

  // The probabilities go into the second product in the operands' type.
  bool dropout = key.dropoutProbability > 0;
  Tensor probabilities = builder.intermediate(
      dropout ? CUDNN_DATA_FLOAT : type, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_DIV, exponentials, sum, nullptr,
                    probabilities);
  if (dropout) {
    Tensor kept = multiply(builder, probabilities,
                           drawMask(builder, key, scoreDims), scoreDims);
    probabilities =
        multiply(builder, kept, builder.scalar(kDropoutScale, CUDNN_DATA_FLOAT),
                 scoreDims, type);
  }
  builder.matmul(probabilities, value,
                 builder.tensor(kOut, type, {b, h, sq, d}, key.strides[3]));
}

void cuda::describeBackwardGraph(const AttentionKey &key,
                                 CudnnGraphBuilder &builder) {
  auto type = static_cast<cudnnDataType_t>(key.dataType);
  int64_t b = key.batch, h = key.heads, sq = key.queries, skv = key.keys,
          d = key.depth;
  Dims scoreDims = {b, h, sq, skv}, rowDims = {b, h, sq, 1},
       transposedDims = {b, h, skv, sq},
       transposedStrides = {h * sq * skv, sq * skv, 1, skv};
  const auto &strides = key.strides;
  Tensor query = builder.tensor(kQuery, type, {b, h, sq, d}, strides[0]);
  Tensor keyT = transposed(builder, kKey, type, {b, h, skv, d}, strides[1]);
  Tensor valueT = transposed(builder, kValue, type, {b, h, skv, d}, strides[2]);
  Tensor out = builder.tensor(kOut, type, {b, h, sq, d}, strides[3]);
  Tensor statistics = builder.tensor(kStatistics, CUDNN_DATA_FLOAT, rowDims,
                                     statisticStrides(strides[4]));
  Tensor gradOut = builder.tensor(kGradOut, type, {b, h, sq, d}, strides[5]);
  Tensor scale = builder.scalar(kScale, CUDNN_DATA_FLOAT);
  bool dropout = key.dropoutProbability > 0;
  Tensor mask = dropout ? drawMask(builder, key, scoreDims) : nullptr;
  Tensor dropoutScale =
      dropout ? builder.scalar(kDropoutScale, CUDNN_DATA_FLOAT) : nullptr;

  // softmaxSum = rowsum(dO * O) * (1 - p), laid out as the frontend lays
  // it out.
  Tensor outProducts = builder.intermediate(
      CUDNN_DATA_FLOAT, {b, h, sq, d}, {h * sq * d, sq * d, h * d, 1});
  builder.pointwise(CUDNN_POINTWISE_MUL, gradOut, out, nullptr, outProducts);
  Tensor outDots =
      builder.intermediate(CUDNN_DATA_FLOAT, rowDims, packed(rowDims));
  builder.reduction(CUDNN_REDUCE_TENSOR_ADD, outProducts, outDots);
  Tensor softmaxSum =
      builder.tensor(kSoftmaxSum, CUDNN_DATA_FLOAT, rowDims, packed(rowDims));
  builder.pointwise(CUDNN_POINTWISE_MUL, outDots,
                    builder.scalar(kKeepProbability, CUDNN_DATA_FLOAT), nullptr,
                    softmaxSum);

  // P, recomputed from the statistics.
  Tensor product =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.matmul(query, keyT, product);
  Tensor scores = multiply(builder, product, scale, scoreDims);
  Tensor shifted =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_SUB, scores, statistics, nullptr, shifted);
  if (key.causal)
    shifted = maskCausal(builder, shifted, scoreDims);
  Tensor probabilities =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, nullptr,
                    probabilities);
  Tensor dropped = probabilities;
  if (dropout)
    dropped = multiply(builder, multiply(builder, probabilities, mask, scoreDims),
                       dropoutScale, scoreDims);

  // dV = P^T dO.
  Tensor droppedT = builder.intermediate(type, transposedDims, transposedStrides);
  builder.reshape(dropped, droppedT);
  builder.matmul(droppedT, gradOut,
                 builder.tensor(kGradValue, type, {b, h, skv, d}, strides[8]));

  // dS = scale * (dO VT * mask - softmaxSum) * P / (1 - p).
  Tensor gradProbabilities =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.matmul(gradOut, valueT, gradProbabilities);
  if (dropout)
    gradProbabilities = multiply(builder, gradProbabilities, mask, scoreDims);
  Tensor centered =
      builder.intermediate(CUDNN_DATA_FLOAT, scoreDims, packed(scoreDims));
  builder.pointwise(CUDNN_POINTWISE_SUB, gradProbabilities, softmaxSum, nullptr,
                    centered);
  Tensor gradScores = multiply(builder, centered, probabilities, scoreDims);
  if (dropout)
    gradScores = multiply(builder, gradScores, dropoutScale, scoreDims);
  gradScores = multiply(builder, gradScores, scale, scoreDims);

  // dK = dS^T Q.
  Tensor gradScoresT =
      builder.intermediate(type, transposedDims, transposedStrides);
  builder.reshape(gradScores, gradScoresT);
  builder.matmul(gradScoresT, query,
                 builder.tensor(kGradKey, type, {b, h, skv, d}, strides[7]));

  // dQ = dS K, accumulated in f32 in the workspace, then converted.
  Tensor keyRows =
      builder.intermediate(CUDNN_DATA_FLOAT, {b, h, skv, d}, strides[1]);
  builder.reshape(keyT, keyRows);
  Dims queryDims = {b, h, sq, d};
  Tensor accumulator = builder.tensor(kGradQueryAccumulator, CUDNN_DATA_FLOAT,
                                      queryDims, packed(queryDims));
  builder.matmul(gradScores, keyRows, accumulator);
  builder.pointwise(CUDNN_POINTWISE_IDENTITY, accumulator, nullptr, nullptr,
                    builder.tensor(kGradQuery, type, queryDims, strides[6]));
}
