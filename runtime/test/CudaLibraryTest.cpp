//===- CudaLibraryTest.cpp - cuBLASLt products and reduce_blocks on GPUs --===//
//
// Each case runs the same call on the host backend (host tensors) and on
// the CUDA backend (device tensors of the same layouts and contents) and
// compares the outputs' storage, gaps included. Operand values are
// multiples of 1/4 in [-1, 1], so that every f32 partial sum is exact and
// both backends must agree to the bit. Skipped where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"
#include "LibraryTestSupport.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>

namespace {

using Views = std::vector<const FuserBuffer *>;
using Call = std::function<FuserStatus(const Views &)>;

/// Device copies of host tensors (same layouts, storage and contents), one
/// element type: T is its storage (uint16_t for 16-bit floats).
template <typename T> struct Mirrors {
  std::vector<HostTensor *> host;
  std::vector<std::unique_ptr<DeviceTensor<T>>> device;

  explicit Mirrors(std::vector<HostTensor *> tensors) : host(tensors) {
    for (HostTensor *tensor : tensors) {
      device.push_back(std::make_unique<DeviceTensor<T>>(
          tensor->sizes, tensor->dtype(), tensor->strides, tensor->storage));
      if (tensor->storage)
        device.back()->upload(tensor->elements<T>());
    }
  }
  Views hostViews() const {
    Views views;
    for (HostTensor *tensor : host)
      views.push_back(tensor->view());
    return views;
  }
  Views deviceViews() const {
    Views views;
    for (const auto &tensor : device)
      views.push_back(tensor->view());
    return views;
  }
};

/// Runs `call` on both backends; expects tensor `out` (an index into
/// `tensors`) to come out the same, within `tolerance` relative to the
/// largest magnitude (0: bit for bit).
template <typename T>
void expectBackendsAgree(const std::vector<HostTensor *> &tensors, size_t out,
                         const Call &call, double tolerance = 0) {
  Mirrors<T> mirrors(tensors);
  ASSERT_EQ(fuser_use_backend(FUSER_BACKEND_HOST), FUSER_OK);
  FuserStatus hostStatus = call(mirrors.hostViews());
  ASSERT_EQ(fuser_use_backend(FUSER_BACKEND_CUDA), FUSER_OK);
  ASSERT_EQ(hostStatus, FUSER_OK) << "host: " << fuser_last_error();
  ASSERT_EQ(call(mirrors.deviceViews()), FUSER_OK) << fuser_last_error();
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  std::vector<T> device = mirrors.device[out]->download();
  std::vector<T> host = tensors[out]->elements<T>();
  ASSERT_EQ(device.size(), host.size());
  FuserDType dtype = tensors[out]->dtype();
  double scale = 0;
  for (const T &value : host)
    scale = std::max(scale, std::fabs(fuser_load_element(&value, dtype)));
  int64_t mismatches = 0;
  for (size_t i = 0; i < host.size(); ++i) {
    double expected = fuser_load_element(&host[i], dtype),
           actual = fuser_load_element(&device[i], dtype);
    bool same = tolerance == 0
                    ? std::memcmp(&host[i], &device[i], sizeof(T)) == 0
                    : std::fabs(expected - actual) <= tolerance * scale;
    if (!same && ++mismatches <= 5)
      ADD_FAILURE() << "storage element " << i << ": " << actual
                    << " on the GPU, " << expected << " on the host";
  }
  EXPECT_EQ(mismatches, 0) << "of " << host.size() << " elements";
}

/// With `accumulate`, the product is added to out; `activation` applies
/// last.
Call matmulCall(bool accumulate = false,
                FuserActivation activation = FUSER_ACTIVATION_NONE) {
  return [=](const Views &views) {
    return fuser_matmul(views[0], views[1], views[2], accumulate, activation);
  };
}

/// views: input, weight, out[, bias].
Call linearCall(bool accumulate = false,
                FuserActivation activation = FUSER_ACTIVATION_NONE) {
  return [=](const Views &views) {
    return fuser_linear(views[0], views[1],
                        views.size() > 3 ? views[3] : nullptr, views[2],
                        accumulate, activation);
  };
}

using CudaLibrary = CudaTest;

TEST_F(CudaLibrary, MatmulOfTransposedAndBatchedBf16Views) {
  // [2, 96, 72] x [2, 72, 80]; lhs is the transpose of its storage, rhs has
  // padded rows: one strided-batched call. Out row-major (D = out^T), then
  // stored transposed (D = out).
  for (bool transposedOut : {false, true}) {
    HostTensor lhs({2, 96, 72}, FUSER_BF16, {72 * 96, 1, 96});
    HostTensor rhs({2, 72, 80}, FUSER_BF16, {72 * 88, 88, 1}, 2 * 72 * 88);
    HostTensor out({2, 96, 80}, FUSER_BF16,
                   transposedOut ? std::vector<int64_t>{96 * 80, 1, 96}
                                 : std::vector<int64_t>{});
    lhs.fillQuarters(1);
    rhs.fillQuarters(2);
    SCOPED_TRACE(transposedOut ? "out transposed" : "out row-major");
    expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall());
  }
  // Batch dims that do not collapse ([2, 3] stored as [3, 2]): a loop over
  // the outer one, each call a strided batch of 3.
  HostTensor lhs({2, 3, 32, 48}, FUSER_BF16, {32 * 48, 2 * 32 * 48, 48, 1});
  HostTensor rhs({2, 3, 48, 40}, FUSER_BF16, {40, 2 * 40, 6 * 40, 1});
  HostTensor out({2, 3, 32, 40}, FUSER_BF16);
  lhs.fillQuarters(3);
  rhs.fillQuarters(4);
  expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall());
}

TEST_F(CudaLibrary, MatmulWithASharedRhs) {
  // rhs broadcast over the batch (stride 0): one product of 3 * 64 rows.
  HostTensor lhs({3, 64, 48}, FUSER_BF16),
      rhs({3, 48, 40}, FUSER_BF16, {0, 40, 1}, 48 * 40),
      out({3, 64, 40}, FUSER_BF16);
  lhs.fillQuarters(31);
  rhs.fillQuarters(32);
  expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall());
  // The same product with rhs a matrix of rank 2.
  HostTensor matrix({48, 40}, FUSER_BF16);
  matrix.fillQuarters(32);
  expectBackendsAgree<uint16_t>({&lhs, &matrix, &out}, 2, matmulCall());
}

TEST_F(CudaLibrary, MatmulInF16AndF32) {
  HostTensor lhs16({64, 200}, FUSER_F16), rhs16({200, 24}, FUSER_F16,
                                                 {1, 200}),
      out16({64, 24}, FUSER_F16);
  lhs16.fillQuarters(5);
  rhs16.fillQuarters(6);
  expectBackendsAgree<uint16_t>({&lhs16, &rhs16, &out16}, 2, matmulCall());

  HostTensor lhs({3, 50, 300}, FUSER_F32), rhs({3, 300, 70}, FUSER_F32),
      out({3, 50, 70}, FUSER_F32);
  lhs.fillQuarters(7);
  rhs.fillQuarters(8);
  expectBackendsAgree<float>({&lhs, &rhs, &out}, 2, matmulCall());
}

TEST_F(CudaLibrary, Float32ProductsDoNotRoundToTf32) {
  // Values with all 24 bits of f32: TF32 (10 bits) would be off by about
  // 1e-3 of the result, f32 accumulation by 1e-6.
  HostTensor lhs({64, 256}, FUSER_F32), rhs({256, 64}, FUSER_F32),
      out({64, 64}, FUSER_F32);
  std::mt19937 generator(9);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (HostTensor *tensor : {&lhs, &rhs})
    for (const auto &index : allIndices(tensor->sizes))
      tensor->set(index, uniform(generator));
  expectBackendsAgree<float>({&lhs, &rhs, &out}, 2, matmulCall(),
                             /*tolerance=*/1e-5);
}

TEST_F(CudaLibrary, LinearWithBiasThroughTheEpilogue) {
  // input [3, 40, 72] (one product of 120 rows, or a view of [3, 48, 72]
  // looped over), weight [80, 72] with padded rows or stored transposed,
  // bias [80].
  for (FuserDType dtype : {FUSER_BF16, FUSER_F16}) {
    for (bool contiguous : {true, false}) {
      for (bool weightTransposed : {false, true}) {
        HostTensor input({3, 40, 72}, dtype,
                         contiguous ? std::vector<int64_t>{}
                                    : std::vector<int64_t>{48 * 72, 72, 1},
                         contiguous ? 0 : 3 * 48 * 72);
        HostTensor weight({80, 72}, dtype,
                          weightTransposed ? std::vector<int64_t>{1, 80}
                                           : std::vector<int64_t>{76, 1},
                          weightTransposed ? 0 : 80 * 76);
        HostTensor bias({80}, dtype), out({3, 40, 80}, dtype);
        input.fillQuarters(10);
        weight.fillQuarters(11);
        bias.fillQuarters(12);
        SCOPED_TRACE(std::string(dtype == FUSER_BF16 ? "bf16" : "f16") +
                     (contiguous ? ", contiguous" : ", looped") +
                     (weightTransposed ? ", weight transposed" : ""));
        expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 2,
                                      linearCall());
      }
    }
  }
  // Biases the epilogue cannot add, written to out before the product is
  // added: out stored transposed, or a bias of stride 2.
  for (bool outTransposed : {true, false}) {
    HostTensor input({24, 72}, FUSER_BF16), weight({40, 72}, FUSER_BF16);
    HostTensor bias({40}, FUSER_BF16, outTransposed ? std::vector<int64_t>{}
                                                    : std::vector<int64_t>{2},
                    outTransposed ? 0 : 80);
    HostTensor out({24, 40}, FUSER_BF16,
                   outTransposed ? std::vector<int64_t>{1, 24}
                                 : std::vector<int64_t>{});
    input.fillQuarters(33);
    weight.fillQuarters(34);
    bias.fillQuarters(35);
    SCOPED_TRACE(outTransposed ? "out transposed" : "bias of stride 2");
    expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 2,
                                  linearCall());
  }
  // f32 without a bias.
  HostTensor input({33, 72}, FUSER_F32), weight({17, 72}, FUSER_F32),
      out({33, 17}, FUSER_F32);
  input.fillQuarters(13);
  weight.fillQuarters(14);
  expectBackendsAgree<float>({&input, &weight, &out}, 2, linearCall());
}

TEST_F(CudaLibrary, LinearToOneValuePerRow) {
  // A weight of rank 1 and a scalar bias: n = 1.
  HostTensor input({4, 30, 72}, FUSER_BF16), weight({72}, FUSER_BF16),
      bias({}, FUSER_BF16), out({4, 30}, FUSER_BF16);
  input.fillQuarters(15);
  weight.fillQuarters(16);
  bias.set({}, 0.75);
  expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 2,
                                linearCall());
}

TEST_F(CudaLibrary, EmptySumsGiveTheBias) {
  // k = 0: out is the bias (or zero), as on the host.
  HostTensor input({4, 0}, FUSER_BF16), weight({8, 0}, FUSER_BF16),
      bias({8}, FUSER_BF16), out({4, 8}, FUSER_BF16);
  bias.fillQuarters(17);
  out.fillQuarters(18);
  expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 2,
                                linearCall());
  HostTensor lhs({3, 0}, FUSER_F32), rhs({0, 5}, FUSER_F32),
      product({3, 5}, FUSER_F32);
  product.fillQuarters(19);
  expectBackendsAgree<float>({&lhs, &rhs, &product}, 2, matmulCall());
}

TEST_F(CudaLibrary, ProductsAccumulateIntoTheOutput) {
  // out += lhs x rhs with out row-major (beta = 1 on D = out^T) and stored
  // transposed; a linear whose bias cannot go through the epilogue (out
  // transposed: the bias is added to out first); and k = 0 (out += bias).
  for (bool transposedOut : {false, true}) {
    SCOPED_TRACE(transposedOut ? "out transposed" : "out row-major");
    std::vector<int64_t> outStrides =
        transposedOut ? std::vector<int64_t>{1, 64} : std::vector<int64_t>{};
    HostTensor lhs({64, 96}, FUSER_BF16), rhs({96, 48}, FUSER_BF16),
        out({64, 48}, FUSER_BF16, outStrides);
    lhs.fillQuarters(20);
    rhs.fillQuarters(21);
    out.fillQuarters(22);
    expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall(true));

    HostTensor input({64, 96}, FUSER_BF16), weight({48, 96}, FUSER_BF16),
        bias({48}, FUSER_BF16), sums({64, 48}, FUSER_BF16, outStrides);
    input.fillQuarters(23);
    weight.fillQuarters(24);
    bias.fillQuarters(25);
    sums.fillQuarters(26);
    expectBackendsAgree<uint16_t>({&input, &weight, &sums, &bias}, 2,
                                  linearCall(true));
  }
  HostTensor input({4, 0}, FUSER_BF16), weight({8, 0}, FUSER_BF16),
      bias({8}, FUSER_BF16), out({4, 8}, FUSER_BF16);
  bias.fillQuarters(27);
  out.fillQuarters(28);
  expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 0,
                                linearCall(true));
}

TEST_F(CudaLibrary, TimingTheCandidatesLeavesTheOutputAlone) {
  // A problem large enough for cuBLASLt to offer several algorithms: its
  // first call, which accumulates, times them into a scratch output, so
  // what the product accumulates into is added to once, with tuning on and
  // off (each
  // setting plans a problem of its own shape). At this size cuBLASLt's
  // algorithms may split k and add the parts in bf16, so the sums agree
  // within a few bf16 steps; a product added twice would not.
  for (const char *tuning : {"on", "off"}) {
    SCOPED_TRACE(std::string("FUSER_MATMUL_TUNING=") + tuning);
    ASSERT_EQ(setenv("FUSER_MATMUL_TUNING", tuning, 1), 0);
    int64_t rows = tuning[1] == 'n' ? 512 : 640;
    HostTensor lhs({rows, 512}, FUSER_BF16), rhs({512, 384}, FUSER_BF16),
        out({rows, 384}, FUSER_BF16);
    lhs.fillQuarters(40);
    rhs.fillQuarters(41);
    out.fillQuarters(42);
    expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall(true),
                                  /*tolerance=*/1.0 / 64);
  }
  unsetenv("FUSER_MATMUL_TUNING");
}

TEST_F(CudaLibrary, AProductThatOverwritesItsOutputIsTunedInPlace) {
  // Its candidates write the call's own output: the first call's result is
  // still the product, and timing them allocates no device memory beside
  // the program's buffers (each shape is a problem of its own, tuned at
  // its first call).
  ASSERT_EQ(setenv("FUSER_MATMUL_TUNING", "on", 1), 0);
  HostTensor lhs({1536, 512}, FUSER_BF16), rhs({512, 384}, FUSER_BF16),
      out({1536, 384}, FUSER_BF16);
  lhs.fillQuarters(43);
  rhs.fillQuarters(44);
  out.fillQuarters(45);
  expectBackendsAgree<uint16_t>({&lhs, &rhs, &out}, 2, matmulCall(),
                                /*tolerance=*/1.0 / 64);
  {
    // Buffers as large as the peak so far beside the operands: the peak
    // is what lives now, and a scratch output would raise it.
    DeviceTensor<float> beside({fuser_device_memory_peak_bytes() / 4 + 1},
                               FUSER_F32);
    DeviceTensor<uint16_t> deviceLhs({1792, 512}, FUSER_BF16),
        deviceRhs({512, 384}, FUSER_BF16), deviceOut({1792, 384}, FUSER_BF16);
    int64_t peakBefore = fuser_device_memory_peak_bytes();
    ASSERT_EQ(fuser_matmul(deviceLhs.view(), deviceRhs.view(),
                           deviceOut.view(), 0, FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
    ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
    EXPECT_EQ(fuser_device_memory_peak_bytes(), peakBefore);
  }
  unsetenv("FUSER_MATMUL_TUNING");
}

TEST_F(CudaLibrary, AnUnknownTuningSettingIsReported) {
  ASSERT_EQ(setenv("FUSER_MATMUL_TUNING", "fastest", 1), 0);
  DeviceTensor<uint16_t> lhs({768, 256}, FUSER_BF16),
      rhs({256, 128}, FUSER_BF16), out({768, 128}, FUSER_BF16);
  FuserStatus status = fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                                    FUSER_ACTIVATION_NONE);
  unsetenv("FUSER_MATMUL_TUNING");
  ASSERT_EQ(status, FUSER_FAILED);
  EXPECT_NE(std::string(fuser_last_error())
                .find("FUSER_MATMUL_TUNING is 'fastest'; it takes 'on'"),
            std::string::npos)
      << fuser_last_error();
}

TEST_F(CudaLibrary, ActivationsInTheEpilogue) {
  // cuBLASLt's GELU and RELU epilogues against the host's formulas: gelu
  // rounds differently from the host's tanh (a few ulps of bf16), relu
  // exactly. Out row-major (bias in the epilogue: GELU_BIAS) and
  // transposed (bias written first, the activation applied to the sum);
  // accumulating; f64 (a kernel after the product); k = 0.
  for (FuserActivation activation :
       {FUSER_ACTIVATION_GELU_TANH, FUSER_ACTIVATION_RELU}) {
    double tolerance = activation == FUSER_ACTIVATION_RELU ? 0 : 1e-2;
    for (bool transposedOut : {false, true}) {
      SCOPED_TRACE(
          std::string(activation == FUSER_ACTIVATION_RELU ? "relu" : "gelu") +
          (transposedOut ? ", out transposed" : ", out row-major"));
      std::vector<int64_t> outStrides =
          transposedOut ? std::vector<int64_t>{1, 64} : std::vector<int64_t>{};
      HostTensor input({64, 96}, FUSER_BF16), weight({48, 96}, FUSER_BF16),
          bias({48}, FUSER_BF16), out({64, 48}, FUSER_BF16, outStrides);
      input.fillQuarters(40);
      weight.fillQuarters(41);
      bias.fillQuarters(42);
      expectBackendsAgree<uint16_t>({&input, &weight, &out, &bias}, 2,
                                    linearCall(false, activation), tolerance);
      out.fillQuarters(43);
      expectBackendsAgree<uint16_t>({&input, &weight, &out}, 2,
                                    linearCall(true, activation), tolerance);
    }
    HostTensor lhs({32, 40}, FUSER_F64), rhs({40, 24}, FUSER_F64),
        product({32, 24}, FUSER_F64);
    lhs.fillQuarters(44);
    rhs.fillQuarters(45);
    expectBackendsAgree<double>({&lhs, &rhs, &product}, 2,
                                matmulCall(false, activation), 1e-12);
    HostTensor empty({4, 0}, FUSER_F32), emptyWeight({8, 0}, FUSER_F32),
        bias({8}, FUSER_F32), sums({4, 8}, FUSER_F32);
    bias.fillQuarters(46);
    expectBackendsAgree<float>({&empty, &emptyWeight, &sums, &bias}, 2,
                               linearCall(false, activation), 1e-6);
  }
}

TEST_F(CudaLibrary, ViewsWithoutAContiguousDimAreRejected) {
  DeviceTensor<uint16_t> lhs({32, 48}, FUSER_BF16, {96, 2}, 32 * 96);
  DeviceTensor<uint16_t> rhs({48, 16}, FUSER_BF16), out({32, 16}, FUSER_BF16);
  EXPECT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()).rfind(
                "hostir.matmul: lhs bf16[32, 48] with strides [96, 2] is not "
                "a matrix cuBLASLt can read",
                0),
            0u)
      << fuser_last_error();
}

TEST_F(CudaLibrary, SteadyStateProductsAllocateNothing) {
  HostTensor input({2, 64, 128}, FUSER_BF16), weight({96, 128}, FUSER_BF16),
      out({2, 64, 96}, FUSER_BF16), bias({96}, FUSER_BF16);
  HostTensor lhs({4, 64, 128}, FUSER_BF16), rhs({4, 128, 32}, FUSER_BF16),
      product({4, 64, 32}, FUSER_BF16);
  Mirrors<uint16_t> mirrors({&input, &weight, &out, &bias, &lhs, &rhs,
                             &product});
  Views views = mirrors.deviceViews();
  auto runAll = [&] {
    ASSERT_EQ(fuser_linear(views[0], views[1], views[3], views[2], 0,
                           FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
    ASSERT_EQ(
        fuser_matmul(views[4], views[5], views[6], 0, FUSER_ACTIVATION_NONE),
        FUSER_OK)
        << fuser_last_error();
  };
  runAll(); // the first products create the workspace and plans
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  int64_t allocations = fuser_device_allocation_count();
  for (int execution = 0; execution < 20; ++execution)
    runAll();
  ASSERT_EQ(fuser_synchronize(), FUSER_OK) << fuser_last_error();
  EXPECT_EQ(fuser_device_allocation_count(), allocations);
}

TEST_F(CudaLibrary, ReduceBlocksOnTheGpu) {
  auto reduceCall = [](FuserReduction kind) -> Call {
    return [kind](const Views &views) {
      return fuser_reduce_blocks(views[0], views[1], kind);
    };
  };
  for (FuserReduction kind :
       {FUSER_SUM, FUSER_PROD, FUSER_MAX, FUSER_MIN, FUSER_AVG}) {
    SCOPED_TRACE("kind " + std::to_string(kind));
    // bf16 with 16-byte accesses ([4, 1024]: 8 elements a thread), then
    // with single elements ([3, 1001]).
    for (int64_t elements : {1024, 1001}) {
      HostTensor input({4, elements}, FUSER_BF16), out({elements}, FUSER_BF16);
      input.fillQuarters(20);
      expectBackendsAgree<uint16_t>({&input, &out}, 1, reduceCall(kind));
    }
    HostTensor floats({5, 2, 300}, FUSER_F32), floatOut({2, 300}, FUSER_F32);
    floats.fillQuarters(21);
    expectBackendsAgree<float>({&floats, &floatOut}, 1, reduceCall(kind));
    HostTensor doubles({3, 130}, FUSER_F64), doubleOut({130}, FUSER_F64);
    doubles.fillQuarters(22);
    expectBackendsAgree<double>({&doubles, &doubleOut}, 1, reduceCall(kind));
  }
  // 256 + eight ones in bf16: 264, as f32 accumulation gives.
  HostTensor input({9, 8}, FUSER_BF16), out({8}, FUSER_BF16);
  for (int64_t block = 0; block < 9; ++block)
    for (int64_t i = 0; i < 8; ++i)
      input.set({block, i}, block == 0 ? 256 : 1);
  expectBackendsAgree<uint16_t>({&input, &out}, 1, reduceCall(FUSER_SUM));
  EXPECT_EQ(out.get({0}), 264);
  // f16, and a dense input stored column-major.
  HostTensor halves({4, 64}, FUSER_F16), halfOut({64}, FUSER_F16);
  halves.fillQuarters(23);
  expectBackendsAgree<uint16_t>({&halves, &halfOut}, 1, reduceCall(FUSER_SUM));
  HostTensor columns({3, 50}, FUSER_F32, {1, 3}), columnOut({50}, FUSER_F32);
  columns.fillQuarters(24);
  expectBackendsAgree<float>({&columns, &columnOut}, 1,
                             reduceCall(FUSER_MAX));
}

} // namespace
