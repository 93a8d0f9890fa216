//===- Measurements.h - timing the runtime's calls -------------*- C++ -*-===//
//
// What fuser-calibrate times, through the runtime's C ABI on the current
// backend: GEMMs, copies, collectives over a team, CUDA IPC pulls from a
// peer, and a GEMM and a transfer on two streams together. Every rank runs
// every measurement (collectives need the whole team); each time is the
// median of its repetitions, the slowest rank's.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CALIBRATE_MEASUREMENTS_H
#define FUSER_RUNTIME_CALIBRATE_MEASUREMENTS_H

#include "fuser/Runtime/Runtime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fuser::calibrate {

/// A dense buffer of the current backend, freed with it.
class Tensor {
public:
  /// Of `shape`, filled with values in [-1, 1): GEMMs on zeros draw less
  /// power, so run faster than on data.
  Tensor(std::vector<int64_t> shape, FuserDType dtype,
         FuserMemory memory = FUSER_MEMORY_DEVICE);
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  ~Tensor();

  /// False (the runtime's error set) where the memory could not be had.
  bool valid() const { return memory != nullptr; }
  int64_t bytes() const;
  const FuserBuffer &buffer() const { return descriptor; }
  /// The same shape at `address` (a peer's buffer opened through IPC).
  FuserBuffer at(void *address) const;

private:
  std::vector<int64_t> shape, strides;
  void *memory = nullptr;
  FuserBuffer descriptor;
};

/// Work issued on the current stream; false with the runtime's error.
using Work = std::function<bool()>;

/// The slowest rank's median seconds of `work` over `repetitions` after
/// `warmups`, every rank starting each repetition together. A failure on
/// any rank ends every rank with its error.
double timeWork(const Work &work, int warmups, int repetitions);

/// The same for `first` and `second` issued on two streams of the pool at
/// once, both waited for.
double timeTogether(const Work &first, const Work &second, int repetitions);

/// A GEMM of bf16 (GPUs) or f32 (CPU ranks) out[m, n] = lhs[m, k] rhs[k, n],
/// `times` in a row.
struct Gemm {
  Gemm(int64_t m, int64_t n, int64_t k, FuserDType dtype);
  bool valid() const { return lhs.valid() && rhs.valid() && out.valid(); }
  double flop() const { return 2.0 * double(m) * double(n) * double(k); }
  Work work(int64_t times = 1) const;

  int64_t m, n, k;
  Tensor lhs, rhs, out;
};

/// An allgather of `elements` per rank over `team`.
struct Allgather {
  Allgather(FuserTeam *team, int64_t elements, FuserDType dtype);
  bool valid() const { return input.valid() && output.valid(); }
  /// The bytes one rank receives.
  double receivedBytes() const;
  Work work() const;

  FuserTeam *team;
  Tensor input, output;
};

/// Each member of `team` pulls `elements` from the next member's buffer
/// through CUDA IPC at once.
struct IpcPull {
  IpcPull(FuserTeam *team, int64_t elements, FuserDType dtype);
  /// Shares the source with the team (collective); false with the error.
  bool share();
  double receivedBytes() const { return double(target.bytes()); }
  Work work() const;

  FuserTeam *team;
  Tensor source, target;
  FuserIpcHandles *handles = nullptr;
};

} // namespace fuser::calibrate

#endif // FUSER_RUNTIME_CALIBRATE_MEASUREMENTS_H
