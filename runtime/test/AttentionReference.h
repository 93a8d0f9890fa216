//===- AttentionReference.h - naive attention in double --------*- C++ -*-===//
//
// Scaled dot-product attention and its gradients computed the plain way,
// in double, from the values a test's host tensors hold: the whole score
// matrix of each (batch, head), its softmax, the dropout factors a mask
// function gives, and the textbook gradients. The runtime's sdpa calls
// (host and CUDA) are checked against it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_TEST_ATTENTIONREFERENCE_H
#define FUSER_RUNTIME_TEST_ATTENTIONREFERENCE_H

#include "LibraryTestSupport.h"

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

/// Whether probability [b, h, i, j] of a piece is kept by the dropout.
using KeepFunction =
    std::function<bool(int64_t b, int64_t h, int64_t i, int64_t j)>;

struct AttentionReference {
  int64_t batch, heads, queries, keys, depth;
  /// Row-major [b, h, sq, d], [b, h, sq] and [b, h, skv, d].
  std::vector<double> out, logsumexp, gradQuery, gradKey, gradValue;

  /// The forward pass, and the backward pass when `gradOut` is given;
  /// `keeps` is null without dropout.
  AttentionReference(const HostTensor &query, const HostTensor &key,
                     const HostTensor &value, const HostTensor *gradOut,
                     double scale, bool causal, double dropoutProbability,
                     const KeepFunction &keeps)
      : batch(query.sizes[0]), heads(query.sizes[1]), queries(query.sizes[2]),
        keys(key.sizes[2]), depth(query.sizes[3]),
        out(batch * heads * queries * depth),
        logsumexp(batch * heads * queries),
        gradQuery(out.size()), gradKey(batch * heads * keys * depth),
        gradValue(gradKey.size()) {
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < heads; ++h)
        computeEntry(query, key, value, gradOut, scale, causal,
                     dropoutProbability, keeps, b, h);
  }

  double outAt(int64_t b, int64_t h, int64_t i, int64_t c) const {
    return out[((b * heads + h) * queries + i) * depth + c];
  }

private:
  void computeEntry(const HostTensor &query, const HostTensor &key,
                    const HostTensor &value, const HostTensor *gradOut,
                    double scale, bool causal, double dropoutProbability,
                    const KeepFunction &keeps, int64_t b, int64_t h) {
    int64_t entry = b * heads + h;
    // p[i][j] (softmax, before dropout) and the dropout factors m[i][j].
    std::vector<double> p(queries * keys, 0), m(queries * keys, 1);
    for (int64_t i = 0; i < queries; ++i) {
      double maximum = -std::numeric_limits<double>::infinity();
      std::vector<double> scores(keys);
      for (int64_t j = 0; j < keys; ++j) {
        double sum = 0;
        for (int64_t c = 0; c < depth; ++c)
          sum += query.get({b, h, i, c}) * key.get({b, h, j, c});
        scores[j] = causal && j > i ? -std::numeric_limits<double>::infinity()
                                    : scale * sum;
        maximum = std::max(maximum, scores[j]);
      }
      double total = 0;
      for (int64_t j = 0; j < keys; ++j)
        total += std::exp(scores[j] - maximum);
      logsumexp[entry * queries + i] = maximum + std::log(total);
      for (int64_t j = 0; j < keys; ++j) {
        p[i * keys + j] = std::exp(scores[j] - maximum) / total;
        if (keeps)
          m[i * keys + j] =
              keeps(b, h, i, j) ? 1 / (1 - dropoutProbability) : 0;
      }
      for (int64_t c = 0; c < depth; ++c) {
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j)
          sum += p[i * keys + j] * m[i * keys + j] * value.get({b, h, j, c});
        out[(entry * queries + i) * depth + c] = sum;
      }
    }
    if (!gradOut)
      return;
    // dS = p (m (dOut . v_j) - dOut . out_i).
    std::vector<double> gradScores(queries * keys);
    for (int64_t i = 0; i < queries; ++i) {
      double outDot = 0;
      for (int64_t c = 0; c < depth; ++c)
        outDot += gradOut->get({b, h, i, c}) *
                  out[(entry * queries + i) * depth + c];
      for (int64_t j = 0; j < keys; ++j) {
        double valueDot = 0;
        for (int64_t c = 0; c < depth; ++c)
          valueDot += gradOut->get({b, h, i, c}) * value.get({b, h, j, c});
        gradScores[i * keys + j] =
            p[i * keys + j] * (m[i * keys + j] * valueDot - outDot);
      }
    }
    for (int64_t c = 0; c < depth; ++c) {
      for (int64_t i = 0; i < queries; ++i) {
        double sum = 0;
        for (int64_t j = 0; j < keys; ++j)
          sum += gradScores[i * keys + j] * key.get({b, h, j, c});
        gradQuery[(entry * queries + i) * depth + c] = scale * sum;
      }
      for (int64_t j = 0; j < keys; ++j) {
        double keySum = 0, valueSum = 0;
        for (int64_t i = 0; i < queries; ++i) {
          keySum += gradScores[i * keys + j] * query.get({b, h, i, c});
          valueSum += p[i * keys + j] * m[i * keys + j] *
                      gradOut->get({b, h, i, c});
        }
        gradKey[(entry * keys + j) * depth + c] = scale * keySum;
        gradValue[(entry * keys + j) * depth + c] = valueSum;
      }
    }
  }
};

/// The largest difference between a [b, h, s, ...] tensor and row-major
/// reference values, relative to the largest reference magnitude.
inline double relativeError(const HostTensor &actual,
                            const std::vector<double> &expected) {
  double scale = 0, error = 0;
  for (double value : expected)
    scale = std::max(scale, std::fabs(value));
  std::vector<std::vector<int64_t>> indices = allIndices(actual.sizes);
  for (size_t i = 0; i < indices.size(); ++i) {
    double difference = std::fabs(actual.get(indices[i]) - expected[i]);
    if (std::isnan(difference))
      return difference;
    error = std::max(error, difference);
  }
  return scale > 0 ? error / scale : error;
}

#endif // FUSER_RUNTIME_TEST_ATTENTIONREFERENCE_H
