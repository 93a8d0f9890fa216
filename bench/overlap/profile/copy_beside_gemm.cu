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

#include <array>

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
  BesideStreams streams;
  cudaEvent_t urgentCopyEnd;
  CHECK(cudaEventCreate(&urgentCopyEnd));
  for (auto [m, n, k] :
       {std::array{16384, 8192, 16384}, std::array{4096, 8192, 8192},
        std::array{2048, 8192, 8192}}) {
    // A is the rank's block, which the copy moves into the shared buffer.
    GemmOperands operands(m, n, k);
    size_t blockBytes = operands.aBytes();
    void *shared;
    CHECK(cudaMalloc(&shared, blockBytes));
    std::printf("GEMM %dx%dx%d, copy %.0f MiB (median of 20, ms after "
                "the start)\n",
                m, n, k, blockBytes / 1048576.0);
    auto runGemm = [&] { operands.run(streams.gemm); };
    for (int index = 0; index <= int(Case::CopyFirstUrgent); ++index) {
      Case scenario = Case(index);
      bool hinted = scenario == Case::CopyAloneHinted ||
                    scenario == Case::CopyFirstHinted ||
                    scenario == Case::GemmFirstHinted;
      auto runCopy = [&](cudaStream_t stream) {
        copy(stream, shared, operands.a, blockBytes, hinted);
      };
      EndTimes ends =
          timeBesideGemm(streams.gemm, streams.beside, [&](cudaEvent_t start) {
            switch (scenario) {
            case Case::GemmAlone:
              runGemm();
              break;
            case Case::CopyAlone:
            case Case::CopyAloneHinted:
              runCopy(streams.beside);
              break;
            case Case::CopyFirst:
            case Case::CopyFirstHinted:
              runCopy(streams.beside);
              runGemm();
              break;
            case Case::GemmFirst:
            case Case::GemmFirstHinted:
              runGemm();
              runCopy(streams.beside);
              break;
            case Case::CopyFirstUrgent:
              CHECK(cudaStreamWaitEvent(streams.urgent, start));
              runCopy(streams.urgent);
              CHECK(cudaEventRecord(urgentCopyEnd, streams.urgent));
              CHECK(cudaStreamWaitEvent(streams.beside, urgentCopyEnd));
              runGemm();
              break;
            }
          });
      std::printf("  %-40s copy ends %6.3f, gemm ends %6.3f\n",
                  describe(scenario), ends.beside, ends.gemm);
    }
    CHECK(cudaFree(shared));
  }
  return 0;
}
