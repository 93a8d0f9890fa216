//===- CudaBackend.cpp - start, streams, synchronization, release --------===//

#include "CudaBackend.h"
#include "MatmulEngine.h"
#include "../Internal.h"
#include "../Topology.h"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <thread>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
/// The size of the stream pool: larger indices wrap around it.
constexpr int64_t kMaxPoolStreams = 64;

CudaBackend *activeBackend = nullptr;

/// How many ranks of a node share each GPU: FUSER_RANKS_PER_GPU, 1 unless
/// set. Sharing is for checking what multi-rank programs compute on fewer
/// GPUs; nothing else about it is fast (docs/runtime.md).
std::optional<int> getRanksPerGpu() {
  const char *value = std::getenv("FUSER_RANKS_PER_GPU");
  if (!value)
    return 1;
  char *end = nullptr;
  long ranks = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || ranks < 1 || ranks > 64) {
    fail(std::string("FUSER_RANKS_PER_GPU is '") + value +
         "'; it takes the number of ranks that share each GPU, 1 to 64");
    return std::nullopt;
  }
  return static_cast<int>(ranks);
}

template <typename Function>
FuserStatus resolve(Function &function, const char *symbol) {
  void *address = findDriverEntryPoint(symbol);
  if (!address)
    return fail(std::string("the CUDA driver has no ") + symbol);
  function = reinterpret_cast<Function>(address);
  return FUSER_OK;
}
} // namespace

void *cuda::findDriverEntryPoint(const char *symbol) {
  void *address = nullptr;
  cudaDriverEntryPointQueryResult found;
  cudaError_t error = cudaGetDriverEntryPointByVersion(
      symbol, &address, /*cudaVersion=*/12000, cudaEnableDefault, &found);
  if (error != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return address;
}

CudaBackend &cuda::getActiveCudaBackend() { return *activeBackend; }

std::unique_ptr<Backend> fuser::runtime::createCudaBackend() {
  return CudaBackend::create();
}

std::unique_ptr<CudaBackend> CudaBackend::create() {
  std::optional<int> ranksPerGpu = getRanksPerGpu();
  if (!ranksPerGpu)
    return nullptr;
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    fail(std::string("the CUDA backend cannot start: ") +
         (error != cudaSuccess
              ? cudaGetErrorString(error)
              : "no GPU is visible (CUDA_VISIBLE_DEVICES names the GPUs "
                "ranks may use)"));
    cudaGetLastError();
    return nullptr;
  }
  auto [localRank, localSize] = getHostLocalRank();
  int device = static_cast<int>(localRank / *ranksPerGpu);
  if (device >= count) {
    fail("rank " + std::to_string(fuser_rank()) + " is rank " +
         std::to_string(localRank) + " of " + std::to_string(localSize) +
         " on its node, but only " + std::to_string(count) +
         " GPUs are visible: start at most " + std::to_string(*ranksPerGpu) +
         " rank" + (*ranksPerGpu > 1 ? "s" : "") +
         " per GPU (FUSER_RANKS_PER_GPU)");
    return nullptr;
  }
  // NCCL refuses two ranks of one host on one GPU: ranks that share GPUs
  // tell it they are hosts of their own, and talk through sockets. Ranks
  // of simulated nodes tell it their node, so that between nodes it takes
  // its network transport as between hosts.
  if (!std::getenv("NCCL_HOSTID")) {
    if (*ranksPerGpu > 1)
      setenv("NCCL_HOSTID",
             ("fuser-rank-" + std::to_string(fuser_rank())).c_str(),
             /*overwrite=*/0);
    else if (nodesAreSimulated())
      setenv("NCCL_HOSTID",
             ("fuser-node-" + std::to_string(fuser_node_of_rank(fuser_rank())))
                 .c_str(),
             /*overwrite=*/0);
  }
  std::unique_ptr<CudaBackend> backend(new CudaBackend());
  backend->device = device;
  if (checkCuda(cudaSetDevice(backend->device), "fuser_use_backend",
                "cudaSetDevice") ||
      checkCuda(cudaStreamCreateWithFlags(&backend->mainStream.stream,
                                          cudaStreamNonBlocking),
                "fuser_use_backend", "cudaStreamCreateWithFlags") ||
      resolve(backend->driver.streamWriteValue32, "cuStreamWriteValue32") ||
      resolve(backend->driver.streamWaitValue32, "cuStreamWaitValue32") ||
      resolve(backend->driver.moduleLoadDataEx, "cuModuleLoadDataEx") ||
      resolve(backend->driver.moduleGetFunction, "cuModuleGetFunction") ||
      resolve(backend->driver.moduleUnload, "cuModuleUnload") ||
      resolve(backend->driver.launchKernel, "cuLaunchKernel") ||
      resolve(backend->driver.graphNodeGetType, "cuGraphNodeGetType") ||
      resolve(backend->driver.graphBatchMemOpNodeGetParams,
              "cuGraphBatchMemOpNodeGetParams") ||
      resolve(backend->driver.graphExecBatchMemOpNodeSetParams,
              "cuGraphExecBatchMemOpNodeSetParams"))
    return nullptr;
  cudaDeviceProp properties;
  if (checkCuda(cudaGetDeviceProperties(&properties, backend->device),
                "fuser_use_backend", "cudaGetDeviceProperties"))
    return nullptr;
  backend->deviceName = properties.name;

  // The pool keeps what programs free (no release threshold), so that
  // steady-state executions reuse memory instead of asking the device.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = backend->device;
  uint64_t threshold = UINT64_MAX;
  if (checkCuda(cudaMemPoolCreate(&backend->pool, &props), "fuser_use_backend",
                "cudaMemPoolCreate") ||
      checkCuda(cudaMemPoolSetAttribute(backend->pool,
                                        cudaMemPoolAttrReleaseThreshold,
                                        &threshold),
                "fuser_use_backend", "cudaMemPoolSetAttribute"))
    return nullptr;
  activeBackend = backend.get();
  return backend;
}

CudaBackend::~CudaBackend() { release(); }

void CudaBackend::release() {
  if (!mainStream.stream)
    return;
  cudaSetDevice(device);
  // A capture nobody ended is dropped: its streams must run again.
  if (capture) {
    cudaGraph_t abandoned = nullptr;
    if (cudaStreamEndCapture(capture->stream, &abandoned) == cudaSuccess)
      cudaGraphDestroy(abandoned);
    cudaGetLastError();
    capture.reset();
  }
  // Work that never completes (a wait whose peer died) would block a
  // device-wide synchronization forever: wait boundedly, and leave what is
  // still in use to the end of the process.
  if (!streamsFinish()) {
    abortCommunicators();
    mainStream.stream = nullptr;
    if (activeBackend == this)
      activeBackend = nullptr;
    return;
  }
  for (auto &graph : graphs)
    releaseGraph(*graph);
  graphs.clear();
  for (auto &[key, share] : ipcShares)
    releaseShare(*share);
  ipcShares.clear();
  unloadKernelModules();
  finalizeCommunicators();
  matmulEngine.reset();
  attentionEngine.reset();
  for (auto &[address, allocation] : allocations) {
    if (allocation.memory == FUSER_MEMORY_HOST)
      cudaFreeHost(address);
    else if (allocation.memory == FUSER_MEMORY_SYMMETRIC || allocation.cached)
      cudaFree(address);
    else
      cudaFreeAsync(address, mainStream.stream);
  }
  allocations.clear();
  for (auto &[bytes, address] : freeSymmetric)
    cudaFree(address);
  freeSymmetric.clear();
  cachedBuffers.clear();
  cudaStreamSynchronize(mainStream.stream);
  if (pool)
    cudaMemPoolDestroy(pool);
  pool = nullptr;
  for (cudaEvent_t event : allEvents)
    cudaEventDestroy(event);
  allEvents.clear();
  freeEvents.clear();
  for (auto &stream : poolStreams)
    cudaStreamDestroy(stream->stream);
  poolStreams.clear();
  wrappedStreams.clear();
  cudaStreamDestroy(mainStream.stream);
  mainStream.stream = nullptr;
  current = &mainStream;
  if (activeBackend == this)
    activeBackend = nullptr;
}

bool CudaBackend::streamsFinish() {
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(getTimeoutSeconds());
  std::vector<cudaStream_t> streams{mainStream.stream};
  // The caller's streams too: programs issued work on them.
  for (auto *owned : {&poolStreams, &wrappedStreams})
    for (auto &stream : *owned)
      streams.push_back(stream->stream);
  for (cudaStream_t stream : streams)
    while (cudaStreamQuery(stream) == cudaErrorNotReady)
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
  return true;
}

FuserStatus CudaBackend::synchronize() {
  cudaStream_t stream = getStream();
  return awaitCompletion([stream] { return cudaStreamQuery(stream); },
                         "fuser_synchronize", "cudaStreamQuery");
}

FuserStatus CudaBackend::awaitCompletion(
    const std::function<cudaError_t()> &query, const char *op,
    const char *call) {
  if (refuseWhileCapturing(op, "waiting for the device",
                           "the host blocks until the work is done, and the "
                           "captured work does not run before a replay"))
    return FUSER_FAILED;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(getTimeoutSeconds());
  while (true) {
    cudaError_t state = query();
    if (state == cudaSuccess)
      return FUSER_OK;
    if (state != cudaErrorNotReady)
      return checkCuda(state, op, call);
    // A failed communicator never completes its work: report it now.
    for (auto &[members, team] : communicators) {
      ncclResult_t result = ncclSuccess;
      if (team.posting)
        ncclCommGetAsyncError(team.posting, &result);
      if (result != ncclSuccess && result != ncclInProgress) {
        abortCommunicators();
        return checkNccl(result, op, "NCCL communication");
      }
    }
    if (std::chrono::steady_clock::now() > deadline) {
      abortCommunicators();
      return fail("the device work of this rank did not complete within " +
                  describeTimeout() +
                  ": a communication or an IPC wait "
                  "whose peer failed or never posted its side");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

FuserStatus CudaBackend::refuseWhileCapturing(const char *op, const char *call,
                                              const std::string &reason) const {
  if (!capture)
    return FUSER_OK;
  return fail(std::string(op) + ": " + call +
              " cannot be captured into a CUDA graph: " + reason);
}

FuserStatus CudaBackend::checkCapturedStream(const char *op) {
  if (!capture)
    return FUSER_OK;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (checkCuda(cudaStreamIsCapturing(getStream(), &status), op,
                "cudaStreamIsCapturing"))
    return FUSER_FAILED;
  if (status == cudaStreamCaptureStatusActive)
    return FUSER_OK;
  if (status == cudaStreamCaptureStatusInvalidated)
    return fail(std::string(op) +
                ": the CUDA graph capture was invalidated by an earlier call "
                "that cannot be captured");
  return fail(std::string(op) +
              ": work issued on a stream outside the CUDA graph capture would "
              "run once, now, instead of at each replay; a stream joins the "
              "capture by waiting for a captured stream "
              "(hostir.synchronize_stream) before it issues work");
}

void CudaBackend::finalizeCommunicators() {
  // Nonblocking communicators finalize in the background: a communicator is
  // destroyed once its finalization has succeeded, aborted otherwise. (The
  // device's work is done by now: a blocking one's returns at once.)
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(getTimeoutSeconds());
  for (ncclComm_t communicator : takeCommunicators()) {
    ncclResult_t state = ncclCommFinalize(communicator);
    while (state == ncclInProgress &&
           std::chrono::steady_clock::now() < deadline &&
           ncclCommGetAsyncError(communicator, &state) == ncclSuccess)
      std::this_thread::yield();
    if (state == ncclSuccess)
      ncclCommDestroy(communicator);
    else
      ncclCommAbort(communicator);
  }
}

void CudaBackend::abortCommunicators() {
  // Aborting frees device memory, which waits for the device: behind a
  // stream that waits for a peer that never comes, it would never return.
  // It runs beside the host program, which reports the failure at once.
  std::vector<ncclComm_t> aborted = takeCommunicators();
  if (!aborted.empty())
    std::thread([aborted] {
      for (ncclComm_t communicator : aborted)
        ncclCommAbort(communicator);
    }).detach();
}

void CudaBackend::setCurrentStream(FuserStream *stream) {
  current = static_cast<CudaStream *>(stream);
}

FuserStream *CudaBackend::getPoolStream(int64_t index) {
  // Compiled programs use the stream without checking it: a bad index
  // ends every rank with a message.
  if (index < 0)
    fuser_fail(("stream_from_pool: negative index " + std::to_string(index))
                   .c_str());
  index %= kMaxPoolStreams;
  while (static_cast<int64_t>(poolStreams.size()) <= index) {
    auto stream = std::make_unique<CudaStream>();
    if (checkCuda(cudaStreamCreateWithFlags(&stream->stream,
                                            cudaStreamNonBlocking),
                  "hostir.stream_from_pool", "cudaStreamCreateWithFlags"))
      fuser_fail(fuser_last_error());
    poolStreams.push_back(std::move(stream));
  }
  return poolStreams[index].get();
}

void CudaBackend::synchronizeStream(FuserStream *stream) {
  cudaEvent_t event = takeEvent();
  if (!event)
    fuser_fail(fuser_last_error());
  // Stream-ordered: the current stream waits, the host does not.
  if (checkCuda(cudaEventRecord(event, static_cast<CudaStream *>(stream)->stream),
                "hostir.synchronize_stream", "cudaEventRecord") ||
      checkCuda(cudaStreamWaitEvent(getStream(), event, 0),
                "hostir.synchronize_stream", "cudaStreamWaitEvent"))
    fuser_fail(fuser_last_error());
  returnEvent(event);
}

FuserStream *CudaBackend::wrapStream(void *nativeStream) {
  for (auto &wrapped : wrappedStreams)
    if (wrapped->stream == nativeStream)
      return wrapped.get();
  auto stream = std::make_unique<CudaStream>();
  stream->stream = static_cast<cudaStream_t>(nativeStream);
  wrappedStreams.push_back(std::move(stream));
  return wrappedStreams.back().get();
}

cudaEvent_t CudaBackend::takeEvent() {
  if (!freeEvents.empty()) {
    cudaEvent_t event = freeEvents.back();
    freeEvents.pop_back();
    return event;
  }
  cudaEvent_t event = nullptr;
  if (checkCuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                "hostir.wait", "cudaEventCreateWithFlags"))
    return nullptr;
  allEvents.push_back(event);
  return event;
}

// A wait enqueued on an event keeps the state the event had when it was
// enqueued, so the event may be recorded again at once.
void CudaBackend::returnEvent(cudaEvent_t event) { freeEvents.push_back(event); }
