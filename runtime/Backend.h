//===- Backend.h - what each runtime backend implements ------*- C++ -*-===//
//
// The C ABI (include/fuser/Runtime/Runtime.h) is written once, in
// Abi.cpp: every call checks its arguments where both backends agree and
// forwards to the backend the program selected (fuser_use_backend). The
// host backend (host/) runs on CPU ranks with MPI; the CUDA backend (cuda/)
// on one GPU per rank with NCCL, cuBLASLt and CUDA IPC.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_BACKEND_H
#define FUSER_RUNTIME_BACKEND_H

#include "fuser/Runtime/Runtime.h"

#include <string>

/// A posted communication; each backend derives its own.
struct FuserWork {
  virtual ~FuserWork() = default;
  /// What it is, for messages: "allgather on a team of 2".
  std::string what;
};

/// A stream; each backend derives its own.
struct FuserStream {
  virtual ~FuserStream() = default;
};

namespace fuser::runtime {
class Backend;
}

/// A captured execution (only the CUDA backend makes them).
struct FuserGraph {
  virtual ~FuserGraph() = default;
  /// The backend that captured it: only that one replays it.
  fuser::runtime::Backend *owner = nullptr;
};

/// Two points of a stream and the time between them; each backend derives
/// its own. The C ABI checks the order of the calls.
struct FuserTimer {
  virtual ~FuserTimer() = default;
  virtual FuserStatus recordStart() = 0;
  virtual FuserStatus recordStop() = 0;
  /// Waits (bounded) for the stop; called after a start and a stop.
  virtual FuserStatus measureMicroseconds(double &microseconds) = 0;
  bool started = false, stopped = false;
};

namespace fuser::runtime {

/// What fuser_sdpa_forward and fuser_sdpa_backward take besides their
/// buffers.
struct AttentionOptions {
  double scale = 1;
  bool causal = false;
  double dropoutProbability = 0;
  int64_t seed = 0;
  /// Where the rank's piece starts in the global batch and heads.
  int64_t batchOffset = 0, headOffset = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  /// Frees what the backend holds (fuser_finalize).
  virtual void release() = 0;
  virtual FuserStatus synchronize() = 0;

  // Buffers.
  virtual void *allocate(int64_t bytes, FuserMemory memory, bool zeroed) = 0;
  virtual void deallocate(void *memory) = 0;
  virtual void *getCachedBuffer(const std::string &name, int64_t bytes,
                                FuserMemory memory) = 0;
  virtual int64_t getCachedBufferCount() const = 0;
  virtual int64_t getDeviceAllocationCount() const = 0;
  /// The most bytes of device memory held at once in live buffers.
  virtual int64_t getDevicePeakBytes() const = 0;
  /// The device ordinal of the backend's GPU, -1 without one.
  virtual int32_t getDeviceIndex() const = 0;
  /// The model of the device the backend computes on ("NVIDIA H200").
  virtual const std::string &getDeviceName() const = 0;
  /// Same shape and element type, checked by the caller.
  virtual FuserStatus copy(const FuserBuffer &source,
                           const FuserBuffer &target) = 0;

  // Library calls, shapes and element types checked by the caller.
  virtual FuserStatus matmul(const FuserBuffer &lhs, const FuserBuffer &rhs,
                             const FuserBuffer &out, bool accumulate,
                             FuserActivation activation) = 0;
  virtual FuserStatus linear(const FuserBuffer &input,
                             const FuserBuffer &weight, const FuserBuffer *bias,
                             const FuserBuffer &out, bool accumulate,
                             FuserActivation activation) = 0;
  virtual FuserStatus reduceBlocks(const FuserBuffer &input,
                                   const FuserBuffer &out,
                                   FuserReduction kind) = 0;
  /// Fused attention: query [b, h, sq, d], key and value [b, h, skv, d],
  /// out [b, h, sq, d], logsumexp f32 [b, h, sq].
  virtual FuserStatus sdpaForward(const FuserBuffer &query,
                                  const FuserBuffer &key,
                                  const FuserBuffer &value,
                                  const FuserBuffer &out,
                                  const FuserBuffer &logsumexp,
                                  const AttentionOptions &options) = 0;
  /// Its gradients; `grads` are those of query, key and value.
  virtual FuserStatus
  sdpaBackward(const FuserBuffer &query, const FuserBuffer &key,
               const FuserBuffer &value, const FuserBuffer &out,
               const FuserBuffer &gradOut, const FuserBuffer &logsumexp,
               const FuserBuffer &gradQuery, const FuserBuffer &gradKey,
               const FuserBuffer &gradValue,
               const AttentionOptions &options) = 0;

  // Communications, buffers checked by the caller (dense, sizes fit, roots
  // and peers valid, the team not empty).
  virtual FuserWork *allgather(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output) = 0;
  virtual FuserWork *allreduce(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output,
                               FuserReduction kind) = 0;
  virtual FuserWork *reduceScatter(FuserTeam &team, const FuserBuffer &input,
                                   const FuserBuffer &output,
                                   FuserReduction kind) = 0;
  virtual FuserWork *reduce(FuserTeam &team, const FuserBuffer &input,
                            const FuserBuffer &output, FuserReduction kind,
                            int64_t root) = 0;
  virtual FuserWork *broadcast(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output, int64_t root) = 0;
  virtual FuserWork *gather(FuserTeam &team, const FuserBuffer &input,
                            const FuserBuffer &output, int64_t root) = 0;
  virtual FuserWork *scatter(FuserTeam &team, const FuserBuffer &input,
                             const FuserBuffer &output, int64_t root) = 0;
  virtual FuserWork *allToAll(FuserTeam &team, const FuserBuffer &input,
                              const FuserBuffer &output) = 0;
  virtual FuserWork *pointToPoint(FuserTeam &team, const FuserBuffer &buffer,
                                  int64_t peer, bool sending) = 0;
  /// Takes ownership of the members (all non-null).
  virtual FuserWork *group(FuserWork *const *works, int64_t count) = 0;
  /// Takes ownership of the work (non-null).
  virtual FuserStatus wait(FuserWork *work) = 0;

  // Streams.
  virtual FuserStream *getCurrentStream() = 0;
  virtual void setCurrentStream(FuserStream *stream) = 0;
  virtual FuserStream *getPoolStream(int64_t index) = 0;
  virtual void synchronizeStream(FuserStream *stream) = 0;
  virtual FuserStream *wrapStream(void *nativeStream) = 0;

  // Graphs (fuser_graph_*): the graph handed to launch and destroy is one
  // this backend captured.
  virtual FuserStatus beginCapture() = 0;
  virtual FuserGraph *endCapture() = 0;
  virtual FuserStatus launchGraph(FuserGraph &graph) = 0;
  virtual void destroyGraph(FuserGraph *graph) = 0;

  // Timers on the current stream.
  virtual FuserTimer *createTimer() = 0;

  // GPU kernels, sizes checked by the caller (fuser_launch_kernel).
  virtual FuserStatus launchKernel(const char *image, const char *kernel,
                                   void **function, const int64_t grid[3],
                                   const int64_t block[3],
                                   void **parameters) = 0;

  // CUDA IPC.
  virtual FuserIpcHandles *ipcShare(FuserTeam &team,
                                    const FuserBuffer &buffer) = 0;
  virtual void *ipcPeerPointer(FuserIpcHandles &handles, int64_t peer) = 0;
  virtual FuserStatus ipcSignal(FuserIpcHandles &handles, int64_t peer) = 0;
  virtual FuserStatus ipcWait(FuserIpcHandles &handles, int64_t peer) = 0;
};

/// The backend the calls go to now.
Backend &getBackend();
/// The CUDA backend, started on first use: null (with an error) when the
/// runtime was built without it or it cannot start.
Backend *getCudaBackend();

} // namespace fuser::runtime

#endif // FUSER_RUNTIME_BACKEND_H
