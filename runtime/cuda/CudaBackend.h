//===- CudaBackend.h - the runtime's CUDA backend ------------*- C++ -*-===//
//
// One GPU per rank. Device memory from a stream-ordered pool, a fixed pool
// of non-blocking streams, cuBLASLt for library calls, one NCCL
// communicator per team, CUDA IPC with stream memory operations for
// signals. Each concern has its own file in this folder.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_CUDA_CUDABACKEND_H
#define FUSER_RUNTIME_CUDA_CUDABACKEND_H

#include "../Backend.h"

#include <cublasLt.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

/// What one rank knows of a shared buffer.
struct FuserIpcHandles {
  std::vector<int64_t> members;
  int64_t index = 0;
  /// Each member's address of the buffer's aligned pointer (this rank's own
  /// at `index`), and of its semaphore array.
  std::vector<char *> buffers;
  std::vector<uint32_t *> semaphores;
  /// Signals sent to and waits issued for each member (signals count).
  std::vector<uint32_t> signalled, awaited;
  /// Each member's last signal, recorded where it was issued: signals to a
  /// member from different streams are written in program order, or a
  /// later count could overtake an earlier one.
  std::vector<cudaEvent_t> lastSignal;
  std::vector<cudaStream_t> lastSignalStream;
};

namespace fuser::runtime::cuda {

/// A CUDA stream of the backend (pool streams and wrapped caller streams).
struct CudaStream : FuserStream {
  cudaStream_t stream = nullptr;
};

/// Records "hostir.<op>: <call> failed: <CUDA's message>" as the last
/// error (fuser_fail adds the rank) and returns FUSER_FAILED; FUSER_OK for
/// cudaSuccess.
FuserStatus checkCuda(cudaError_t error, const char *op, const char *call);
/// The same for a driver call, followed by `detail` (what the driver said
/// besides its result) when there is one.
FuserStatus checkDriver(CUresult result, const char *op, const char *call,
                        const std::string &detail = {});
FuserStatus checkNccl(ncclResult_t result, const char *op, const char *call);
FuserStatus checkCublas(cublasStatus_t status, const char *op,
                        const char *call);

/// Why what programs set up on first use (communicators, IPC shares,
/// cached buffers, workspaces, kernel modules) cannot be captured.
inline constexpr char kSetUpBeforeCapture[] =
    "it is set up on first use, which a replay would not repeat; run the "
    "program once before capturing it";

/// cuBLASLt's handle, the workspace (allocated once) and the algorithm
/// chosen for each problem (CudaLibrary.cpp).
class MatmulEngine;
/// cuDNN's handle and the plans of fused attention (CudnnAttention.h;
/// never made in a runtime built without cuDNN).
class AttentionEngine;

/// The driver's entry point `symbol` (of its CUDA 12 version), or null
/// when the driver has none. The runtime does not link libcuda, so that
/// machines without a GPU still load it: driver calls go through the
/// runtime API.
void *findDriverEntryPoint(const char *symbol);

/// Driver entry points for stream memory operations and GPU kernels.
struct DriverCalls {
  decltype(&cuStreamWriteValue32) streamWriteValue32 = nullptr;
  decltype(&cuStreamWaitValue32) streamWaitValue32 = nullptr;
  decltype(&cuModuleLoadDataEx) moduleLoadDataEx = nullptr;
  decltype(&cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&cuModuleUnload) moduleUnload = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuGraphNodeGetType) graphNodeGetType = nullptr;
  decltype(&cuGraphBatchMemOpNodeGetParams) graphBatchMemOpNodeGetParams =
      nullptr;
  decltype(&cuGraphExecBatchMemOpNodeSetParams)
      graphExecBatchMemOpNodeSetParams = nullptr;
};

/// A posted communication: an event recorded on the stream it ran on, or,
/// for sends and receives, what to post once their group is known (NCCL
/// needs the pairs of a group posted together, or two ranks that both
/// send first wait on each other forever).
struct CudaWork : FuserWork {
  cudaEvent_t event = nullptr;
  struct PointToPoint {
    ncclComm_t communicator;
    void *data;
    size_t count;
    ncclDataType_t type;
    int peer;
    bool sending;
  };
  std::vector<PointToPoint> pending;
  cudaStream_t stream = nullptr;
};

/// A buffer shared across a team: the handles and what to release.
struct IpcShare {
  FuserIpcHandles handles;
  /// The peers' allocations this rank opened (to close), its semaphores.
  std::vector<void *> opened;
  uint32_t *ownSemaphores = nullptr;
  /// Graphs whose replays signal or wait through it.
  int64_t graphs = 0;
};

/// A capture under way (fuser_graph_begin_capture).
struct Capture {
  /// The stream it began on, and ends on.
  cudaStream_t stream = nullptr;
  /// The buffers allocated during the capture: the graph owns them.
  std::vector<void *> buffers;
  /// Each IPC share's signal and wait counts when the capture began.
  struct Counts {
    IpcShare *share;
    std::vector<uint32_t> signalled, awaited;
  };
  std::vector<Counts> ipcCounts;
};

/// A captured execution: the executable graph, the buffers it owns, and the
/// IPC semaphore operations it holds, renumbered for each replay.
struct CudaGraph : FuserGraph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<void *> buffers;
  /// A signal or wait count the capture advanced. Semaphores count, so a
  /// replay must signal and wait for the counts that follow the last ones
  /// issued (by a replay or not), not the recorded ones.
  struct Counter {
    /// The count in the share's handles (signalled or awaited).
    uint32_t *count;
    /// The semaphore its operations write or wait on.
    CUdeviceptr semaphore;
    /// The count when the capture began, and how much one replay
    /// advances it.
    uint32_t atCapture, advance;
    /// What the executable graph adds to the captured values now.
    uint32_t applied = 0;
  };
  std::vector<Counter> counters;
  /// A node of stream memory operations, as captured, and the counter each
  /// of its operations counts on (the number of counters for none).
  struct MemOpNode {
    CUgraphNode node;
    CUDA_BATCH_MEM_OP_NODE_PARAMS params;
    std::vector<CUstreamBatchMemOpParams> operations;
    std::vector<size_t> counterOf;
  };
  std::vector<MemOpNode> memOpNodes;
  /// The shares whose semaphores the graph uses (each counts the graph).
  std::vector<IpcShare *> shares;
};

class CudaBackend final : public Backend {
public:
  /// Picks the rank's GPU and creates the streams; null (with an error)
  /// when that fails.
  static std::unique_ptr<CudaBackend> create();
  ~CudaBackend() override;

  void release() override;
  FuserStatus synchronize() override;

  void *allocate(int64_t bytes, FuserMemory memory, bool zeroed) override;
  void deallocate(void *memory) override;
  void *getCachedBuffer(const std::string &name, int64_t bytes,
                        FuserMemory memory) override;
  int64_t getCachedBufferCount() const override;
  int64_t getDeviceAllocationCount() const override;
  int64_t getDevicePeakBytes() const override { return peakDeviceBytes; }
  int32_t getDeviceIndex() const override { return device; }
  const std::string &getDeviceName() const override { return deviceName; }
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
  /// cuDNN fused attention (CudnnAttention.cpp, or NoCudnn.cpp
  /// without cuDNN).
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

  FuserStream *getCurrentStream() override { return current; }
  void setCurrentStream(FuserStream *stream) override;
  FuserStream *getPoolStream(int64_t index) override;
  void synchronizeStream(FuserStream *stream) override;
  FuserStream *wrapStream(void *nativeStream) override;

  FuserStatus beginCapture() override;
  FuserGraph *endCapture() override;
  FuserStatus launchGraph(FuserGraph &graph) override;
  void destroyGraph(FuserGraph *graph) override;
  /// CUDA events on the current stream (CudaTimers.cpp).
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

  /// The CUDA stream work is issued on now.
  cudaStream_t getStream() const { return current->stream; }

  /// An event from the backend's pool (events are reused: one per
  /// communication would create and destroy them at every execution).
  cudaEvent_t takeEvent();
  void returnEvent(cudaEvent_t event);
  MatmulEngine &getMatmulEngine();
  AttentionEngine &getAttentionEngine();
  /// Counts a device allocation of `bytes` made outside the pool and kept
  /// (workspaces, dropout seeds).
  void countDeviceAllocation(int64_t bytes) {
    ++deviceAllocations;
    holdDeviceBytes(bytes);
  }
  /// Whether a CUDA graph is being captured (fuser_graph_begin_capture).
  bool isCapturing() const { return capture != nullptr; }

  /// While a graph is captured, fails with "<op>: <call> cannot be captured
  /// into a CUDA graph: <reason>"; FUSER_OK otherwise. What cannot be
  /// replayed is refused before CUDA sees it, so that the message names it.
  FuserStatus refuseWhileCapturing(const char *op, const char *call,
                                   const std::string &reason) const;
  /// While a graph is captured, fails unless the current stream takes part
  /// in the capture: work on another stream would run once, now.
  FuserStatus checkCapturedStream(const char *op);
  /// Waits until `query` (a stream's or an event's) no longer answers
  /// cudaErrorNotReady, bounded by the timeout; reports a failed NCCL
  /// communicator at once. Refused during a capture.
  FuserStatus awaitCompletion(const std::function<cudaError_t()> &query,
                              const char *op, const char *call);

private:
  CudaBackend() = default;
  struct Allocation {
    FuserMemory memory;
    int64_t bytes;
    /// Cached buffers live until fuser_finalize.
    bool cached = false;
    /// Buffers allocated during a capture live as long as its graph.
    bool graphOwned = false;
  };

  /// The team's NCCL communicator that posts communications, created on
  /// first use (every member asks for it at the same communication).
  ncclComm_t getCommunicator(FuserTeam &team, const char *op);
  /// Every communicator, each team's posting one before the one it was
  /// split from, and forgets them.
  std::vector<ncclComm_t> takeCommunicators();
  /// Waits, at most `seconds` (the timeout unless given), until the NCCL
  /// call on `communicator` that returned `result` is done (a nonblocking
  /// communicator's calls return before), aborting every communicator when
  /// it fails or is not done in time.
  FuserStatus settle(ncclComm_t communicator, ncclResult_t result,
                     const char *op, const char *call, double seconds = 0);
  /// Records the event of a communication posted on the current stream.
  FuserWork *finishPost(CudaWork *work);
  /// Posts `launch(communicator, stream)`, an NCCL call (or group) on the
  /// team's communicator and the current stream, as the hostir op `op`.
  FuserWork *
  postCollective(FuserTeam &team, const char *op, const char *call,
                 const std::function<ncclResult_t(ncclComm_t, cudaStream_t)>
                     &launch);
  FuserStatus postPending(CudaWork &work);
  /// Whether the work of every stream of the backend completes within the
  /// timeout.
  bool streamsFinish();
  /// Flushes and destroys the communicators (fuser_finalize).
  void finalizeCommunicators();
  /// Aborts the communicators, in the background: after a timeout, their
  /// work can no longer complete.
  void abortCommunicators();
  /// Closes what a share opened and frees its semaphores.
  void releaseShare(IpcShare &share);
  /// Releases the shares of buffers within the allocation at `address`.
  void releaseSharesOf(void *address, int64_t bytes);
  /// Loads `kernel` of `image` (the module once) and stores it in the
  /// program's slot `function` (CudaKernels.cpp).
  FuserStatus loadKernel(const char *image, const char *kernel,
                         void **function);
  /// Unloads the modules and clears the program slots that held their
  /// kernels (fuser_finalize).
  void unloadKernelModules();
  /// Forgets each share's last signal: a capture must not wait for events
  /// recorded outside it, nor later work for events recorded inside it
  /// (CudaGraphs.cpp).
  void forgetLastSignals();
  /// Gives the graph the counters the capture advanced and the shares they
  /// belong to, and puts each count back to where it was when the capture
  /// began (nothing was executed).
  void takeCapturedCounters(Capture &ended, CudaGraph &graph);
  /// Finds the graph's stream memory operations on the counters'
  /// semaphores; fails on memory allocation nodes.
  FuserStatus inspectCapturedNodes(CudaGraph &graph);
  /// Sets the semaphore operations of the executable graph to the counts
  /// that follow the ones issued so far.
  FuserStatus renumberSemaphores(CudaGraph &graph);
  /// Frees the graph's executable and its buffers; the work that uses them
  /// must be done.
  void releaseGraph(CudaGraph &graph);

  int device = 0;
  std::string deviceName;
  DriverCalls driver;
  /// The stream-ordered pool of device allocations.
  cudaMemPool_t pool = nullptr;
  /// The pool's reserved bytes after the last allocation: growth is a
  /// device allocation.
  size_t reservedHighWater = 0;
  int64_t deviceAllocations = 0;
  /// Bytes of device memory in live buffers (pool buffers count until
  /// they are freed, stream-ordered or not, as PyTorch's allocator counts
  /// its tensors), and the most there were.
  int64_t liveDeviceBytes = 0, peakDeviceBytes = 0;
  void holdDeviceBytes(int64_t bytes) {
    liveDeviceBytes += bytes;
    peakDeviceBytes = std::max(peakDeviceBytes, liveDeviceBytes);
  }
  /// The stream of the first program (the legacy default stream is never
  /// used: pool streams are non-blocking).
  CudaStream mainStream;
  CudaStream *current = &mainStream;
  std::vector<std::unique_ptr<CudaStream>> poolStreams;
  std::vector<std::unique_ptr<CudaStream>> wrappedStreams;
  /// Every live allocation by address: how it was obtained.
  std::map<void *, Allocation> allocations;
  /// Symmetric buffers released by the program, by size, for reuse.
  std::multimap<int64_t, void *> freeSymmetric;
  std::map<std::string, std::pair<void *, int64_t>> cachedBuffers;
  std::map<std::pair<std::vector<int64_t>, void *>, std::unique_ptr<IpcShare>>
      ipcShares;
  /// A team's NCCL communicators. `setup` is nonblocking, so that setting
  /// the team up is bounded by the timeout even when a peer never joins.
  /// `posting`, split from it with its resources shared, posts every
  /// communication with blocking calls: a nonblocking communicator launches
  /// each call from a thread it starts for it, which costs the host tens of
  /// microseconds per communication.
  struct TeamCommunicators {
    ncclComm_t setup = nullptr;
    ncclComm_t posting = nullptr;
  };
  std::map<std::vector<int64_t>, TeamCommunicators> communicators;
  std::vector<cudaEvent_t> freeEvents, allEvents;
  std::unique_ptr<MatmulEngine> matmulEngine;
  /// Deleted through the function that made it: only a runtime built with
  /// cuDNN knows the type.
  std::unique_ptr<AttentionEngine, void (*)(AttentionEngine *)>
      attentionEngine{nullptr, nullptr};
  /// Guards the loaded modules and the filled slots: programs on several
  /// threads may launch a kernel for the first time together.
  std::mutex kernelMutex;
  /// The PTX modules loaded so far, by the address of their image.
  std::map<const char *, CUmodule> kernelModules;
  /// The program slots launches stored a kernel in.
  std::vector<void **> kernelSlots;
  /// The capture under way, if any.
  std::unique_ptr<Capture> capture;
  /// The graphs alive.
  std::vector<std::unique_ptr<CudaGraph>> graphs;
};

/// The backend as the library calls see it (only while it is the one in
/// use).
CudaBackend &getActiveCudaBackend();

} // namespace fuser::runtime::cuda

#endif // FUSER_RUNTIME_CUDA_CUDABACKEND_H
