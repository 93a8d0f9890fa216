//===- HostBackend.h - the runtime's host backend ------------*- C++ -*-===//
//
// CPU ranks: host memory, MPI communications completed by the host within
// the timeout, C++ library calls. Work runs when it is issued, in program
// order, so streams are handles without effect.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_HOST_HOSTBACKEND_H
#define FUSER_RUNTIME_HOST_HOSTBACKEND_H

#include "../Backend.h"

#include <map>

namespace fuser::runtime::host {

class HostBackend final : public Backend {
public:
  void release() override;
  FuserStatus synchronize() override { return FUSER_OK; }

  void *allocate(int64_t bytes, FuserMemory memory, bool zeroed) override;
  void deallocate(void *memory) override;
  void *getCachedBuffer(const std::string &name, int64_t bytes,
                        FuserMemory memory) override;
  int64_t getCachedBufferCount() const override { return cache.size(); }
  int64_t getDeviceAllocationCount() const override { return 0; }
  int64_t getDevicePeakBytes() const override { return 0; }
  int32_t getDeviceIndex() const override { return -1; }
  const std::string &getDeviceName() const override {
    static const std::string name = "cpu";
    return name;
  }
  FuserStatus copy(const FuserBuffer &source,
                   const FuserBuffer &target) override;

  FuserStatus matmul(const FuserBuffer &lhs, const FuserBuffer &rhs,
                     const FuserBuffer &out, bool accumulate,
                     FuserActivation activation) override;
  FuserStatus linear(const FuserBuffer &input, const FuserBuffer &weight,
                     const FuserBuffer *bias, const FuserBuffer &out,
                     bool accumulate, FuserActivation activation) override;
  FuserStatus reduceBlocks(const FuserBuffer &input, const FuserBuffer &out,
                           FuserReduction kind) override;
  /// HostAttention.cpp.
  FuserStatus sdpaForward(const FuserBuffer &query, const FuserBuffer &key,
                          const FuserBuffer &value, const FuserBuffer &out,
                          const FuserBuffer &logsumexp,
                          const AttentionOptions &options) override;
  FuserStatus sdpaBackward(const FuserBuffer &query, const FuserBuffer &key,
                           const FuserBuffer &value, const FuserBuffer &out,
                           const FuserBuffer &gradOut,
                           const FuserBuffer &logsumexp,
                           const FuserBuffer &gradQuery,
                           const FuserBuffer &gradKey,
                           const FuserBuffer &gradValue,
                           const AttentionOptions &options) override;

  FuserWork *allgather(FuserTeam &team, const FuserBuffer &input,
                       const FuserBuffer &output) override;
  FuserWork *allreduce(FuserTeam &team, const FuserBuffer &input,
                       const FuserBuffer &output, FuserReduction kind) override;
  FuserWork *reduceScatter(FuserTeam &team, const FuserBuffer &input,
                           const FuserBuffer &output,
                           FuserReduction kind) override;
  FuserWork *reduce(FuserTeam &team, const FuserBuffer &input,
                    const FuserBuffer &output, FuserReduction kind,
                    int64_t root) override;
  FuserWork *broadcast(FuserTeam &team, const FuserBuffer &input,
                       const FuserBuffer &output, int64_t root) override;
  FuserWork *gather(FuserTeam &team, const FuserBuffer &input,
                    const FuserBuffer &output, int64_t root) override;
  FuserWork *scatter(FuserTeam &team, const FuserBuffer &input,
                     const FuserBuffer &output, int64_t root) override;
  FuserWork *allToAll(FuserTeam &team, const FuserBuffer &input,
                      const FuserBuffer &output) override;
  FuserWork *pointToPoint(FuserTeam &team, const FuserBuffer &buffer,
                          int64_t peer, bool sending) override;
  FuserWork *group(FuserWork *const *works, int64_t count) override;
  FuserStatus wait(FuserWork *work) override;

  FuserStream *getCurrentStream() override { return &stream; }
  void setCurrentStream(FuserStream *) override {}
  FuserStream *getPoolStream(int64_t) override { return &stream; }
  void synchronizeStream(FuserStream *) override {}
  FuserStream *wrapStream(void *nativeStream) override;

  FuserStatus beginCapture() override;
  FuserGraph *endCapture() override;
  FuserStatus launchGraph(FuserGraph &graph) override;
  void destroyGraph(FuserGraph *graph) override;
  /// On the steady clock: work runs as it is issued.
  FuserTimer *createTimer() override;

  FuserStatus launchKernel(const char *image, const char *kernel,
                           void **function, const int64_t grid[3],
                           const int64_t block[3],
                           void **parameters) override;

  FuserIpcHandles *ipcShare(FuserTeam &team,
                            const FuserBuffer &buffer) override;
  void *ipcPeerPointer(FuserIpcHandles &handles, int64_t peer) override;
  FuserStatus ipcSignal(FuserIpcHandles &handles, int64_t peer) override;
  FuserStatus ipcWait(FuserIpcHandles &handles, int64_t peer) override;

private:
  struct CachedBuffer {
    void *memory;
    int64_t bytes;
  };
  std::map<std::string, CachedBuffer> cache;
  FuserStream stream;
};

} // namespace fuser::runtime::host

#endif // FUSER_RUNTIME_HOST_HOSTBACKEND_H
