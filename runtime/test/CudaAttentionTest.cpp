//===- CudaAttentionTest.cpp - cuDNN's fused attention on GPUs ------------===//
//
// The CUDA backend's sdpa (cuDNN) in bf16 against the host backend on the
// same operands: outputs, logsumexp and gradients, causal or not, head
// dims 64 and 128, strided views. Dropout draws cuDNN's own mask, which
// the test reads back through an identity value (out = the dropped
// probabilities, so its zeros are the dropped ones) and checks against
// the reference with that mask, forward and backward, with the fraction
// kept, the same mask for the same arguments and another for another
// seed or piece. Skipped where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "AttentionReference.h"
#include "AttentionTestSupport.h"
#include "CudaTestSupport.h"

#include <cmath>
#include <memory>
#include <string>

namespace {

using Bits = uint16_t;

/// Device copies of a problem's tensors (same layouts and contents).
struct DeviceAttention {
  std::vector<std::unique_ptr<DeviceTensor<Bits>>> tensors;
  std::unique_ptr<DeviceTensor<float>> logsumexp;

  explicit DeviceAttention(const AttentionTensors &t) {
    for (const HostTensor *tensor :
         {&t.query, &t.key, &t.value, &t.out, &t.gradOut, &t.gradQuery,
          &t.gradKey, &t.gradValue}) {
      tensors.push_back(std::make_unique<DeviceTensor<Bits>>(
          tensor->sizes, tensor->dtype(), tensor->strides, tensor->storage));
      tensors.back()->upload(tensor->elements<Bits>());
    }
    logsumexp = std::make_unique<DeviceTensor<float>>(
        t.logsumexp.sizes, FUSER_F32, t.logsumexp.strides,
        t.logsumexp.storage);
  }
  const FuserBuffer *view(size_t i) const { return tensors[i]->view(); }

  FuserStatus forward(const AttentionCall &call) const {
    return fuser_sdpa_forward(view(0), view(1), view(2), view(3),
                              logsumexp->view(), call.scale, call.causal,
                              call.dropoutProbability, call.seed,
                              call.batchOffset, call.headOffset);
  }
  FuserStatus backward(const AttentionCall &call) const {
    return fuser_sdpa_backward(view(0), view(1), view(2), view(3), view(4),
                               logsumexp->view(), view(5), view(6), view(7),
                               call.scale, call.causal,
                               call.dropoutProbability, call.seed,
                               call.batchOffset, call.headOffset);
  }
  /// Copies device tensor `i` into the host tensor.
  void download(size_t i, HostTensor &target) const {
    target.assign(tensors[i]->download());
  }
  void downloadStatistics(HostTensor &target) const {
    target.assign(logsumexp->download());
  }
};

/// The largest difference of two tensors, relative to the largest
/// magnitude of the second.
double compare(const HostTensor &actual, const HostTensor &expected) {
  std::vector<double> values;
  for (const auto &index : allIndices(expected.sizes))
    values.push_back(expected.get(index));
  return relativeError(actual, values);
}

class CudaAttention : public CudaTest {};

TEST_F(CudaAttention, SdpaMatchesTheHostBackend) {
  for (int64_t depth : {64, 128})
    for (bool causal : {false, true}) {
      bool strided = depth == 128;
      AttentionShape shape{2, 3, 128, 128, depth};
      SCOPED_TRACE("d " + std::to_string(depth) + (causal ? ", causal" : "") +
                   (strided ? ", strided" : ""));
      AttentionTensors host(shape, FUSER_BF16, strided), device(shape,
                                                                FUSER_BF16,
                                                                strided);
      AttentionCall call;
      call.scale = 1 / std::sqrt(static_cast<double>(depth));
      call.causal = causal;
      DeviceAttention gpu(host);
      ASSERT_EQ(gpu.forward(call), FUSER_OK) << fuser_last_error();
      ASSERT_EQ(gpu.backward(call), FUSER_OK) << fuser_last_error();
      ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
      gpu.download(3, device.out);
      gpu.downloadStatistics(device.logsumexp);
      gpu.download(5, device.gradQuery);
      gpu.download(6, device.gradKey);
      gpu.download(7, device.gradValue);

      ASSERT_EQ(fuser_use_backend(FUSER_BACKEND_HOST), FUSER_OK);
      FuserStatus forward = call.forward(host),
                  backward = call.backward(host);
      ASSERT_EQ(fuser_use_backend(FUSER_BACKEND_CUDA), FUSER_OK);
      ASSERT_EQ(forward, FUSER_OK);
      ASSERT_EQ(backward, FUSER_OK);
      EXPECT_LT(compare(device.out, host.out), 2e-2);
      EXPECT_LT(compare(device.logsumexp, host.logsumexp), 1e-4);
      EXPECT_LT(compare(device.gradQuery, host.gradQuery), 3e-2);
      EXPECT_LT(compare(device.gradKey, host.gradKey), 3e-2);
      EXPECT_LT(compare(device.gradValue, host.gradValue), 3e-2);
    }
}

TEST_F(CudaAttention, SdpaAllocatesNothingOnceWarm) {
  AttentionShape shape{1, 2, 128, 128, 64};
  AttentionTensors host(shape, FUSER_BF16, false);
  DeviceAttention gpu(host);
  AttentionCall call;
  call.dropoutProbability = 0.1;
  call.seed = 3;
  ASSERT_EQ(gpu.forward(call), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(gpu.backward(call), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  int64_t allocations = fuser_device_allocation_count();
  for (int repeat = 0; repeat < 3; ++repeat) {
    ASSERT_EQ(gpu.forward(call), FUSER_OK) << fuser_last_error();
    ASSERT_EQ(gpu.backward(call), FUSER_OK) << fuser_last_error();
  }
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(fuser_device_allocation_count(), allocations);
}

TEST_F(CudaAttention, SdpaDropoutMatchesTheReferenceWithItsMask) {
  // value = identity per (b, h): out[b, h, i, j] = the dropped P_ij.
  AttentionShape shape{2, 3, 64, 64, 64};
  AttentionTensors t(shape, FUSER_BF16, false);
  for (const auto &index : allIndices(t.value.sizes))
    t.value.set(index, index[2] == index[3] ? 1 : 0);
  AttentionCall call;
  call.scale = 0.125;
  call.dropoutProbability = 0.3;
  call.seed = 42;
  DeviceAttention gpu(t);
  ASSERT_EQ(gpu.forward(call), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(gpu.backward(call), FUSER_OK) << fuser_last_error();
  gpu.download(3, t.out);
  gpu.download(5, t.gradQuery);
  gpu.download(6, t.gradKey);
  gpu.download(7, t.gradValue);

  int64_t kept = 0;
  for (const auto &index : allIndices(t.out.sizes))
    kept += t.out.get(index) != 0;
  EXPECT_NEAR(static_cast<double>(kept) / (2 * 3 * 64 * 64), 0.7, 0.02);
  KeepFunction keeps = [&](int64_t b, int64_t h, int64_t i, int64_t j) {
    return t.out.get({b, h, i, j}) != 0;
  };
  AttentionReference expected(t.query, t.key, t.value, &t.gradOut, call.scale,
                              false, call.dropoutProbability, keeps);
  EXPECT_LT(relativeError(t.out, expected.out), 2e-2);
  EXPECT_LT(relativeError(t.gradQuery, expected.gradQuery), 3e-2);
  EXPECT_LT(relativeError(t.gradKey, expected.gradKey), 3e-2);
  EXPECT_LT(relativeError(t.gradValue, expected.gradValue), 3e-2);

  // The same arguments draw the same mask; another seed or piece another.
  AttentionTensors again(shape, FUSER_BF16, false);
  auto maskOf = [&](const AttentionCall &other) {
    EXPECT_EQ(gpu.forward(other), FUSER_OK) << fuser_last_error();
    gpu.download(3, again.out);
    std::vector<bool> mask;
    for (const auto &index : allIndices(again.out.sizes))
      mask.push_back(again.out.get(index) != 0);
    return mask;
  };
  std::vector<bool> first = maskOf(call);
  EXPECT_EQ(maskOf(call), first);
  AttentionCall otherSeed = call, otherPiece = call;
  otherSeed.seed = 43;
  otherPiece.headOffset = 3;
  EXPECT_NE(maskOf(otherSeed), first);
  EXPECT_NE(maskOf(otherPiece), first);
}

TEST_F(CudaAttention, SdpaRefusesF32) {
  AttentionShape shape{1, 1, 8, 8, 8};
  AttentionTensors t(shape, FUSER_F32, false);
  DeviceTensor<float> query(t.query.sizes, FUSER_F32),
      key(t.key.sizes, FUSER_F32), value(t.value.sizes, FUSER_F32),
      out(t.out.sizes, FUSER_F32), logsumexp(t.logsumexp.sizes, FUSER_F32);
  ASSERT_EQ(fuser_sdpa_forward(query.view(), key.view(), value.view(),
                               out.view(), logsumexp.view(), 1, 0, 0, 0, 0, 0),
            FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error())
                .find("the CUDA backend's fused attention (cuDNN) takes f16 "
                      "and bf16 operands, not f32"),
            std::string::npos)
      << fuser_last_error();
}

} // namespace
