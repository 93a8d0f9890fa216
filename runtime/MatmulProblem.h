//===- MatmulProblem.h - matmul and linear as one strided problem -*- C++ -*-===//
//
// Both backends see fuser_matmul and fuser_linear as the same problem:
// out[b..., i, j] = sum_p a[b..., i, p] * b[b..., p, j] (+ bias[j]) over
// strided views, with the batch dims simplified (unit dims dropped, dims
// that continue the rows of a shared right operand folded into m, dims
// that continue each other merged), so that a linear over [batch, seq, k]
// is one matrix product and a batched matmul one strided batch where the
// layouts allow.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_MATMULPROBLEM_H
#define FUSER_RUNTIME_MATMULPROBLEM_H

#include "Internal.h"

#include <array>
#include <string>
#include <vector>

namespace fuser::runtime {

/// One operand as a matrix: element (i, j) of batch entry 0 is at
/// data + (i * rowStride + j * colStride) * element size. The stride of a
/// dim of size 1 means nothing (it may be 0).
struct MatmulOperand {
  /// The argument, for messages.
  const FuserBuffer *buffer = nullptr;
  const char *name = "";
  char *data = nullptr;
  int64_t rowStride = 0, colStride = 0;
};

/// A batch dim: its size and its element strides in a, b and out.
struct MatmulBatchDim {
  int64_t size;
  int64_t strides[3];
};

struct MatmulProblem {
  enum { A = 0, B = 1, Out = 2 };
  FuserDType dtype = FUSER_F32;
  int64_t m = 1, n = 1, k = 1;
  /// a [m, k], b [k, n], out [m, n].
  MatmulOperand operands[3];
  /// Outer to inner.
  std::vector<MatmulBatchDim> batch;
  /// bias[j] at bias + j * biasStride elements, or null.
  const char *bias = nullptr;
  int64_t biasStride = 0;
  /// out += the product (and bias) instead of out = it.
  bool accumulate = false;
  /// Applied to each element of out last.
  FuserActivation activation = FUSER_ACTIVATION_NONE;

  /// Whether there is nothing to compute (a size is 0).
  bool isEmpty() const {
    if (m == 0 || n == 0)
      return true;
    for (const MatmulBatchDim &dim : batch)
      if (dim.size == 0)
        return true;
    return false;
  }

  int64_t getBatchCount() const {
    int64_t count = 1;
    for (const MatmulBatchDim &dim : batch)
      count *= dim.size;
    return count;
  }

  /// Element offsets of every batch entry in a, b and out, row-major over
  /// the batch dims.
  std::vector<std::array<int64_t, 3>> getBatchOffsets() const {
    std::vector<std::array<int64_t, 3>> offsets{{0, 0, 0}};
    for (const MatmulBatchDim &dim : batch) {
      std::vector<std::array<int64_t, 3>> next;
      next.reserve(offsets.size() * dim.size);
      for (const auto &base : offsets)
        for (int64_t i = 0; i < dim.size; ++i)
          next.push_back({base[0] + i * dim.strides[0],
                          base[1] + i * dim.strides[1],
                          base[2] + i * dim.strides[2]});
      offsets = std::move(next);
    }
    return offsets;
  }

  /// Drops unit batch dims, folds inner batch dims into m where b does not
  /// move with them and a and out continue their rows, and merges batch
  /// dims that continue each other in all three operands.
  void simplify() {
    std::vector<MatmulBatchDim> dims;
    for (const MatmulBatchDim &dim : batch)
      if (dim.size != 1)
        dims.push_back(dim);
    MatmulOperand &a = operands[A], &out = operands[Out];
    while (!dims.empty()) {
      const MatmulBatchDim &dim = dims.back();
      if (dim.size == 0 || dim.strides[B] != 0 || dim.strides[A] == 0 ||
          dim.strides[Out] == 0)
        break;
      if (m == 1) {
        a.rowStride = dim.strides[A];
        out.rowStride = dim.strides[Out];
      } else if (dim.strides[A] != m * a.rowStride ||
                 dim.strides[Out] != m * out.rowStride) {
        break;
      }
      m *= dim.size;
      dims.pop_back();
    }
    batch.clear();
    for (auto dim = dims.rbegin(); dim != dims.rend(); ++dim) {
      if (!batch.empty()) {
        MatmulBatchDim &inner = batch.front();
        bool continues = true;
        for (int operand = 0; operand < 3; ++operand)
          continues &= dim->strides[operand] ==
                       inner.strides[operand] * inner.size;
        if (continues) {
          inner.size *= dim->size;
          continue;
        }
      }
      batch.insert(batch.begin(), *dim);
    }
  }
};

namespace matmul_detail {
inline char *getStart(const FuserBuffer &buffer) {
  return static_cast<char *>(buffer.aligned) +
         buffer.offset * static_cast<int64_t>(getElementSize(buffer.dtype));
}
} // namespace matmul_detail

/// fuser_matmul's arguments (shapes checked by the caller).
inline MatmulProblem describeMatmul(const FuserBuffer &lhs,
                                    const FuserBuffer &rhs,
                                    const FuserBuffer &out, bool accumulate,
                                    FuserActivation activation) {
  MatmulProblem problem;
  problem.accumulate = accumulate;
  problem.activation = activation;
  int64_t rank = lhs.rank;
  problem.dtype = lhs.dtype;
  problem.m = lhs.sizes[rank - 2];
  problem.k = lhs.sizes[rank - 1];
  problem.n = rhs.sizes[rhs.rank - 1];
  const FuserBuffer *buffers[3] = {&lhs, &rhs, &out};
  const char *names[3] = {"lhs", "rhs", "out"};
  for (int operand = 0; operand < 3; ++operand) {
    const FuserBuffer &buffer = *buffers[operand];
    problem.operands[operand] = {&buffer, names[operand],
                                 matmul_detail::getStart(buffer),
                                 buffer.strides[buffer.rank - 2],
                                 buffer.strides[buffer.rank - 1]};
  }
  // A matrix rhs of a batched lhs is every batch entry's: batch stride 0.
  bool sharedRhs = rhs.rank != rank;
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    problem.batch.push_back(
        {lhs.sizes[dim],
         {lhs.strides[dim], sharedRhs ? 0 : rhs.strides[dim],
          out.strides[dim]}});
  problem.simplify();
  return problem;
}

/// fuser_linear's arguments (shapes checked by the caller): a = input
/// [..., k] with its leading dims as batch dims over rows of one, b = the
/// weight transposed ([k, n], or [k, 1] for a weight of rank 1).
inline MatmulProblem describeLinear(const FuserBuffer &input,
                                    const FuserBuffer &weight,
                                    const FuserBuffer *bias,
                                    const FuserBuffer &out, bool accumulate,
                                    FuserActivation activation) {
  MatmulProblem problem;
  problem.accumulate = accumulate;
  problem.activation = activation;
  int64_t rank = input.rank;
  bool vector = weight.rank == 1;
  problem.dtype = input.dtype;
  problem.m = 1;
  problem.k = input.sizes[rank - 1];
  problem.n = vector ? 1 : weight.sizes[0];
  problem.operands[MatmulProblem::A] = {
      &input, "input", matmul_detail::getStart(input), 0,
      input.strides[rank - 1]};
  problem.operands[MatmulProblem::B] = {
      &weight, "weight", matmul_detail::getStart(weight),
      weight.strides[weight.rank - 1], vector ? 0 : weight.strides[0]};
  problem.operands[MatmulProblem::Out] = {
      &out, "out", matmul_detail::getStart(out), 0,
      vector ? 0 : out.strides[rank - 1]};
  for (int64_t dim = 0; dim < rank - 1; ++dim)
    problem.batch.push_back(
        {input.sizes[dim], {input.strides[dim], 0, out.strides[dim]}});
  if (bias) {
    problem.bias = matmul_detail::getStart(*bias);
    problem.biasStride = vector ? 0 : bias->strides[0];
  }
  problem.simplify();
  return problem;
}

/// "bf16[64, 32] with strides [1, 64]", for messages about layouts.
inline std::string describeStrided(const FuserBuffer &buffer) {
  std::string text = describe(buffer) + " with strides [";
  for (int64_t dim = 0; dim < buffer.rank; ++dim)
    text += (dim ? ", " : "") + std::to_string(buffer.strides[dim]);
  return text + "]";
}

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_MATMULPROBLEM_H
