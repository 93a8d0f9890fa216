//===- HostLibrary.cpp - matmul, linear and reduce_blocks on the CPU ------===//
//
// The host backend's library calls, also the CPU reference that GPU results
// are checked against: any strides (pipelines hand them views of chunks),
// f32/f16/bf16 (and integer) inputs accumulated in f32, f64 in f64.
//
// Matrix products are blocked for the caches: the right operand is
// converted once into contiguous panels of kNr columns, blocks of kMc rows
// of the left operand into panels of kMr rows, and a kMr x kNr
// micro-kernel that the compiler vectorizes (no intrinsics, no fast-math)
// accumulates them into a float (double for f64) block of the output: each
// output element adds up its products in order of p, in partial sums of
// kKc products (exactly a plain loop's order for k <= kKc).
// Row blocks (or whole batch entries, when there are many) are spread over
// std::thread workers.
//
//===----------------------------------------------------------------------===//

#include "../Internal.h"
#include "../MatmulProblem.h"
#include "HostBackend.h"
#include "HostElements.h"
#include "HostWorkers.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

using namespace fuser::runtime;
using namespace fuser::runtime::host;

namespace {

//--- Blocked matrix product ------------------------------------------------//

/// Micro-kernel tile (rows x columns) and cache blocks (rows of the left
/// operand, depth, output columns). The kMr x kNr accumulators take 8 of the
/// 16 vector registers of baseline x86-64, with room for the operands.
constexpr int64_t kMr = 4, kNr = 8, kMc = 64, kKc = 256, kNc = 2048;
/// Work below which a thread is not worth starting (about 0.1 ms).
constexpr double kFlopsPerThread = 1 << 19;

inline int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// c[i][j] += sum_p a[p][i] * b[p][j] for a kMr x kNr tile: `a` holds kc
/// columns of kMr rows, `b` kc rows of kNr columns, `c` has row stride ldc.
/// The tile's sums start from zero in local accumulators (which the
/// compiler keeps in vector registers) and are added to `c` at the end.
template <typename T>
inline void microKernel(int64_t kc, const T *__restrict a, const T *__restrict b,
                        T *__restrict c, int64_t ldc) {
  T acc[kMr * kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const T *aColumn = a + p * kMr, *bRow = b + p * kNr;
#pragma GCC unroll 8
    for (int64_t i = 0; i < kMr; ++i) {
#pragma GCC unroll 16
      for (int64_t j = 0; j < kNr; ++j)
        acc[i * kNr + j] += aColumn[i] * bRow[j];
    }
  }
  for (int64_t i = 0; i < kMr; ++i)
    for (int64_t j = 0; j < kNr; ++j)
      c[i * ldc + j] += acc[i * kNr + j];
}

/// One batch entry of the problem: where its operands start.
struct Entry {
  const char *a, *b;
  char *out;
};

template <typename T> class Gemm {
public:
  Gemm(const MatmulProblem &problem, const std::vector<T> &bias)
      : problem(problem), dtype(problem.dtype), m(problem.m), n(problem.n),
        k(problem.k), strips((problem.n + kNr - 1) / kNr),
        size(static_cast<int64_t>(getElementSize(problem.dtype))),
        bias(bias.empty() ? nullptr : bias.data()) {}

  /// Elements of the packed right operand.
  int64_t getPackedSize() const { return strips * k * kNr; }

  /// Converts strips [first, last) of the right operand into `packed`:
  /// strip s holds rows p of columns s*kNr .. s*kNr+kNr-1, zero past n.
  void packB(const Entry &entry, T *packed, int64_t first, int64_t last) const {
    const MatmulOperand &b = problem.operands[MatmulProblem::B];
    int64_t rowStride = k == 1 ? 0 : b.rowStride,
            colStride = n == 1 ? 0 : b.colStride;
    for (int64_t strip = first; strip < last; ++strip) {
      T *target = packed + strip * k * kNr;
      int64_t j0 = strip * kNr, columns = std::min(kNr, n - j0);
      const char *source = entry.b + j0 * colStride * size;
      if (columns < kNr)
        std::fill(target, target + k * kNr, T(0));
      if (std::abs(colStride) <= std::abs(rowStride)) {
        for (int64_t p = 0; p < k; ++p)
          convert(target + p * kNr, 1, source + p * rowStride * size, colStride,
                  columns, dtype);
      } else {
        for (int64_t j = 0; j < columns; ++j)
          convert(target + j, kNr, source + j * colStride * size, rowStride, k,
                  dtype);
      }
    }
  }

  /// Computes rows [i0, i0 + rows) of the entry's output (rows <= kMc)
  /// with the packed right operand; `packedA` and `block` are the worker's
  /// scratch.
  void computeRows(const Entry &entry, const T *packedB, int64_t i0,
                   int64_t rows, std::vector<T> &packedA,
                   std::vector<T> &block) const {
    const MatmulOperand &a = problem.operands[MatmulProblem::A],
                        &out = problem.operands[MatmulProblem::Out];
    int64_t aRowStride = m == 1 ? 0 : a.rowStride,
            aColStride = k == 1 ? 0 : a.colStride;
    int64_t paddedRows = roundUp(rows, kMr);
    int64_t blockColumns = std::min(kNc, roundUp(n, kNr));
    packedA.resize(paddedRows * std::min(kKc, std::max<int64_t>(k, 1)));
    block.resize(paddedRows * blockColumns);
    const char *aRows = entry.a + i0 * aRowStride * size;
    int64_t outRowStride = m == 1 ? 0 : out.rowStride,
            outColStride = n == 1 ? 0 : out.colStride;
    auto outRow = [&](int64_t i, int64_t jc) {
      return entry.out + ((i0 + i) * outRowStride + jc * outColStride) * size;
    };
    for (int64_t jc = 0; jc < n; jc += kNc) {
      int64_t columns = std::min(kNc, n - jc);
      int64_t blockStrips = (columns + kNr - 1) / kNr;
      std::fill(block.begin(), block.end(), T(0));
      // The product is added to what out holds.
      if (problem.accumulate)
        for (int64_t i = 0; i < rows; ++i)
          convert(block.data() + i * blockColumns, 1, outRow(i, jc),
                  outColStride, columns, dtype);
      for (int64_t pc = 0; pc < k; pc += kKc) {
        int64_t depth = std::min(kKc, k - pc);
        packA(aRows + pc * aColStride * size, aRowStride, aColStride, rows,
              depth, packedA.data());
        for (int64_t strip = 0; strip < blockStrips; ++strip) {
          const T *b = packedB + (jc / kNr + strip) * k * kNr + pc * kNr;
          for (int64_t ir = 0; ir < paddedRows; ir += kMr)
            microKernel(depth, packedA.data() + ir * depth, b,
                        block.data() + ir * blockColumns + strip * kNr,
                        blockColumns);
        }
      }
      for (int64_t i = 0; i < rows; ++i)
        storeValues(outRow(i, jc), outColStride,
                    block.data() + i * blockColumns, bias ? bias + jc : nullptr,
                    problem.activation, columns, dtype);
    }
  }

private:
  /// Converts rows x depth elements of the left operand into panels of kMr
  /// rows: panel r holds, for each p, rows r*kMr .. r*kMr+kMr-1 (zero past
  /// `rows`).
  void packA(const char *source, int64_t rowStride, int64_t colStride,
             int64_t rows, int64_t depth, T *target) const {
    for (int64_t r0 = 0; r0 < rows; r0 += kMr) {
      T *panel = target + r0 * depth;
      int64_t panelRows = std::min(kMr, rows - r0);
      if (panelRows < kMr)
        std::fill(panel, panel + kMr * depth, T(0));
      const char *first = source + r0 * rowStride * size;
      if (std::abs(colStride) <= std::abs(rowStride)) {
        for (int64_t i = 0; i < panelRows; ++i)
          convert(panel + i, kMr, first + i * rowStride * size, colStride,
                  depth, dtype);
      } else {
        for (int64_t p = 0; p < depth; ++p)
          convert(panel + p * kMr, 1, first + p * colStride * size, rowStride,
                  panelRows, dtype);
      }
    }
  }

  const MatmulProblem &problem;
  FuserDType dtype;
  int64_t m, n, k, strips, size;
  const T *bias;
};

template <typename T> void runMatmul(const MatmulProblem &problem) {
  std::vector<T> bias;
  if (problem.bias) {
    bias.resize(problem.n);
    convert(bias.data(), 1, problem.bias, problem.n == 1 ? 0 : problem.biasStride,
            problem.n, problem.dtype);
  }
  Gemm<T> gemm(problem, bias);
  std::vector<Entry> entries;
  int64_t size = static_cast<int64_t>(getElementSize(problem.dtype));
  for (const auto &offsets : problem.getBatchOffsets())
    entries.push_back(
        {problem.operands[0].data + offsets[0] * size,
         problem.operands[1].data + offsets[1] * size,
         problem.operands[2].data + offsets[2] * size});
  int64_t batches = static_cast<int64_t>(entries.size());
  double entryFlops = 2.0 * problem.m * problem.n * std::max<int64_t>(problem.k, 1);
  int64_t threads = std::min<int64_t>(
      getHardwareThreads(),
      std::max<int64_t>(1, static_cast<int64_t>(entryFlops * batches /
                                                kFlopsPerThread)));

  // Many entries: each worker computes whole entries.
  if (threads == 1 || batches >= 4 * threads ||
      (batches >= threads && entryFlops < 64 * kFlopsPerThread)) {
    threads = std::min(threads, batches);
    std::atomic<int64_t> next{0};
    runWorkers(threads, [&](int64_t) {
      std::vector<T> packedB(gemm.getPackedSize()), packedA, block;
      for (int64_t entry = next++; entry < batches; entry = next++) {
        gemm.packB(entries[entry], packedB.data(), 0,
                   (problem.n + kNr - 1) / kNr);
        for (int64_t i0 = 0; i0 < problem.m; i0 += kMc)
          gemm.computeRows(entries[entry], packedB.data(), i0,
                           std::min(kMc, problem.m - i0), packedA, block);
      }
    });
    return;
  }

  // Few large entries: the workers share each entry's rows.
  int64_t rowsPerBlock = std::min(
      kMc, roundUp((problem.m + threads - 1) / threads, kMr));
  int64_t rowBlocks = (problem.m + rowsPerBlock - 1) / rowsPerBlock;
  int64_t strips = (problem.n + kNr - 1) / kNr;
  std::vector<T> packedB(gemm.getPackedSize());
  for (const Entry &entry : entries) {
    std::atomic<int64_t> nextStrip{0};
    runWorkers(std::min(threads, strips), [&](int64_t) {
      for (int64_t strip = nextStrip++; strip < strips; strip = nextStrip++)
        gemm.packB(entry, packedB.data(), strip, strip + 1);
    });
    std::atomic<int64_t> nextBlock{0};
    runWorkers(std::min(threads, rowBlocks), [&](int64_t) {
      std::vector<T> packedA, block;
      for (int64_t rowBlock = nextBlock++; rowBlock < rowBlocks;
           rowBlock = nextBlock++) {
        int64_t i0 = rowBlock * rowsPerBlock;
        gemm.computeRows(entry, packedB.data(), i0,
                         std::min(rowsPerBlock, problem.m - i0), packedA,
                         block);
      }
    });
  }
}

FuserStatus runProblem(const MatmulProblem &problem, const char *op) {
  if (problem.isEmpty())
    return FUSER_OK;
  try {
    if (problem.dtype == FUSER_F64)
      runMatmul<double>(problem);
    else
      runMatmul<float>(problem);
  } catch (const std::bad_alloc &) {
    return fail(std::string(op) + ": out of host memory for a " +
                std::to_string(problem.m) + "x" + std::to_string(problem.k) +
                "x" + std::to_string(problem.n) + " product");
  }
  return FUSER_OK;
}

//--- reduce_blocks ----------------------------------------------------------//

/// Floats in T (float or double), chunk by chunk through a small buffer.
template <typename T>
void reduceFloats(const char *input, char *out, int64_t blocks,
                  int64_t elements, FuserDType dtype, FuserReduction kind) {
  constexpr int64_t kChunk = 1024;
  int64_t size = static_cast<int64_t>(getElementSize(dtype));
  T acc[kChunk], next[kChunk];
  for (int64_t e0 = 0; e0 < elements; e0 += kChunk) {
    int64_t count = std::min(kChunk, elements - e0);
    convert(acc, 1, input + e0 * size, 1, count, dtype);
    for (int64_t block = 1; block < blocks; ++block) {
      convert(next, 1, input + (block * elements + e0) * size, 1, count, dtype);
      for (int64_t i = 0; i < count; ++i)
        acc[i] = combine(kind, next[i], acc[i]);
    }
    if (kind == FUSER_AVG)
      for (int64_t i = 0; i < count; ++i)
        acc[i] /= static_cast<T>(blocks);
    storeValues<T>(out + e0 * size, 1, acc, nullptr, FUSER_ACTIVATION_NONE,
                   count, dtype);
  }
}

int64_t loadInteger(const char *address, FuserDType dtype) {
  switch (dtype) {
  case FUSER_I64:
    return loadAs<int64_t>(address);
  case FUSER_I32:
    return loadAs<int32_t>(address);
  case FUSER_I8:
    return loadAs<int8_t>(address);
  default:
    return loadAs<uint8_t>(address) != 0;
  }
}
} // namespace

using fuser::runtime::host::HostBackend;

FuserStatus HostBackend::matmul(const FuserBuffer &lhs, const FuserBuffer &rhs,
                                const FuserBuffer &out, bool accumulate,
                                FuserActivation activation) {
  return runProblem(describeMatmul(lhs, rhs, out, accumulate, activation),
                    "hostir.matmul");
}

FuserStatus HostBackend::linear(const FuserBuffer &input,
                                const FuserBuffer &weight,
                                const FuserBuffer *bias, const FuserBuffer &out,
                                bool accumulate, FuserActivation activation) {
  return runProblem(
      describeLinear(input, weight, bias, out, accumulate, activation),
      "hostir.linear");
}

FuserStatus HostBackend::reduceBlocks(const FuserBuffer &input,
                                      const FuserBuffer &out,
                                      FuserReduction kind) {
  int64_t blocks = input.sizes[0];
  int64_t elements = getNumElements(out);
  FuserDType dtype = input.dtype;
  if (elements == 0)
    return FUSER_OK;
  bool floating = isFloatingPoint(dtype);
  if (floating && isRowMajor(input) && isRowMajor(out)) {
    if (dtype == FUSER_F64)
      reduceFloats<double>(getData(input), getData(out), blocks, elements,
                           dtype, kind);
    else
      reduceFloats<float>(getData(input), getData(out), blocks, elements,
                          dtype, kind);
    return FUSER_OK;
  }
  // Other layouts and integers, element by element in row-major order.
  for (int64_t e = 0; e < elements; ++e) {
    char *target = getElementAddress(out, e);
    if (floating) {
      double acc = loadElement(getElementAddress(input, e), dtype);
      if (dtype != FUSER_F64)
        acc = static_cast<float>(acc);
      for (int64_t block = 1; block < blocks; ++block) {
        double value =
            loadElement(getElementAddress(input, block * elements + e), dtype);
        acc = combine(kind, value, acc);
        if (dtype != FUSER_F64)
          acc = static_cast<float>(acc);
      }
      if (kind == FUSER_AVG)
        acc = dtype == FUSER_F64 ? acc / blocks
                                 : static_cast<float>(acc) /
                                       static_cast<float>(blocks);
      storeElement(target, dtype, acc);
      continue;
    }
    // Integers wrap as MPI's do; i1 sums and maxima are "or", products and
    // minima "and" (nonzero results are stored as true).
    uint64_t acc = static_cast<uint64_t>(
        loadInteger(getElementAddress(input, e), dtype));
    for (int64_t block = 1; block < blocks; ++block) {
      int64_t value = loadInteger(
          getElementAddress(input, block * elements + e), dtype);
      switch (kind) {
      case FUSER_SUM:
      case FUSER_AVG:
        acc += static_cast<uint64_t>(value);
        break;
      case FUSER_PROD:
        acc *= static_cast<uint64_t>(value);
        break;
      case FUSER_MAX:
        acc = static_cast<uint64_t>(
            std::max(static_cast<int64_t>(acc), value));
        break;
      case FUSER_MIN:
        acc = static_cast<uint64_t>(
            std::min(static_cast<int64_t>(acc), value));
        break;
      }
    }
    double result = static_cast<double>(static_cast<int64_t>(acc));
    if (kind == FUSER_AVG)
      result /= blocks;
    if (dtype == FUSER_I64 && kind != FUSER_AVG) {
      int64_t exact = static_cast<int64_t>(acc);
      std::memcpy(target, &exact, sizeof(exact));
    } else {
      storeElement(target, dtype, result);
    }
  }
  return FUSER_OK;
}
