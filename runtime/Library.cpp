//===- Library.cpp - matmul and linear on host buffers --------------------===//
//
// The host backend's library calls: any strides (pipelines hand them views
// of chunks), f32/f16/bf16 inputs accumulated in f32, f64 in f64.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <vector>

using namespace fuser::runtime;

namespace {
/// Element offsets (in elements, from `aligned`) of the batch entries of a
/// buffer: the combinations of its first `batchRank` dims, row-major.
std::vector<int64_t> getBatchOffsets(const FuserBuffer &buffer,
                                     int64_t batchRank) {
  std::vector<int64_t> offsets{buffer.offset};
  for (int64_t dim = 0; dim < batchRank; ++dim) {
    std::vector<int64_t> next;
    for (int64_t base : offsets)
      for (int64_t i = 0; i < buffer.sizes[dim]; ++i)
        next.push_back(base + i * buffer.strides[dim]);
    offsets = std::move(next);
  }
  return offsets;
}

/// Reads and writes elements by element offset.
struct Elements {
  const FuserBuffer &buffer;
  size_t size = getElementSize(buffer.dtype);
  double load(int64_t offset) const {
    return loadElement(static_cast<const char *>(buffer.aligned) +
                           offset * static_cast<int64_t>(size),
                       buffer.dtype);
  }
  void store(int64_t offset, double value) const {
    storeElement(static_cast<char *>(buffer.aligned) +
                     offset * static_cast<int64_t>(size),
                 buffer.dtype, value);
  }
};

bool sameDType(const char *what, std::initializer_list<const FuserBuffer *> buffers) {
  FuserDType dtype = (*buffers.begin())->dtype;
  for (const FuserBuffer *buffer : buffers)
    if (buffer && buffer->dtype != dtype) {
      fail(std::string(what) + ": operands " + describe(**buffers.begin()) +
           " and " + describe(*buffer) + " differ in element type");
      return false;
    }
  return true;
}

/// Dot products accumulate in f64 for f64 and in f32 otherwise.
template <typename Accumulator>
double dot(const Elements &a, int64_t aOffset, int64_t aStride,
           const Elements &b, int64_t bOffset, int64_t bStride, int64_t k) {
  Accumulator sum = 0;
  for (int64_t i = 0; i < k; ++i)
    sum += static_cast<Accumulator>(a.load(aOffset + i * aStride)) *
           static_cast<Accumulator>(b.load(bOffset + i * bStride));
  return static_cast<double>(sum);
}

double dotProduct(const Elements &a, int64_t aOffset, int64_t aStride,
                  const Elements &b, int64_t bOffset, int64_t bStride,
                  int64_t k) {
  return a.buffer.dtype == FUSER_F64
             ? dot<double>(a, aOffset, aStride, b, bOffset, bStride, k)
             : dot<float>(a, aOffset, aStride, b, bOffset, bStride, k);
}
} // namespace

extern "C" {

FuserStatus fuser_matmul(const FuserBuffer *lhs, const FuserBuffer *rhs,
                         const FuserBuffer *out) {
  int64_t rank = lhs->rank;
  if (!sameDType("matmul", {lhs, rhs, out}))
    return FUSER_FAILED;
  bool shapesFit = rank >= 2 && rhs->rank == rank && out->rank == rank;
  for (int64_t dim = 0; shapesFit && dim < rank - 2; ++dim)
    shapesFit = lhs->sizes[dim] == rhs->sizes[dim] &&
                lhs->sizes[dim] == out->sizes[dim];
  int64_t m = rank >= 2 ? lhs->sizes[rank - 2] : 0,
          k = rank >= 2 ? lhs->sizes[rank - 1] : 0,
          n = rank >= 2 ? rhs->sizes[rank - 1] : 0;
  if (!shapesFit || rhs->sizes[rank - 2] != k || out->sizes[rank - 2] != m ||
      out->sizes[rank - 1] != n)
    return fail("matmul: shapes " + describe(*lhs) + " x " + describe(*rhs) +
                " -> " + describe(*out) + " do not fit");
  Elements a{*lhs}, b{*rhs}, c{*out};
  std::vector<int64_t> aBatch = getBatchOffsets(*lhs, rank - 2),
                       bBatch = getBatchOffsets(*rhs, rank - 2),
                       cBatch = getBatchOffsets(*out, rank - 2);
  for (size_t batch = 0; batch < cBatch.size(); ++batch)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c.store(cBatch[batch] + i * out->strides[rank - 2] +
                    j * out->strides[rank - 1],
                dotProduct(a, aBatch[batch] + i * lhs->strides[rank - 2],
                           lhs->strides[rank - 1],
                           b, bBatch[batch] + j * rhs->strides[rank - 1],
                           rhs->strides[rank - 2], k));
  return FUSER_OK;
}

FuserStatus fuser_linear(const FuserBuffer *input, const FuserBuffer *weight,
                         const FuserBuffer *bias, const FuserBuffer *out) {
  if (!sameDType("linear", {input, weight, bias, out}))
    return FUSER_FAILED;
  int64_t rank = input->rank;
  bool vector = weight->rank == 1;
  int64_t k = rank >= 1 ? input->sizes[rank - 1] : 0;
  int64_t n = vector ? 1 : weight->sizes[0];
  bool shapesFit = rank >= 1 && (weight->rank == 1 || weight->rank == 2) &&
                   weight->sizes[weight->rank - 1] == k &&
                   out->rank == (vector ? rank - 1 : rank);
  for (int64_t dim = 0; shapesFit && dim < rank - 1; ++dim)
    shapesFit = out->sizes[dim] == input->sizes[dim];
  if (shapesFit && !vector)
    shapesFit = out->sizes[rank - 1] == n;
  if (shapesFit && bias)
    shapesFit = vector ? bias->rank == 0
                       : bias->rank == 1 && bias->sizes[0] == n;
  if (!shapesFit)
    return fail("linear: shapes " + describe(*input) + ", weight " +
                describe(*weight) +
                (bias ? ", bias " + describe(*bias) : std::string()) +
                " -> " + describe(*out) + " do not fit");
  Elements x{*input}, w{*weight}, y{*out};
  std::vector<int64_t> rows = getBatchOffsets(*input, rank - 1),
                       outRows = getBatchOffsets(*out, rank - 1);
  int64_t weightRowStride = vector ? 0 : weight->strides[0];
  int64_t outStride = vector ? 0 : out->strides[rank - 1];
  for (size_t row = 0; row < rows.size(); ++row)
    for (int64_t j = 0; j < n; ++j) {
      double value =
          dotProduct(x, rows[row], input->strides[rank - 1], w,
                     weight->offset + j * weightRowStride,
                     weight->strides[weight->rank - 1], k);
      if (bias)
        value += Elements{*bias}.load(
            bias->offset + (vector ? 0 : j * bias->strides[0]));
      y.store(outRows[row] + j * outStride, value);
    }
  return FUSER_OK;
}

} // extern "C"
