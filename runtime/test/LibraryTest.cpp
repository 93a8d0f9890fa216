//===- LibraryTest.cpp - library calls, copies and the buffer cache -------===//

#include "LibraryTestSupport.h"
#include "TestBuffers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace {

TEST(Library, MatmulOfBatchedStridedViews) {
  // lhs [2, 2, 3]; rhs [2, 3, 2] given as the transposed layout of [2, 2, 3].
  auto lhs = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0});
  auto rhs = f32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 1, 1, 1, 2, 2, 2},
                 {6, 1, 3});
  auto out = f32({2, 2, 2}, std::vector<float>(8));
  ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  // Batch 0: rhs = [[1, 4], [2, 5], [3, 6]].
  EXPECT_EQ(out.data[0], 1 * 1 + 2 * 2 + 3 * 3);
  EXPECT_EQ(out.data[1], 1 * 4 + 2 * 5 + 3 * 6);
  EXPECT_EQ(out.data[3], 4 * 4 + 5 * 5 + 6 * 6);
  // Batch 1: rhs = [[1, 2], [1, 2], [1, 2]]; lhs rows pick rows of it.
  EXPECT_EQ(out.data[4], 1);
  EXPECT_EQ(out.data[7], 2);
}

TEST(Library, LinearWithBiasAndVectorWeight) {
  auto input = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto weight = f32({2, 3}, {1, 0, 0, 1, 1, 1});
  auto bias = f32({2}, {10, 20});
  auto out = f32({2, 2}, std::vector<float>(4));
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), bias.view(), out.view(),
                         0, FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(out.data, (std::vector<float>{11, 26, 14, 35}));

  auto vectorWeight = f32({3}, {1, 1, 1});
  auto sums = f32({2}, {0, 0});
  ASSERT_EQ(fuser_linear(input.view(), vectorWeight.view(), nullptr,
                         sums.view(), 0, FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<float>{6, 15}));
}

TEST(Library, ProductsAccumulateIntoTheOutput) {
  auto lhs = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto rhs = f32({3, 2}, {1, 0, 0, 1, 1, 1});
  // Row-major out, and out stored transposed.
  auto out = f32({2, 2}, {100, 200, 300, 400});
  auto transposed = f32({2, 2}, {100, 300, 200, 400}, {1, 2});
  for (auto *target : {&out, &transposed})
    ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), target->view(), 1,
                           FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
  EXPECT_EQ(out.data, (std::vector<float>{104, 205, 310, 411}));
  EXPECT_EQ(transposed.data, (std::vector<float>{104, 310, 205, 411}));

  // A linear adds its product and its bias; k = 0 adds the bias alone.
  auto weight = f32({2, 3}, {1, 0, 0, 1, 1, 1});
  auto bias = f32({2}, {10, 20});
  auto sums = f32({2, 2}, {1, 2, 3, 4});
  ASSERT_EQ(fuser_linear(lhs.view(), weight.view(), bias.view(), sums.view(), 1,
                         FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<float>{12, 28, 17, 39}));
  auto empty = f32({2, 0}, {});
  auto emptyWeight = f32({2, 0}, {});
  ASSERT_EQ(fuser_linear(empty.view(), emptyWeight.view(), bias.view(),
                         sums.view(), 1, FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<float>{22, 48, 27, 59}));
}

TEST(Library, Bfloat16InputsAccumulateInFloat) {
  // 256 + 1 + 1 + ... : bf16 accumulation would lose the ones.
  std::vector<uint16_t> row(9, bf16Bits(1.f));
  row[0] = bf16Bits(256.f);
  Tensor<uint16_t> input({1, 9}, row, FUSER_BF16);
  Tensor<uint16_t> weight({1, 9}, std::vector<uint16_t>(9, bf16Bits(1.f)),
                          FUSER_BF16);
  Tensor<uint16_t> out({1, 1}, {0}, FUSER_BF16);
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), nullptr, out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(bf16Value(out.data[0]), 264.f);
}

TEST(Library, HalfInputsRoundTrip) {
  // f16 bits: 1.0 = 0x3c00, 0.5 = 0x3800, 2.0 = 0x4000, -3.0 = 0xc200.
  Tensor<uint16_t> input({1, 3}, {0x3c00, 0x3800, 0x4000}, FUSER_F16);
  Tensor<uint16_t> weight({2, 3}, {0x3c00, 0x3c00, 0x3c00, 0xc200, 0x0000,
                                   0x3c00},
                          FUSER_F16);
  Tensor<uint16_t> out({1, 2}, {0, 0}, FUSER_F16);
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), nullptr, out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  // 1 + 0.5 + 2 = 3.5 (0x4300); -3 + 2 = -1 (0xbc00).
  EXPECT_EQ(out.data[0], 0x4300);
  EXPECT_EQ(out.data[1], 0xbc00);
}

/// Expects every element of `out` to be the double-precision reference
/// rounded once to the output type: the operands' values make every f32
/// partial sum exact.
template <typename Reference>
void expectExact(const HostTensor &out, const Reference &reference) {
  int64_t mismatches = 0;
  for (const auto &index : allIndices(out.sizes)) {
    double expected = roundTo(out.dtype(), reference(index));
    if (out.get(index) != expected && ++mismatches <= 5)
      ADD_FAILURE() << "element " << out.position(index) << ": "
                    << out.get(index) << " instead of " << expected;
  }
  EXPECT_EQ(mismatches, 0);
}

/// Sets FUSER_HOST_THREADS while alive, so that products use several
/// workers also where the ranks share few cores.
struct HostThreads {
  explicit HostThreads(int threads) {
    setenv("FUSER_HOST_THREADS", std::to_string(threads).c_str(), 1);
  }
  ~HostThreads() { unsetenv("FUSER_HOST_THREADS"); }
};

TEST(Library, BlockedMatmulOfStridedViews) {
  HostThreads threads(4);
  // [2, 96, 72] x [2, 72, 80]: large enough for several workers and several
  // row blocks. lhs is the transpose of its storage, rhs has padded rows,
  // out is stored transposed (f32) or with padded rows (bf16).
  for (FuserDType dtype : {FUSER_F32, FUSER_BF16}) {
    HostTensor lhs({2, 96, 72}, dtype, {72 * 96, 1, 96});
    HostTensor rhs({2, 72, 80}, dtype, {72 * 88, 88, 1}, 2 * 72 * 88);
    bool padded = dtype == FUSER_BF16;
    HostTensor out({2, 96, 80}, dtype,
                   padded ? std::vector<int64_t>{96 * 81, 81, 1}
                          : std::vector<int64_t>{96 * 80, 1, 96},
                   padded ? 2 * 96 * 81 : 0);
    lhs.fillQuarters(1);
    rhs.fillQuarters(2);
    ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                           FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
    expectExact(out, [&](const std::vector<int64_t> &index) {
      return referenceMatmul(lhs, rhs, index);
    });
    if (padded) { // the gaps stay as they were
      for (int64_t row = 0; row < 2 * 96; ++row)
        EXPECT_EQ(out.get({0, row, 80}), 0) << "row " << row;
    }
  }
}

TEST(Library, MatmulWithASharedRhs) {
  // rhs broadcast over the batch (stride 0): one product of 3 * 20 rows.
  HostTensor lhs({3, 20, 16}, FUSER_F32), rhs({3, 16, 12}, FUSER_F32, {0, 12, 1},
                                              16 * 12),
      out({3, 20, 12}, FUSER_F32);
  lhs.fillQuarters(11);
  rhs.fillQuarters(12);
  ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  expectExact(out, [&](const std::vector<int64_t> &index) {
    return referenceMatmul(lhs, rhs, index);
  });
}

TEST(Library, DeepAndWideProducts) {
  HostThreads threads(3);
  // k spans several depth blocks, n several column blocks, m is not a
  // multiple of the micro-kernel's rows; f64 accumulates in f64.
  for (FuserDType dtype : {FUSER_F32, FUSER_F64}) {
    HostTensor lhs({5, 300}, dtype), rhs({300, 2100}, dtype),
        out({5, 2100}, dtype);
    lhs.fillQuarters(3);
    rhs.fillQuarters(4);
    ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                           FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
    expectExact(out, [&](const std::vector<int64_t> &index) {
      return referenceMatmul(lhs, rhs, index);
    });
  }
}

TEST(Library, LinearOverBatchedRows) {
  HostThreads threads(4);
  // input [3, 40, 72]: contiguous (one product of 120 rows), or a view of
  // [3, 48, 72] whose batch entries are looped over; the weight has padded
  // rows.
  for (bool contiguous : {true, false}) {
    HostTensor input({3, 40, 72}, FUSER_BF16,
                     contiguous ? std::vector<int64_t>{}
                                : std::vector<int64_t>{48 * 72, 72, 1},
                     contiguous ? 0 : 3 * 48 * 72);
    HostTensor weight({80, 72}, FUSER_BF16, {76, 1}, 80 * 76);
    HostTensor bias({80}, FUSER_BF16);
    HostTensor out({3, 40, 80}, FUSER_BF16);
    input.fillQuarters(5);
    weight.fillQuarters(6);
    bias.fillQuarters(7);
    ASSERT_EQ(fuser_linear(input.view(), weight.view(), bias.view(), out.view(),
                           0, FUSER_ACTIVATION_NONE),
              FUSER_OK)
        << fuser_last_error();
    expectExact(out, [&](const std::vector<int64_t> &index) {
      return referenceLinear(input, weight, &bias, index);
    });
  }
  // A weight of rank 1: one value per row.
  HostTensor input({3, 40, 72}, FUSER_F32), weight({72}, FUSER_F32),
      bias({}, FUSER_F32), out({3, 40}, FUSER_F32);
  input.fillQuarters(8);
  weight.fillQuarters(9);
  bias.set({}, 0.5);
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), bias.view(), out.view(),
                         0, FUSER_ACTIVATION_NONE),
            FUSER_OK)
      << fuser_last_error();
  expectExact(out, [&](const std::vector<int64_t> &index) {
    return referenceLinear(input, weight, &bias, index);
  });
}

TEST(Library, ReduceBlocksOfEveryKind) {
  // Three blocks of [2, 2].
  std::vector<float> values = {1, -2, 3, 4, /**/ 5, 6, -7, 8, /**/ 2, 2, 2, -2};
  struct Case {
    FuserReduction kind;
    std::vector<float> expected;
  } cases[] = {{FUSER_SUM, {8, 6, -2, 10}},
               {FUSER_PROD, {10, -24, -42, -64}},
               {FUSER_MAX, {5, 6, 3, 8}},
               {FUSER_MIN, {1, -2, -7, -2}},
               {FUSER_AVG, {8.f / 3, 2, -2.f / 3, 10.f / 3}}};
  for (const Case &test : cases) {
    auto input = f32({3, 2, 2}, values);
    auto out = f32({2, 2}, std::vector<float>(4));
    ASSERT_EQ(fuser_reduce_blocks(input.view(), out.view(), test.kind),
              FUSER_OK)
        << fuser_last_error();
    EXPECT_EQ(out.data, test.expected) << "kind " << test.kind;
  }
}

TEST(Library, ReduceBlocksOfBfloat16AccumulatesInFloat) {
  // 256 + 1 + ... + 1 (8 ones): bf16 additions would lose every one.
  std::vector<uint16_t> values;
  for (int block = 0; block < 9; ++block)
    for (int i = 0; i < 4; ++i)
      values.push_back(bf16Bits(block == 0 ? 256.f : i == 3 ? -1.f : 1.f));
  Tensor<uint16_t> input({9, 4}, values, FUSER_BF16);
  struct Case {
    FuserReduction kind;
    float first, last;
  } cases[] = {{FUSER_SUM, 264, 248},
               {FUSER_AVG, 264.f / 9, 248.f / 9},
               {FUSER_MAX, 256, 256},
               {FUSER_MIN, 1, -1},
               {FUSER_PROD, 256, 256}};
  for (const Case &test : cases) {
    Tensor<uint16_t> out({4}, std::vector<uint16_t>(4), FUSER_BF16);
    ASSERT_EQ(fuser_reduce_blocks(input.view(), out.view(), test.kind),
              FUSER_OK)
        << fuser_last_error();
    EXPECT_EQ(bf16Value(out.data[0]), roundTo(FUSER_BF16, test.first))
        << "kind " << test.kind;
    EXPECT_EQ(bf16Value(out.data[3]), roundTo(FUSER_BF16, test.last))
        << "kind " << test.kind;
  }
}

TEST(Library, ReduceBlocksOfOtherTypesAndLayouts) {
  // f16 and f64 sums.
  for (FuserDType dtype : {FUSER_F16, FUSER_F64}) {
    HostTensor input({4, 3}, dtype), out({3}, dtype);
    input.fillQuarters(10);
    ASSERT_EQ(fuser_reduce_blocks(input.view(), out.view(), FUSER_SUM),
              FUSER_OK)
        << fuser_last_error();
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(out.get({j}), input.get({0, j}) + input.get({1, j}) +
                                  input.get({2, j}) + input.get({3, j}));
  }
  // A dense input stored column-major: block b is input[b, :], wherever
  // its elements lie.
  auto input = f32({2, 3}, {1, 10, 2, 20, 3, 30}, {1, 2});
  auto out = f32({3}, std::vector<float>(3));
  ASSERT_EQ(fuser_reduce_blocks(input.view(), out.view(), FUSER_SUM),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(out.data, (std::vector<float>{11, 22, 33}));
  // Integers.
  Tensor<int32_t> integers({3, 2}, {1, 2, 3, 4, 5, -6}, FUSER_I32);
  Tensor<int32_t> sums({2}, {0, 0}, FUSER_I32);
  ASSERT_EQ(fuser_reduce_blocks(integers.view(), sums.view(), FUSER_SUM),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<int32_t>{9, 0}));
}

TEST(Library, ActivationsApplyLast) {
  auto lhs = f32({2, 2}, {1, -2, 3, 1});
  auto rhs = f32({2, 2}, {1, 0, 0, 1});
  // relu(lhs), then relu(out + lhs x rhs).
  auto out = f32({2, 2}, std::vector<float>(4));
  ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_RELU),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(out.data, (std::vector<float>{1, 0, 3, 1}));
  auto sums = f32({2, 2}, {0, 1, -5, 0});
  ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), sums.view(), 1,
                         FUSER_ACTIVATION_RELU),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<float>{1, 0, 0, 1}));

  // gelu (tanh) of x w^T + b, against the formula in double; k = 0 gives
  // gelu(b).
  auto gelu = [](double x) {
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / 3.141592653589793) *
                          (x + 0.044715 * x * x * x)));
  };
  auto weight = f32({2, 2}, {1, 0, 0, 1});
  auto bias = f32({2}, {0.5f, -1});
  auto activated = f32({2, 2}, std::vector<float>(4));
  ASSERT_EQ(fuser_linear(lhs.view(), weight.view(), bias.view(),
                         activated.view(), 0, FUSER_ACTIVATION_GELU_TANH),
            FUSER_OK)
      << fuser_last_error();
  const double sumsWithBias[] = {1.5, -3, 3.5, 0};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(activated.data[i], gelu(sumsWithBias[i]), 1e-6) << i;
  auto empty = f32({2, 0}, {});
  auto emptyWeight = f32({2, 0}, {});
  ASSERT_EQ(fuser_linear(empty.view(), emptyWeight.view(), bias.view(),
                         activated.view(), 0, FUSER_ACTIVATION_GELU_TANH),
            FUSER_OK)
      << fuser_last_error();
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(activated.data[i], gelu(i % 2 ? -1 : 0.5), 1e-6) << i;
}

TEST(Library, ActivationsNeedFloats) {
  Tensor<int32_t> lhs({1, 1}, {2}, FUSER_I32), rhs({1, 1}, {3}, FUSER_I32),
      out({1, 1}, {0}, FUSER_I32);
  EXPECT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_RELU),
            FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()),
            "matmul: an activation needs floating-point elements, not i32");
  auto floats = f32({1, 1}, {1});
  EXPECT_EQ(fuser_matmul(floats.view(), floats.view(), floats.view(), 0,
                         static_cast<FuserActivation>(7)),
            FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()), "matmul: unknown activation 7");
}

TEST(Library, ShapeMismatchIsReported) {
  auto lhs = f32({2, 3}, std::vector<float>(6));
  auto rhs = f32({2, 2}, std::vector<float>(4));
  auto out = f32({2, 2}, std::vector<float>(4));
  EXPECT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view(), 0,
                         FUSER_ACTIVATION_NONE),
            FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()),
            "matmul: shapes f32[2, 3] x f32[2, 2] -> f32[2, 2] do not fit");
}

TEST(Boundary, ArgumentShapesAreChecked) {
  int64_t expected[] = {256, 64}, actual[] = {128, 64};
  EXPECT_EQ(fuser_check_argument_shape("tp_mlp", 1, 2, expected, expected),
            FUSER_OK);
  EXPECT_EQ(fuser_check_argument_shape("tp_mlp", 1, 2, actual, expected),
            FUSER_FAILED);
  EXPECT_EQ(std::string(fuser_last_error()),
            "tp_mlp: argument #1 has shape [128, 64] but the program takes "
            "[256, 64]");
}

TEST(Buffers, CopyBetweenLayouts) {
  auto rows = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto columns = f32({2, 3}, std::vector<float>(6), {1, 2});
  ASSERT_EQ(fuser_copy(rows.view(), columns.view()), FUSER_OK);
  EXPECT_EQ(columns.data, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Buffers, CacheHandsOutTheSameBuffer) {
  int64_t before = fuser_cached_buffer_count();
  void *first = fuser_cached_buffer("test_buffer", 256, FUSER_MEMORY_HOST);
  ASSERT_NE(first, nullptr);
  for (int execution = 0; execution < 100; ++execution)
    ASSERT_EQ(fuser_cached_buffer("test_buffer", 256, FUSER_MEMORY_HOST), first);
  EXPECT_EQ(fuser_cached_buffer_count(), before + 1);
  EXPECT_EQ(fuser_cached_buffer("test_buffer", 512, FUSER_MEMORY_HOST), nullptr);
  EXPECT_EQ(std::string(fuser_last_error()),
            "cached buffer 'test_buffer' holds 256 bytes, asked for 512");
}

TEST(Buffers, AllocationsAreZeroedWhenAsked) {
  auto *memory = static_cast<unsigned char *>(fuser_allocate(100, FUSER_MEMORY_HOST, 1));
  ASSERT_NE(memory, nullptr);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(memory[i], 0);
  fuser_deallocate(memory);
}

TEST(Buffers, TheHostBackendHoldsNoDeviceMemory) {
  void *memory = fuser_allocate(1 << 20, FUSER_MEMORY_DEVICE, 0);
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(fuser_device_memory_peak_bytes(), 0);
  fuser_deallocate(memory);
}

} // namespace
