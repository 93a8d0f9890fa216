// Whether a small kernel that needs SMs (as NCCL's collective kernels do)
// issued on one stream right after a GEMM on another runs beside the GEMM
// or only once the GEMM's blocks have been dispatched: the question behind
// the collective pipeline's small overlap (bench/results/
// 2026-11-24-final-on-2xh200.md), where chunk i's GEMM and chunk i+1's
// collective become ready together. Times the kernel and the GEMM alone,
// then released together by one event in either issue order, and with the
// kernel on a high-priority stream. The kernel copies 16 MiB (one rank's
// chunk of the 4096x8192x8192 AllGather+GEMM at S = 2) with a fixed number
// of blocks, as NCCL runs a collective on a few channels.
//
//   nvcc -arch=sm_90 -O2 kernel_beside_gemm.cu -lcublas -o kernel_beside_gemm
//   ./kernel_beside_gemm
#include "beside_gemm.h"

#include <array>

namespace {
constexpr int kCopyBlocks = 16;
constexpr size_t kCopyBytes = size_t(16) << 20;

__global__ void copyOnSMs(int4 *to, const int4 *from, size_t count) {
  for (size_t index = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
       index < count; index += size_t(gridDim.x) * blockDim.x)
    to[index] = from[index];
}

void copyKernel(cudaStream_t stream, void *to, const void *from) {
  copyOnSMs<<<kCopyBlocks, 512, 0, stream>>>(
      static_cast<int4 *>(to), static_cast<const int4 *>(from),
      kCopyBytes / sizeof(int4));
  CHECK(cudaGetLastError());
}

enum class Case { GemmAlone, KernelAlone, KernelFirst, GemmFirst, GemmFirstUrgent };
const char *describe(Case scenario) {
  switch (scenario) {
  case Case::GemmAlone:
    return "gemm alone";
  case Case::KernelAlone:
    return "kernel alone";
  case Case::KernelFirst:
    return "kernel issued first, gemm beside";
  case Case::GemmFirst:
    return "gemm issued first, kernel beside";
  case Case::GemmFirstUrgent:
    return "gemm first, kernel on a high-priority stream";
  }
  return "";
}
} // namespace

int main() {
  BesideStreams streams;
  void *source, *target;
  CHECK(cudaMalloc(&source, kCopyBytes));
  CHECK(cudaMalloc(&target, kCopyBytes));
  CHECK(cudaMemset(source, 0, kCopyBytes));
  for (auto [m, n, k] :
       {std::array{2048, 8192, 8192}, std::array{8192, 8192, 8192},
        std::array{16384, 8192, 8192}}) {
    GemmOperands operands(m, n, k);
    std::printf("GEMM %dx%dx%d, copy kernel of %d blocks over 16 MiB "
                "(median of 20, ms after the start)\n",
                m, n, k, kCopyBlocks);
    for (int index = 0; index <= int(Case::GemmFirstUrgent); ++index) {
      Case scenario = Case(index);
      cudaStream_t stream =
          scenario == Case::GemmFirstUrgent ? streams.urgent : streams.beside;
      auto runGemm = [&] { operands.run(streams.gemm); };
      EndTimes ends = timeBesideGemm(streams.gemm, stream, [&](cudaEvent_t) {
        switch (scenario) {
        case Case::GemmAlone:
          runGemm();
          break;
        case Case::KernelAlone:
          copyKernel(stream, target, source);
          break;
        case Case::KernelFirst:
          copyKernel(stream, target, source);
          runGemm();
          break;
        case Case::GemmFirst:
        case Case::GemmFirstUrgent:
          runGemm();
          copyKernel(stream, target, source);
          break;
        }
      });
      std::printf("  %-46s kernel ends %6.3f, gemm ends %6.3f\n",
                  describe(scenario), ends.beside, ends.gemm);
    }
  }
  return 0;
}
