//===- sdpa_bench.cpp - the runtime's cuDNN attention, timed --------------===//
//
// Times fuser_sdpa_forward and fuser_sdpa_backward on the CUDA backend for
// b = 1, s = 2048, d = 128, causal, bf16, with h given on the command line:
// a warm-up (which plans), then each call timed alone on CUDA events
// (the runtime's timers), the median of the runs. Prints one line per
// direction: "ours <forward|backward> h=<h> <median ms> <TFLOP/s>", FLOPs
// counted as FlashAttention counts them (forward 4 b h s^2 d, halved when
// causal; backward 2.5 times the forward).
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

namespace {

constexpr int64_t kBatch = 1, kSequence = 2048, kDepth = 128;
constexpr int kWarmup = 3, kRuns = 25;

void check(FuserStatus status) {
  if (status != FUSER_OK) {
    std::fprintf(stderr, "sdpa_bench: %s\n", fuser_last_error());
    std::exit(1);
  }
}

/// A dense device buffer of `sizes`, filled with uniform values in [-1, 1).
struct Buffer {
  std::vector<int64_t> sizes, strides;
  FuserBuffer view;
  Buffer(std::vector<int64_t> shape, FuserDType dtype, unsigned seed)
      : sizes(std::move(shape)), strides(sizes.size(), 1) {
    for (int64_t dim = static_cast<int64_t>(sizes.size()) - 2; dim >= 0; --dim)
      strides[dim] = strides[dim + 1] * sizes[dim + 1];
    int64_t count = strides[0] * sizes[0], size = fuser_element_size(dtype);
    void *device = fuser_allocate(count * size, FUSER_MEMORY_DEVICE, 0);
    view = {device, device, 0, static_cast<int64_t>(sizes.size()),
            sizes.data(), strides.data(), dtype};
    std::vector<char> host(count * size);
    std::mt19937 generator(seed);
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (int64_t i = 0; i < count; ++i)
      fuser_store_element(&host[i * size], dtype, uniform(generator));
    FuserBuffer source = view;
    source.allocated = source.aligned = host.data();
    check(fuser_copy(&source, &view));
    check(fuser_synchronize());
  }
};

double medianMilliseconds(const std::function<void()> &call) {
  for (int i = 0; i < kWarmup; ++i)
    call();
  FuserTimer *timer = fuser_timer_create();
  std::vector<double> times;
  for (int i = 0; i < kRuns; ++i) {
    check(fuser_timer_start(timer));
    call();
    check(fuser_timer_stop(timer));
    double microseconds = 0;
    check(fuser_timer_elapsed_us(timer, &microseconds));
    times.push_back(microseconds / 1000);
  }
  fuser_timer_destroy(timer);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  check(fuser_init(&argc, &argv));
  int64_t heads = argc > 1 ? std::atoll(argv[1]) : 48;
  check(fuser_use_backend(FUSER_BACKEND_CUDA));
  std::vector<int64_t> rows = {kBatch, heads, kSequence, kDepth};
  Buffer query(rows, FUSER_BF16, 1), key(rows, FUSER_BF16, 2),
      value(rows, FUSER_BF16, 3), out(rows, FUSER_BF16, 4),
      gradOut(rows, FUSER_BF16, 5), gradQuery(rows, FUSER_BF16, 6),
      gradKey(rows, FUSER_BF16, 7), gradValue(rows, FUSER_BF16, 8),
      logsumexp({kBatch, heads, kSequence}, FUSER_F32, 9);
  double scale = 1 / std::sqrt(static_cast<double>(kDepth));
  double forward = medianMilliseconds([&] {
    check(fuser_sdpa_forward(&query.view, &key.view, &value.view, &out.view,
                             &logsumexp.view, scale, 1, 0, 0, 0, 0));
  });
  double backward = medianMilliseconds([&] {
    check(fuser_sdpa_backward(&query.view, &key.view, &value.view, &out.view,
                              &gradOut.view, &logsumexp.view, &gradQuery.view,
                              &gradKey.view, &gradValue.view, scale, 1, 0, 0,
                              0, 0));
  });
  double flops = 4.0 * kBatch * heads * kSequence * kSequence * kDepth / 2;
  std::printf("ours forward h=%lld %.4f %.1f\n", static_cast<long long>(heads),
              forward, flops / forward / 1e9);
  std::printf("ours backward h=%lld %.4f %.1f\n", static_cast<long long>(heads),
              backward, 2.5 * flops / backward / 1e9);
  fuser_finalize();
  return 0;
}
