//===- HostAttention.cpp - scaled dot-product attention on the CPU --------===//
//
// The host backend's sdpa, also the reference the CUDA backend's cuDNN
// attention is checked against. One query row at a time: its scores
// against every key it sees, their softmax (max subtracted, logsumexp kept
// for the backward pass), the dropout mask of DropoutMask.h, and the
// weighted sum of the values, accumulated in float (double for f64).
// The operands of one (batch, head) entry are converted once per worker
// into contiguous panels; work items are blocks of rows of one entry,
// spread over the workers.
//
// The backward pass computes, with p_ij = exp(s_ij - logsumexp_i), the
// dropout factor m_ij (0 or 1 / (1 - p), 1 without dropout) and
// D_i = dOut_i . out_i:
//   dV_j = sum_i p_ij m_ij dOut_i,
//   dS_ij = p_ij (m_ij dOut_i . v_j - D_i),
//   dQ_i = scale sum_j dS_ij k_j,  dK_j = scale sum_i dS_ij q_i,
// in two passes that each own what they write: one over query rows (dQ),
// one over blocks of key rows (dK, dV), each computing the p_ij it needs.
//
//===----------------------------------------------------------------------===//

#include "../DropoutMask.h"
#include "../Internal.h"
#include "HostBackend.h"
#include "HostElements.h"
#include "HostWorkers.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <new>
#include <vector>

using namespace fuser::runtime;
using namespace fuser::runtime::host;

namespace {

/// Rows of one work item: enough work per item to pay for taking it, few
/// enough that small problems still spread over the workers.
constexpr int64_t kRowsPerItem = 64;

template <typename T> T dot(const T *a, const T *b, int64_t count) {
  T sum = 0;
  for (int64_t i = 0; i < count; ++i)
    sum += a[i] * b[i];
  return sum;
}

/// `target` += factor * `source`.
template <typename T>
void addScaled(T *target, const T *source, T factor, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    target[i] += factor * source[i];
}

/// One call's operands and sizes, and how its work items are numbered.
template <typename T> class Attention {
public:
  Attention(const FuserBuffer &query, const FuserBuffer &key,
            const AttentionOptions &options)
      : batch(query.sizes[0]), heads(query.sizes[1]), queries(query.sizes[2]),
        keys(key.sizes[2]), depth(query.sizes[3]), options(options),
        scale(static_cast<T>(options.scale)),
        keepScale(static_cast<T>(1 / (1 - options.dropoutProbability))) {}

  int64_t getEntries() const { return batch * heads; }
  /// Work items of `rows` rows per entry.
  int64_t getItems(int64_t rows) const {
    return getEntries() * ((rows + kRowsPerItem - 1) / kRowsPerItem);
  }
  /// How many keys query row `i` sees.
  int64_t getVisibleKeys(int64_t i) const {
    return options.causal ? std::min(i + 1, keys) : keys;
  }
  /// The first query row that sees key `j`.
  int64_t getFirstQuery(int64_t j) const { return options.causal ? j : 0; }

  /// The address of row `row` of entry `entry` of a [b, h, s, d] buffer.
  char *getRow(const FuserBuffer &buffer, int64_t entry, int64_t row) const {
    int64_t b = entry / heads, h = entry % heads;
    return getData(buffer) +
           (b * buffer.strides[0] + h * buffer.strides[1] +
            row * buffer.strides[2]) *
               static_cast<int64_t>(getElementSize(buffer.dtype));
  }
  /// Row `row` of the entry, converted to T.
  void loadRow(const FuserBuffer &buffer, int64_t entry, int64_t row,
               T *target) const {
    convert(target, 1, getRow(buffer, entry, row), buffer.strides[3], depth,
            buffer.dtype);
  }
  /// Every row of the entry as a contiguous rows x depth panel.
  void loadPanel(const FuserBuffer &buffer, int64_t entry,
                 std::vector<T> &panel) const {
    int64_t rows = buffer.sizes[2];
    panel.resize(rows * depth);
    for (int64_t row = 0; row < rows; ++row)
      loadRow(buffer, entry, row, panel.data() + row * depth);
  }
  void storeRow(const FuserBuffer &buffer, int64_t entry, int64_t row,
                const T *values) const {
    storeValues<T>(getRow(buffer, entry, row), buffer.strides[3], values,
                   nullptr, FUSER_ACTIVATION_NONE, depth, buffer.dtype);
  }
  /// The address of logsumexp[b, h, i].
  char *getStatistic(const FuserBuffer &logsumexp, int64_t entry,
                     int64_t row) const {
    int64_t b = entry / heads, h = entry % heads;
    return getData(logsumexp) +
           (b * logsumexp.strides[0] + h * logsumexp.strides[1] +
            row * logsumexp.strides[2]) *
               static_cast<int64_t>(sizeof(float));
  }

  /// The dropout draws of query row `row` of the entry.
  DropoutRow getDropoutRow(int64_t entry, int64_t row) const {
    return DropoutRow(options.seed, options.batchOffset + entry / heads,
                      options.headOffset + entry % heads, row);
  }
  /// The factor dropout applies to p_ij: 0 or 1 / (1 - p).
  T getDropoutFactor(const DropoutRow &row, int64_t key) const {
    if (options.dropoutProbability == 0)
      return 1;
    return row.keeps(key, options.dropoutProbability) ? keepScale : 0;
  }

  const int64_t batch, heads, queries, keys, depth;
  const AttentionOptions &options;
  const T scale, keepScale;
};

/// Whether a worker's panels hold entry `entry`; loads them if not.
template <typename T> struct EntryPanels {
  int64_t entry = -1;
  std::vector<T> first, second;

  void load(const Attention<T> &attention, int64_t wanted,
            const FuserBuffer &firstBuffer, const FuserBuffer &secondBuffer) {
    if (entry == wanted)
      return;
    attention.loadPanel(firstBuffer, wanted, first);
    attention.loadPanel(secondBuffer, wanted, second);
    entry = wanted;
  }
};

/// Runs body(entry, firstRow, lastRow, worker) for every block of `rows`
/// rows of every entry, spread over the workers.
template <typename T, typename Body>
void forEachBlock(const Attention<T> &attention, int64_t rows,
                  const Body &body) {
  int64_t blocks = (rows + kRowsPerItem - 1) / kRowsPerItem;
  int64_t items = attention.getItems(rows);
  std::atomic<int64_t> next{0};
  runWorkers(std::min(getHardwareThreads(), items), [&](int64_t worker) {
    for (int64_t item = next++; item < items; item = next++) {
      int64_t first = item % blocks * kRowsPerItem;
      body(item / blocks, first, std::min(rows, first + kRowsPerItem), worker);
    }
  });
}

template <typename T>
void runForward(const FuserBuffer &query, const FuserBuffer &key,
                const FuserBuffer &value, const FuserBuffer &out,
                const FuserBuffer &logsumexp,
                const AttentionOptions &options) {
  Attention<T> attention(query, key, options);
  int64_t depth = attention.depth;
  int64_t workers = getHardwareThreads();
  std::vector<EntryPanels<T>> panels(workers);
  forEachBlock(attention, attention.queries, [&](int64_t entry, int64_t first,
                                                 int64_t last, int64_t worker) {
    EntryPanels<T> &keysAndValues = panels[worker];
    keysAndValues.load(attention, entry, key, value);
    std::vector<T> q(depth), scores(attention.keys), sum(depth);
    for (int64_t i = first; i < last; ++i) {
      attention.loadRow(query, entry, i, q.data());
      int64_t visible = attention.getVisibleKeys(i);
      T maximum = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        scores[j] = attention.scale *
                    dot(q.data(), keysAndValues.first.data() + j * depth, depth);
        maximum = std::max(maximum, scores[j]);
      }
      T total = 0;
      for (int64_t j = 0; j < visible; ++j)
        total += scores[j] = std::exp(scores[j] - maximum);
      std::fill(sum.begin(), sum.end(), T(0));
      DropoutRow dropout = attention.getDropoutRow(entry, i);
      for (int64_t j = 0; j < visible; ++j)
        if (T weight = scores[j] / total * attention.getDropoutFactor(dropout, j))
          addScaled(sum.data(), keysAndValues.second.data() + j * depth, weight,
                    depth);
      attention.storeRow(out, entry, i, sum.data());
      storeElement(attention.getStatistic(logsumexp, entry, i), FUSER_F32,
                   static_cast<double>(maximum + std::log(total)));
    }
  });
}

template <typename T>
void runBackward(const FuserBuffer &query, const FuserBuffer &key,
                 const FuserBuffer &value, const FuserBuffer &out,
                 const FuserBuffer &gradOut, const FuserBuffer &logsumexp,
                 const FuserBuffer &gradQuery, const FuserBuffer &gradKey,
                 const FuserBuffer &gradValue,
                 const AttentionOptions &options) {
  Attention<T> attention(query, key, options);
  int64_t depth = attention.depth, queries = attention.queries;
  int64_t workers = getHardwareThreads();
  // logsumexp_i and D_i of every row, which both passes read.
  std::vector<T> statistics(attention.getEntries() * queries),
      outDots(statistics.size());
  forEachBlock(attention, queries, [&](int64_t entry, int64_t first,
                                       int64_t last, int64_t) {
    std::vector<T> o(depth), gradient(depth);
    for (int64_t i = first; i < last; ++i) {
      attention.loadRow(out, entry, i, o.data());
      attention.loadRow(gradOut, entry, i, gradient.data());
      outDots[entry * queries + i] = dot(o.data(), gradient.data(), depth);
      statistics[entry * queries + i] = static_cast<T>(loadElement(
          attention.getStatistic(logsumexp, entry, i), FUSER_F32));
    }
  });

  // dQ, one query row at a time.
  std::vector<EntryPanels<T>> keysAndValues(workers);
  forEachBlock(attention, queries, [&](int64_t entry, int64_t first,
                                       int64_t last, int64_t worker) {
    EntryPanels<T> &panels = keysAndValues[worker];
    panels.load(attention, entry, key, value);
    std::vector<T> q(depth), gradient(depth), sum(depth);
    for (int64_t i = first; i < last; ++i) {
      attention.loadRow(query, entry, i, q.data());
      attention.loadRow(gradOut, entry, i, gradient.data());
      std::fill(sum.begin(), sum.end(), T(0));
      T statistic = statistics[entry * queries + i],
        outDot = outDots[entry * queries + i];
      DropoutRow dropout = attention.getDropoutRow(entry, i);
      for (int64_t j = 0, visible = attention.getVisibleKeys(i); j < visible;
           ++j) {
        const T *k = panels.first.data() + j * depth,
                *v = panels.second.data() + j * depth;
        T p = std::exp(attention.scale * dot(q.data(), k, depth) - statistic);
        T factor = attention.getDropoutFactor(dropout, j);
        T gradScore = p * (factor * dot(gradient.data(), v, depth) - outDot);
        addScaled(sum.data(), k, attention.scale * gradScore, depth);
      }
      attention.storeRow(gradQuery, entry, i, sum.data());
    }
  });

  // dK and dV, one block of key rows at a time, visiting the query rows
  // that see them.
  std::vector<EntryPanels<T>> queriesAndGradients(workers);
  forEachBlock(attention, attention.keys, [&](int64_t entry, int64_t first,
                                              int64_t last, int64_t worker) {
    EntryPanels<T> &panels = queriesAndGradients[worker];
    panels.load(attention, entry, query, gradOut);
    int64_t rows = last - first;
    std::vector<T> k(rows * depth), v(rows * depth), keySums(rows * depth),
        valueSums(rows * depth);
    for (int64_t j = first; j < last; ++j) {
      attention.loadRow(key, entry, j, k.data() + (j - first) * depth);
      attention.loadRow(value, entry, j, v.data() + (j - first) * depth);
    }
    for (int64_t i = attention.getFirstQuery(first); i < queries; ++i) {
      const T *q = panels.first.data() + i * depth,
              *gradient = panels.second.data() + i * depth;
      T statistic = statistics[entry * queries + i],
        outDot = outDots[entry * queries + i];
      DropoutRow dropout = attention.getDropoutRow(entry, i);
      int64_t end = std::min(last, attention.getVisibleKeys(i));
      for (int64_t j = first; j < end; ++j) {
        int64_t row = (j - first) * depth;
        T p = std::exp(attention.scale * dot(q, k.data() + row, depth) -
                       statistic);
        T factor = attention.getDropoutFactor(dropout, j);
        if (factor != 0)
          addScaled(valueSums.data() + row, gradient, p * factor, depth);
        T gradScore =
            p * (factor * dot(gradient, v.data() + row, depth) - outDot);
        addScaled(keySums.data() + row, q, attention.scale * gradScore, depth);
      }
    }
    for (int64_t j = first; j < last; ++j) {
      attention.storeRow(gradKey, entry, j,
                         keySums.data() + (j - first) * depth);
      attention.storeRow(gradValue, entry, j,
                         valueSums.data() + (j - first) * depth);
    }
  });
}

FuserStatus outOfMemory(const char *op, const FuserBuffer &query) {
  return fail(std::string(op) + ": out of host memory for attention over " +
              describe(query));
}

} // namespace

FuserStatus HostBackend::sdpaForward(const FuserBuffer &query,
                                     const FuserBuffer &key,
                                     const FuserBuffer &value,
                                     const FuserBuffer &out,
                                     const FuserBuffer &logsumexp,
                                     const AttentionOptions &options) {
  try {
    if (query.dtype == FUSER_F64)
      runForward<double>(query, key, value, out, logsumexp, options);
    else
      runForward<float>(query, key, value, out, logsumexp, options);
  } catch (const std::bad_alloc &) {
    return outOfMemory("hostir.sdpa_forward", query);
  }
  return FUSER_OK;
}

FuserStatus HostBackend::sdpaBackward(
    const FuserBuffer &query, const FuserBuffer &key, const FuserBuffer &value,
    const FuserBuffer &out, const FuserBuffer &gradOut,
    const FuserBuffer &logsumexp, const FuserBuffer &gradQuery,
    const FuserBuffer &gradKey, const FuserBuffer &gradValue,
    const AttentionOptions &options) {
  try {
    if (query.dtype == FUSER_F64)
      runBackward<double>(query, key, value, out, gradOut, logsumexp,
                          gradQuery, gradKey, gradValue, options);
    else
      runBackward<float>(query, key, value, out, gradOut, logsumexp,
                         gradQuery, gradKey, gradValue, options);
  } catch (const std::bad_alloc &) {
    return outOfMemory("hostir.sdpa_backward", query);
  }
  return FUSER_OK;
}
