//===- CudaKernelTest.cpp - launching PTX kernels on GPUs -----------------===//
//
// Kernels written in PTX, the form programs embed them in, launched
// through fuser_launch_kernel with the calling convention of compiled
// programs (each buffer one pointer to its first element, indices as
// i64). Skipped where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaTestSupport.h"

#include <string>

namespace {

/// y[i] = x[i] + 1 for i < n, one thread per element.
const char kAddOne[] = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 x, .param .u64 y, .param .u64 n)
{
  .reg .pred %outside;
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;

  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u64 %rd3, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.wide.u32 %rd4, %r1, %r2, 0;
  cvt.u64.u32 %rd5, %r3;
  add.s64 %rd4, %rd4, %rd5;
  setp.ge.s64 %outside, %rd4, %rd3;
  @%outside bra done;
  shl.b64 %rd5, %rd4, 2;
  cvta.to.global.u64 %rd6, %rd1;
  add.s64 %rd6, %rd6, %rd5;
  ld.global.f32 %f1, [%rd6];
  add.f32 %f2, %f1, 0f3F800000;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd7, %rd7, %rd5;
  st.global.f32 [%rd7], %f2;
done:
  ret;
}
)";

/// Uses registers it never declared.
const char kBroken[] = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry broken()
{
  add.f32 %f1, %f2, %f3;
  ret;
}
)";

class CudaKernels : public CudaTest {};

void expectError(const std::string &expected) {
  EXPECT_NE(std::string(fuser_last_error()).find(expected), std::string::npos)
      << fuser_last_error();
}

/// Launches `kernel` of `image` on one thread; expects the launch to fail
/// and the kernel's slot to stay empty.
void expectLaunchFails(const char *image, const char *kernel) {
  void *function = nullptr;
  EXPECT_EQ(fuser_launch_kernel(image, kernel, &function, 1, 1, 1, 1, 1, 1,
                                /*parameters=*/nullptr),
            FUSER_FAILED);
  EXPECT_EQ(function, nullptr);
}

TEST_F(CudaKernels, SecondLaunchReusesTheFunction) {
  // Not a multiple of the block: the last block's bounds check matters.
  constexpr int64_t n = 1000, threads = 256;
  DeviceTensor<float> x({n}, FUSER_F32), y({n}, FUSER_F32);
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = 0.5f * static_cast<float>(i);
  x.upload(values);
  void *xData = x.buffer.aligned, *yData = y.buffer.aligned;
  int64_t count = n;
  void *function = nullptr;
  auto launch = [&](void **parameters) {
    ASSERT_EQ(fuser_launch_kernel(kAddOne, "add_one", &function,
                                  (n + threads - 1) / threads, 1, 1, threads, 1,
                                  1, parameters),
              FUSER_OK)
        << fuser_last_error();
  };
  void *fromX[] = {&xData, &yData, &count};
  launch(fromX);
  void *loaded = function;
  ASSERT_NE(loaded, nullptr);
  // In place on y: y = x + 2.
  void *inPlace[] = {&yData, &yData, &count};
  launch(inPlace);
  EXPECT_EQ(function, loaded);
  std::vector<float> result = y.download();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(result[i], values[i] + 2) << "element " << i;
}

TEST_F(CudaKernels, ImageThatDoesNotLoadShowsTheJitLog) {
  expectLaunchFails(kBroken, "broken");
  expectError("hostir.launch of kernel 'broken': cuModuleLoadDataEx failed: "
              "CUDA_ERROR_INVALID_PTX");
  expectError("JIT log: ");
  expectError("Unknown symbol '%f1'");
}

TEST_F(CudaKernels, KernelNotInTheImageIsNamed) {
  expectLaunchFails(kAddOne, "add_two");
  expectError("hostir.launch of kernel 'add_two': cuModuleGetFunction failed: "
              "CUDA_ERROR_NOT_FOUND");
}

} // namespace
