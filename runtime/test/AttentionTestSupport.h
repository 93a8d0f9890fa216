//===- AttentionTestSupport.h - the tensors of an sdpa call -----*- C++ -*-===//
//
// Host tensors for fuser_sdpa_forward and fuser_sdpa_backward of one
// problem, optionally as strided views ([b, s, h, d] storage of
// [b, h, s, d] operands, as a projection's output is), filled with
// multiples of 1/4 in [-1, 1], and the calls on them.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_TEST_ATTENTIONTESTSUPPORT_H
#define FUSER_RUNTIME_TEST_ATTENTIONTESTSUPPORT_H

#include "LibraryTestSupport.h"

#include <vector>

/// [b, h, s, d] row-major, or stored as [b, s, h, d].
inline std::vector<int64_t> attentionStrides(int64_t heads, int64_t rows,
                                             int64_t depth, bool strided) {
  if (!strided)
    return {heads * rows * depth, rows * depth, depth, 1};
  return {rows * heads * depth, depth, heads * depth, 1};
}

struct AttentionShape {
  int64_t batch, heads, queries, keys, depth;
};

struct AttentionTensors {
  AttentionShape shape;
  HostTensor query, key, value, out, logsumexp, gradOut, gradQuery, gradKey,
      gradValue;

  AttentionTensors(AttentionShape s, FuserDType dtype, bool strided,
                   unsigned seed = 1)
      : shape(s), query(rows(s, s.queries), dtype,
                        attentionStrides(s.heads, s.queries, s.depth, strided)),
        key(rows(s, s.keys), dtype,
            attentionStrides(s.heads, s.keys, s.depth, strided)),
        value(rows(s, s.keys), dtype,
              attentionStrides(s.heads, s.keys, s.depth, strided)),
        out(rows(s, s.queries), dtype,
            attentionStrides(s.heads, s.queries, s.depth, strided)),
        // Stored as [b, sq, h] when strided.
        logsumexp({s.batch, s.heads, s.queries}, FUSER_F32,
                  strided ? std::vector<int64_t>{s.queries * s.heads, 1,
                                                 s.heads}
                          : std::vector<int64_t>{}),
        gradOut(rows(s, s.queries), dtype,
                attentionStrides(s.heads, s.queries, s.depth, strided)),
        gradQuery(rows(s, s.queries), dtype,
                  attentionStrides(s.heads, s.queries, s.depth, strided)),
        gradKey(rows(s, s.keys), dtype,
                attentionStrides(s.heads, s.keys, s.depth, strided)),
        gradValue(rows(s, s.keys), dtype,
                  attentionStrides(s.heads, s.keys, s.depth, strided)) {
    query.fillQuarters(seed);
    key.fillQuarters(seed + 1);
    value.fillQuarters(seed + 2);
    gradOut.fillQuarters(seed + 3);
  }

  static std::vector<int64_t> rows(const AttentionShape &s, int64_t count) {
    return {s.batch, s.heads, count, s.depth};
  }
};

/// The options of one call.
struct AttentionCall {
  double scale = 0.5;
  bool causal = false;
  double dropoutProbability = 0;
  int64_t seed = 0, batchOffset = 0, headOffset = 0;

  FuserStatus forward(const AttentionTensors &t) const {
    return fuser_sdpa_forward(t.query.view(), t.key.view(), t.value.view(),
                              t.out.view(), t.logsumexp.view(), scale, causal,
                              dropoutProbability, seed, batchOffset,
                              headOffset);
  }
  FuserStatus backward(const AttentionTensors &t) const {
    return fuser_sdpa_backward(
        t.query.view(), t.key.view(), t.value.view(), t.out.view(),
        t.gradOut.view(), t.logsumexp.view(), t.gradQuery.view(),
        t.gradKey.view(), t.gradValue.view(), scale, causal,
        dropoutProbability, seed, batchOffset, headOffset);
  }
};

#endif // FUSER_RUNTIME_TEST_ATTENTIONTESTSUPPORT_H
