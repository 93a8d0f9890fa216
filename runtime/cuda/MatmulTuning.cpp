//===- MatmulTuning.cpp - the fastest of cuBLASLt's candidates ------------===//
//
// cuBLASLt's heuristic ranks its algorithms without running them, and its
// first is not always the fastest: on an H200, bf16 products of
// 16384×1024×8192 ran 12-19% faster with another of its first 8
// (bench/results/2026-11-24-gemm-tuning-on-h200.md). So a problem's
// first call times the heuristic's first kMatmulCandidates results on the
// call's own operands and stream, and keeps the fastest when it beats the
// first by more than the timings vary. The candidates write the call's
// own output, in the call's place in stream order, when the call
// overwrites it: a scratch output as large would raise the program's
// peak memory (a GPT layer's weight gradients are gigabytes). A call that
// accumulates into its output leaves it alone: its candidates write into
// a zeroed scratch output, where memory allows. The host waits for the
// timings (bounded by the runtime's timeout): every rank issues its
// signals and collectives in the same order, so what the stream waits for
// before the product was issued by every peer before its own first call
// of the product.
//
//===----------------------------------------------------------------------===//

#include "../Internal.h"
#include "CudaBackend.h"
#include "MatmulEngine.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

MatmulScalars::MatmulScalars(const MatmulKey &key)
    : inDoubles(key.dataType == CUDA_R_64F), floats{1, key.accumulate ? 1.0f
                                                                      : 0.0f},
      doubles{1, key.accumulate ? 1.0 : 0.0} {}

const void *MatmulScalars::alpha() const {
  return inDoubles ? static_cast<const void *>(&doubles[0])
                   : static_cast<const void *>(&floats[0]);
}

const void *MatmulScalars::beta() const {
  return inDoubles ? static_cast<const void *>(&doubles[1])
                   : static_cast<const void *>(&floats[1]);
}

MatmulTuning cuda::getMatmulTuning() {
  const char *value = std::getenv("FUSER_MATMUL_TUNING");
  if (!value || !std::strcmp(value, "on"))
    return MatmulTuning::On;
  if (!std::strcmp(value, "off"))
    return MatmulTuning::Off;
  return MatmulTuning::Invalid;
}

namespace {
/// Each candidate is timed one call at a time, the host waiting for each:
/// a program's products mostly run between communications and waits,
/// and a GPU kept busy by calls back to back lowers its clocks, under
/// which other candidates win. The candidates take turns for as many
/// rounds as take about kTimedMilliseconds of calls of cuBLASLt's first
/// choice (at least kMinRounds, at most kMaxRounds), and each keeps its
/// median: the clocks drift as the GPU heats, and candidates timed one
/// after the other would each see another clock.
constexpr float kTimedMilliseconds = 30;
constexpr int kMinRounds = 3;
constexpr int kMaxRounds = 15;
/// A candidate replaces cuBLASLt's first choice only when it is faster by
/// more than this fraction: the times of short products vary by about
/// that much from one timing to the next.
constexpr float kRequiredGain = 0.02f;

int64_t getElementBytes(int32_t dataType) {
  switch (dataType) {
  case CUDA_R_64F:
    return 8;
  case CUDA_R_32F:
    return 4;
  default:
    return 2;
  }
}

/// Bytes from the first to past the last element of the key's output.
int64_t getOutputSpanBytes(const MatmulKey &key) {
  return getElementBytes(key.dataType) *
         (int64_t(key.batchCount - 1) * key.batchStrideD +
          (key.n - 1) * key.ldd + key.m);
}

/// Two timing events and, for a call that accumulates, a scratch output
/// from the backend's pool (freed in stream order), released however
/// timing ends.
struct TimingResources {
  CudaBackend &backend;
  cudaEvent_t start = nullptr, end = nullptr;
  void *output = nullptr;
  ~TimingResources() {
    if (start)
      cudaEventDestroy(start);
    if (end)
      cudaEventDestroy(end);
    if (output)
      backend.deallocate(output);
  }
};
} // namespace

FuserStatus
MatmulEngine::chooseCandidate(const MatmulKey &key, const Plan &plan,
                              const cublasLtMatmulHeuristicResult_t *candidates,
                              int count, const Operands &operands,
                              const char *op, int &chosen) {
  chosen = 0;
  MatmulTuning tuning = getMatmulTuning();
  if (tuning == MatmulTuning::Invalid)
    return fail(std::string(op) + ": FUSER_MATMUL_TUNING is '" +
                std::getenv("FUSER_MATMUL_TUNING") +
                "'; it takes 'on' (time cuBLASLt's first candidates once per "
                "problem, the default) or 'off' (take cuBLASLt's first)");
  // A capture cannot wait for the timings; the product runs as planned.
  if (tuning == MatmulTuning::Off || count == 1 || backend.isCapturing())
    return FUSER_OK;
  TimingResources timing{backend};
  void *output = operands.d;
  if (key.accumulate) {
    // Too little memory to time beside the program's buffers: the
    // heuristic's first choice is still a good one.
    int64_t outputBytes = getOutputSpanBytes(key);
    size_t freeBytes = 0, totalBytes = 0;
    if (checkCuda(cudaMemGetInfo(&freeBytes, &totalBytes), op,
                  "cudaMemGetInfo"))
      return FUSER_FAILED;
    if (uint64_t(outputBytes) + totalBytes / 16 > freeBytes)
      return FUSER_OK;
    output = timing.output = backend.allocate(outputBytes, FUSER_MEMORY_DEVICE,
                                              /*zeroed=*/false);
    // What it accumulates into: zeros rather than whatever was there.
    if (!output || checkCuda(cudaMemsetAsync(output, 0, outputBytes,
                                             operands.stream),
                             op, "cudaMemsetAsync"))
      return FUSER_FAILED;
  }
  MatmulScalars scalars(key);
  auto call = [&](int candidate) {
    return cublasLtMatmul(handle, plan.desc, scalars.alpha(), operands.a,
                          plan.a, operands.b, plan.b, scalars.beta(), output,
                          plan.d, output, plan.d, &candidates[candidate].algo,
                          operands.workspace, kMatmulWorkspaceBytes,
                          operands.stream);
  };
  if (checkCuda(cudaEventCreate(&timing.start), op, "cudaEventCreate") ||
      checkCuda(cudaEventCreate(&timing.end), op, "cudaEventCreate"))
    return FUSER_FAILED;
  // The milliseconds of one call of `candidate`; `runs` false when
  // cuBLASLt cannot run it after all.
  auto time = [&](int candidate, float &milliseconds,
                  bool &runs) -> FuserStatus {
    cudaEvent_t end = timing.end;
    if (checkCuda(cudaEventRecord(timing.start, operands.stream), op,
                  "cudaEventRecord"))
      return FUSER_FAILED;
    runs = call(candidate) == CUBLAS_STATUS_SUCCESS;
    if (checkCuda(cudaEventRecord(end, operands.stream), op,
                  "cudaEventRecord") ||
        backend.awaitCompletion([end] { return cudaEventQuery(end); }, op,
                                "cudaEventQuery") ||
        checkCuda(cudaEventElapsedTime(&milliseconds, timing.start, end), op,
                  "cudaEventElapsedTime"))
      return FUSER_FAILED;
    return FUSER_OK;
  };
  // Per candidate, its time in each round; none for a candidate that
  // cannot run. Round -1 is not timed: it loads the kernels. The first
  // choice's time in round 0 sets the number of rounds.
  std::vector<std::vector<float>> times(count);
  std::vector<bool> runnable(count, true);
  int rounds = kMinRounds;
  for (int round = -1; round < rounds; ++round)
    for (int candidate = 0; candidate < count; ++candidate) {
      if (!runnable[candidate])
        continue;
      float milliseconds = 0;
      bool runs = false;
      if (time(candidate, milliseconds, runs))
        return FUSER_FAILED;
      runnable[candidate] = runs;
      if (round < 0 || !runs)
        continue;
      times[candidate].push_back(milliseconds);
      if (round == 0 && candidate == 0)
        rounds =
            std::clamp(int(kTimedMilliseconds / std::max(milliseconds, 1e-3f)),
                       kMinRounds, kMaxRounds);
    }
  auto median = [](std::vector<float> &values) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2,
                     values.end());
    return values[values.size() / 2];
  };
  // cuBLASLt's first choice failing here fails the call as it would.
  if (times[0].empty())
    return FUSER_OK;
  float fastest = median(times[0]) * (1 - kRequiredGain);
  for (int candidate = 1; candidate < count; ++candidate) {
    // A candidate cuBLASLt offered but cannot run is passed over.
    if (times[candidate].empty())
      continue;
    float milliseconds = median(times[candidate]);
    if (milliseconds < fastest) {
      fastest = milliseconds;
      chosen = candidate;
    }
  }
  return FUSER_OK;
}
