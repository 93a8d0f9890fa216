//===- AttentionTest.cpp - sdpa on the host backend -----------------------===//
//
// fuser_sdpa_forward and fuser_sdpa_backward on the host backend against
// the naive double-precision reference: causal or not, fewer or more
// queries than keys, strided views, every floating-point element type,
// the dropout mask of DropoutMask.h (also drawn the same by a rank that
// holds a piece of the batch and heads), gradients also against finite
// differences of the forward call, and the arguments refused.
//
//===----------------------------------------------------------------------===//

#include "../DropoutMask.h"
#include "AttentionReference.h"
#include "AttentionTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using fuser::runtime::DropoutRow;

/// The host backend's mask for a call's seed and offsets.
KeepFunction hostMask(const AttentionCall &call) {
  return [call](int64_t b, int64_t h, int64_t i, int64_t j) {
    return DropoutRow(call.seed, call.batchOffset + b, call.headOffset + h, i)
        .keeps(j, call.dropoutProbability);
  };
}

AttentionReference reference(const AttentionTensors &t,
                             const AttentionCall &call, bool gradients) {
  return AttentionReference(
      t.query, t.key, t.value, gradients ? &t.gradOut : nullptr, call.scale,
      call.causal, call.dropoutProbability,
      call.dropoutProbability > 0 ? hostMask(call) : KeepFunction());
}

std::string describeCase(const AttentionShape &s, const AttentionCall &call,
                         bool strided) {
  return "sq " + std::to_string(s.queries) + ", skv " +
         std::to_string(s.keys) + (call.causal ? ", causal" : "") +
         (strided ? ", strided" : "") +
         (call.dropoutProbability > 0
              ? ", dropout " + std::to_string(call.dropoutProbability)
              : "");
}

TEST(Sdpa, ForwardMatchesTheReference) {
  for (auto [queries, keys] : {std::pair{6, 6}, {5, 9}, {9, 4}})
    for (bool causal : {false, true})
      for (bool strided : {false, true}) {
        AttentionShape shape{2, 3, queries, keys, 8};
        AttentionTensors t(shape, FUSER_F32, strided);
        AttentionCall call;
        call.causal = causal;
        SCOPED_TRACE(describeCase(shape, call, strided));
        ASSERT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
        AttentionReference expected = reference(t, call, false);
        EXPECT_LT(relativeError(t.out, expected.out), 1e-6);
        EXPECT_LT(relativeError(t.logsumexp, expected.logsumexp), 1e-6);
      }
}

TEST(Sdpa, ForwardInEveryFloatingPointType) {
  AttentionShape shape{1, 2, 7, 5, 16};
  for (auto [dtype, tolerance] : {std::pair{FUSER_F64, 1e-13},
                                  {FUSER_BF16, 1e-2},
                                  {FUSER_F16, 2e-3}}) {
    SCOPED_TRACE(fuser_dtype_name(dtype));
    AttentionTensors t(shape, dtype, /*strided=*/true);
    AttentionCall call;
    call.causal = true;
    ASSERT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
    AttentionReference expected = reference(t, call, false);
    // The reference rounds nothing: the output's rounding is the error.
    EXPECT_LT(relativeError(t.out, expected.out), tolerance);
    EXPECT_LT(relativeError(t.logsumexp, expected.logsumexp), 1e-6);
  }
}

TEST(Sdpa, DropoutDrawsTheCompilersMask) {
  AttentionShape shape{2, 2, 24, 24, 8};
  AttentionTensors t(shape, FUSER_F32, /*strided=*/false);
  AttentionCall call;
  call.dropoutProbability = 0.3;
  call.seed = 1234;
  call.batchOffset = 2;
  call.headOffset = 4;
  ASSERT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
  AttentionReference expected = reference(t, call, false);
  EXPECT_LT(relativeError(t.out, expected.out), 1e-6);
  // Without dropout, softmax rows: logsumexp is drawn before it.
  AttentionCall plain = call;
  plain.dropoutProbability = 0;
  EXPECT_LT(relativeError(t.logsumexp, reference(t, plain, false).logsumexp),
            1e-6);

  // About 1 - p of the draws survive.
  int64_t kept = 0, draws = 0;
  KeepFunction keeps = hostMask(call);
  for (int64_t b = 0; b < shape.batch; ++b)
    for (int64_t h = 0; h < shape.heads; ++h)
      for (int64_t i = 0; i < shape.queries; ++i)
        for (int64_t j = 0; j < shape.keys; ++j, ++draws)
          kept += keeps(b, h, i, j);
  EXPECT_NEAR(static_cast<double>(kept) / draws, 0.7, 0.03);
}

TEST(Sdpa, APieceDropsWhatTheWholeDrops) {
  // The whole [2, 4, ...] problem, and the piece of batch entry 1, heads
  // 2 and 3, that a rank of a sharded run holds.
  AttentionShape whole{2, 4, 8, 8, 4}, piece{1, 2, 8, 8, 4};
  AttentionTensors all(whole, FUSER_F64, false), part(piece, FUSER_F64, false);
  for (const auto &index : allIndices(part.query.sizes)) {
    std::vector<int64_t> global = {index[0] + 1, index[1] + 2, index[2],
                                   index[3]};
    part.query.set(index, all.query.get(global));
    part.key.set(index, all.key.get(global));
    part.value.set(index, all.value.get(global));
  }
  AttentionCall call;
  call.dropoutProbability = 0.5;
  call.seed = 99;
  ASSERT_EQ(call.forward(all), FUSER_OK) << fuser_last_error();
  call.batchOffset = 1;
  call.headOffset = 2;
  ASSERT_EQ(call.forward(part), FUSER_OK) << fuser_last_error();
  for (const auto &index : allIndices(part.out.sizes))
    ASSERT_EQ(part.out.get(index), all.out.get({index[0] + 1, index[1] + 2,
                                                index[2], index[3]}));
}

TEST(Sdpa, BackwardMatchesTheReference) {
  for (auto [queries, keys] : {std::pair{6, 6}, {5, 9}, {9, 4}})
    for (bool causal : {false, true})
      for (double dropout : {0.0, 0.3}) {
        bool strided = causal;
        AttentionShape shape{2, 2, queries, keys, 8};
        AttentionTensors t(shape, FUSER_F32, strided);
        AttentionCall call;
        call.causal = causal;
        call.dropoutProbability = dropout;
        call.seed = 5;
        SCOPED_TRACE(describeCase(shape, call, strided));
        ASSERT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
        ASSERT_EQ(call.backward(t), FUSER_OK) << fuser_last_error();
        AttentionReference expected = reference(t, call, true);
        EXPECT_LT(relativeError(t.gradQuery, expected.gradQuery), 1e-5);
        EXPECT_LT(relativeError(t.gradKey, expected.gradKey), 1e-5);
        EXPECT_LT(relativeError(t.gradValue, expected.gradValue), 1e-5);
      }
}

TEST(Sdpa, GradientsMatchFiniteDifferences) {
  // f64: loss = sum(out * gradOut); central differences of the forward
  // call against the backward call, element by element. The backward pass
  // reads logsumexp as the forward call stored it, in f32: its gradients
  // are as close as that rounding lets them be.
  AttentionShape shape{1, 2, 5, 4, 3};
  AttentionTensors t(shape, FUSER_F64, /*strided=*/true);
  AttentionCall call;
  call.causal = true;
  call.dropoutProbability = 0.25;
  call.seed = 77;
  ASSERT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(call.backward(t), FUSER_OK) << fuser_last_error();
  auto loss = [&] {
    EXPECT_EQ(call.forward(t), FUSER_OK) << fuser_last_error();
    double sum = 0;
    for (const auto &index : allIndices(t.out.sizes))
      sum += t.out.get(index) * t.gradOut.get(index);
    return sum;
  };
  constexpr double kStep = 1e-5;
  for (auto [operand, gradient] : {std::pair{&t.query, &t.gradQuery},
                                   {&t.key, &t.gradKey},
                                   {&t.value, &t.gradValue}})
    for (const auto &index : allIndices(operand->sizes)) {
      double original = operand->get(index);
      operand->set(index, original + kStep);
      double above = loss();
      operand->set(index, original - kStep);
      double below = loss();
      operand->set(index, original);
      EXPECT_NEAR(gradient->get(index), (above - below) / (2 * kStep), 1e-6);
    }
}

/// Expects the call to fail with a message containing `words`.
void expectRefused(FuserStatus status, const std::string &words) {
  ASSERT_EQ(status, FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error()).find(words), std::string::npos)
      << fuser_last_error();
}

TEST(Sdpa, BadArgumentsAreRefused) {
  AttentionShape shape{1, 2, 4, 4, 8};
  AttentionTensors t(shape, FUSER_F32, false);
  AttentionCall call;

  // Keys of another depth.
  HostTensor narrowKey({1, 2, 4, 4}, FUSER_F32);
  expectRefused(fuser_sdpa_forward(t.query.view(), narrowKey.view(),
                                   t.value.view(), t.out.view(),
                                   t.logsumexp.view(), 1, 0, 0, 0, 0, 0),
                "sdpa_forward: query f32[1, 2, 4, 8], key f32[1, 2, 4, 4], "
                "value f32[1, 2, 4, 8] and out f32[1, 2, 4, 8] do not fit");
  // A matrix is not [b, h, s, d].
  HostTensor matrix({4, 8}, FUSER_F32);
  expectRefused(fuser_sdpa_forward(matrix.view(), t.key.view(), t.value.view(),
                                   t.out.view(), t.logsumexp.view(), 1, 0, 0,
                                   0, 0, 0),
                "do not fit");
  HostTensor halfValue({1, 2, 4, 8}, FUSER_BF16);
  expectRefused(fuser_sdpa_forward(t.query.view(), t.key.view(),
                                   halfValue.view(), t.out.view(),
                                   t.logsumexp.view(), 1, 0, 0, 0, 0, 0),
                "differ in element type");
  HostTensor integers({1, 2, 4, 8}, FUSER_I32);
  expectRefused(fuser_sdpa_forward(integers.view(), integers.view(),
                                   integers.view(), integers.view(),
                                   t.logsumexp.view(), 1, 0, 0, 0, 0, 0),
                "attention needs floating-point elements, not i32");
  HostTensor doubleStatistics({1, 2, 4}, FUSER_F64);
  expectRefused(fuser_sdpa_forward(t.query.view(), t.key.view(),
                                   t.value.view(), t.out.view(),
                                   doubleStatistics.view(), 1, 0, 0, 0, 0, 0),
                "logsumexp f64[1, 2, 4] is not f32[1, 2, 4]");
  call.dropoutProbability = 1;
  expectRefused(call.forward(t), "dropout probability 1.000000 is not in "
                                 "[0, 1)");
  call.dropoutProbability = -0.5;
  expectRefused(call.backward(t), "sdpa_backward: dropout probability");
  call.dropoutProbability = 0;
  call.scale = INFINITY;
  expectRefused(call.forward(t), "scale inf is not finite");

  HostTensor shortGradient({1, 2, 3, 8}, FUSER_F32);
  expectRefused(fuser_sdpa_backward(t.query.view(), t.key.view(),
                                    t.value.view(), t.out.view(),
                                    t.gradOut.view(), t.logsumexp.view(),
                                    shortGradient.view(), t.gradKey.view(),
                                    t.gradValue.view(), 1, 0, 0, 0, 0, 0),
                "gradient f32[1, 2, 3, 8] does not have the shape of its "
                "operand f32[1, 2, 4, 8]");
}

} // namespace
