// Whether a device-to-device copy issued on one stream beside a GEMM on
// another finishes early or only once the GEMM is done: the question behind
// where the AllGather+GEMM ring copies the rank's own block into the buffer
// its peers read (docs/architecture.md, "The ring's own block"). Times the
// copy and the GEMM alone, then together in either issue order, the copy by
// cudaMemcpyAsync, by cudaMemcpyBatchAsync with the copy-engine hint
// cudaMemcpyFlagPreferOverlapWithCompute, and on a high-priority stream.
// The shapes are one rank's block of the benchmark's AllGather+GEMM at
// 32768x16384x8192, 8192x8192x8192 and 4096x8192x8192 on 2 GPUs.
//
//   nvcc -arch=sm_90 -O2 copy_beside_gemm.cu -lcublas -o copy_beside_gemm
//   ./copy_beside_gemm
#include "beside_gemm.h"

namespace {
void copy(cudaStream_t stream, void *to, const void *from, size_t bytes,
          bool preferCopyEngine) {
  if (!preferCopyEngine) {
    CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
    return;
  }
  cudaMemcpyAttributes attributes = {};
  attributes.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  attributes.flags = cudaMemcpyFlagPreferOverlapWithCompute;
  size_t attributeIndex = 0;
  void *targets[] = {to};
  const void *sources[] = {from};
  CHECK(cudaMemcpyBatchAsync(targets, sources, &bytes, 1, &attributes,
                             &attributeIndex, 1, stream));
}

enum class Case {
  GemmAlone,
  CopyAlone,
  CopyAloneHinted,
  CopyFirst,
  CopyFirstHinted,
  GemmFirst,
  GemmFirstHinted,
  CopyFirstUrgent
};
const char *describe(Case scenario) {
  switch (scenario) {
  case Case::GemmAlone:
    return "gemm alone";
  case Case::CopyAlone:
    return "copy alone (cudaMemcpyAsync)";
  case Case::CopyAloneHinted:
    return "copy alone (copy-engine hint)";
  case Case::CopyFirst:
    return "copy issued first, gemm beside";
  case Case::CopyFirstHinted:
    return "copy (hint) issued first, gemm beside";
  case Case::GemmFirst:
    return "gemm issued first, copy beside";
  case Case::GemmFirstHinted:
    return "gemm issued first, copy (hint) beside";
  case Case::CopyFirstUrgent:
    return "copy first on a high-priority stream";
  }
  return "";
}
} // namespace

int main() {
  cudaStream_t gemmStream, copyStream, urgentStream;
  CHECK(cudaStreamCreateWithFlags(&gemmStream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&copyStream, cudaStreamNonBlocking));
  int lowest, highest;
  CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
  CHECK(cudaStreamCreateWithPriority(&urgentStream, cudaStreamNonBlocking,
                                     highest));
  cudaEvent_t urgentCopyEnd;
  CHECK(cudaEventCreate(&urgentCopyEnd));
  struct Shape {
    int m, n, k;
  };
  for (Shape shape : {Shape{16384, 8192, 16384}, Shape{4096, 8192, 8192},
                      Shape{2048, 8192, 8192}}) {
    size_t blockBytes = size_t(shape.m) * shape.k * 2;
    size_t weightBytes = size_t(shape.k) * shape.n * 2;
    void *block, *weight, *product, *shared;
    CHECK(cudaMalloc(&block, blockBytes));
    CHECK(cudaMalloc(&weight, weightBytes));
    CHECK(cudaMalloc(&product, size_t(shape.m) * shape.n * 2));
    CHECK(cudaMalloc(&shared, blockBytes));
    CHECK(cudaMemset(block, 0, blockBytes));
    CHECK(cudaMemset(weight, 0, weightBytes));
    std::printf("GEMM %dx%dx%d, copy %.0f MiB (median of 20, ms after "
                "the start)\n",
                shape.m, shape.n, shape.k, blockBytes / 1048576.0);
    auto runGemm = [&] {
      gemm(gemmStream, shape.m, shape.n, shape.k, block, weight, product);
    };
    for (int index = 0; index <= int(Case::CopyFirstUrgent); ++index) {
      Case scenario = Case(index);
      bool hinted = scenario == Case::CopyAloneHinted ||
                    scenario == Case::CopyFirstHinted ||
                    scenario == Case::GemmFirstHinted;
      auto runCopy = [&](cudaStream_t stream) {
        copy(stream, shared, block, blockBytes, hinted);
      };
      EndTimes ends = timeBesideGemm(
          gemmStream, copyStream, [&](cudaEvent_t start) {
            switch (scenario) {
            case Case::GemmAlone:
              runGemm();
              break;
            case Case::CopyAlone:
            case Case::CopyAloneHinted:
              runCopy(copyStream);
              break;
            case Case::CopyFirst:
            case Case::CopyFirstHinted:
              runCopy(copyStream);
              runGemm();
              break;
            case Case::GemmFirst:
            case Case::GemmFirstHinted:
              runGemm();
              runCopy(copyStream);
              break;
            case Case::CopyFirstUrgent:
              CHECK(cudaStreamWaitEvent(urgentStream, start));
              runCopy(urgentStream);
              CHECK(cudaEventRecord(urgentCopyEnd, urgentStream));
              CHECK(cudaStreamWaitEvent(copyStream, urgentCopyEnd));
              runGemm();
              break;
            }
          });
      std::printf("  %-40s copy ends %6.3f, gemm ends %6.3f\n",
                  describe(scenario), ends.beside, ends.gemm);
    }
    CHECK(cudaFree(block));
    CHECK(cudaFree(weight));
    CHECK(cudaFree(product));
    CHECK(cudaFree(shared));
  }
  return 0;
}
