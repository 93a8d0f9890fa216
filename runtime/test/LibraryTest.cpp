//===- LibraryTest.cpp - library calls, copies and the buffer cache -------===//

#include "TestBuffers.h"

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(Library, MatmulOfBatchedStridedViews) {
  // lhs [2, 2, 3]; rhs [2, 3, 2] given as the transposed layout of [2, 2, 3].
  auto lhs = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0});
  auto rhs = f32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 1, 1, 1, 2, 2, 2},
                 {6, 1, 3});
  auto out = f32({2, 2, 2}, std::vector<float>(8));
  ASSERT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view()), FUSER_OK)
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
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), bias.view(), out.view()),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(out.data, (std::vector<float>{11, 26, 14, 35}));

  auto vectorWeight = f32({3}, {1, 1, 1});
  auto sums = f32({2}, {0, 0});
  ASSERT_EQ(fuser_linear(input.view(), vectorWeight.view(), nullptr,
                         sums.view()),
            FUSER_OK)
      << fuser_last_error();
  EXPECT_EQ(sums.data, (std::vector<float>{6, 15}));
}

TEST(Library, Bfloat16InputsAccumulateInFloat) {
  // 256 + 1 + 1 + ... : bf16 accumulation would lose the ones.
  std::vector<uint16_t> row(9, bf16Bits(1.f));
  row[0] = bf16Bits(256.f);
  Tensor<uint16_t> input({1, 9}, row, FUSER_BF16);
  Tensor<uint16_t> weight({1, 9}, std::vector<uint16_t>(9, bf16Bits(1.f)),
                          FUSER_BF16);
  Tensor<uint16_t> out({1, 1}, {0}, FUSER_BF16);
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), nullptr, out.view()),
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
  ASSERT_EQ(fuser_linear(input.view(), weight.view(), nullptr, out.view()),
            FUSER_OK)
      << fuser_last_error();
  // 1 + 0.5 + 2 = 3.5 (0x4300); -3 + 2 = -1 (0xbc00).
  EXPECT_EQ(out.data[0], 0x4300);
  EXPECT_EQ(out.data[1], 0xbc00);
}

TEST(Library, ShapeMismatchIsReported) {
  auto lhs = f32({2, 3}, std::vector<float>(6));
  auto rhs = f32({2, 2}, std::vector<float>(4));
  auto out = f32({2, 2}, std::vector<float>(4));
  EXPECT_EQ(fuser_matmul(lhs.view(), rhs.view(), out.view()), FUSER_FAILED);
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
  void *first = fuser_cached_buffer("test_buffer", 256);
  ASSERT_NE(first, nullptr);
  for (int execution = 0; execution < 100; ++execution)
    ASSERT_EQ(fuser_cached_buffer("test_buffer", 256), first);
  EXPECT_EQ(fuser_cached_buffer_count(), before + 1);
  EXPECT_EQ(fuser_cached_buffer("test_buffer", 512), nullptr);
  EXPECT_EQ(std::string(fuser_last_error()),
            "cached buffer 'test_buffer' holds 256 bytes, asked for 512");
}

TEST(Buffers, AllocationsAreZeroedWhenAsked) {
  auto *memory = static_cast<unsigned char *>(fuser_allocate(100, 1));
  ASSERT_NE(memory, nullptr);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(memory[i], 0);
  fuser_deallocate(memory);
}

} // namespace
