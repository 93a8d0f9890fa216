//===- CudaIpc.cpp - buffers shared across a team through CUDA IPC -------===//
//
// A share exports the buffer and a semaphore array (one 32-bit counter per
// member) and opens every peer's, once: asking again for the same buffer
// and team returns the same handles, so repeated executions neither export
// nor open anything (a rank that reallocated a shared buffer would leave
// its peers writing to stale memory). Signals and waits are stream memory
// operations on the semaphores: no host synchronization inside a pipeline.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"
#include "../Teams.h"
#include "../World.h"
#include "../Topology.h"

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
/// What each member publishes: its buffer's allocation and the buffer's
/// place in it, and its semaphores.
struct Published {
  cudaIpcMemHandle_t allocation;
  int64_t offset;
  cudaIpcMemHandle_t semaphores;
};
} // namespace

void CudaBackend::releaseShare(IpcShare &share) {
  for (cudaEvent_t event : share.handles.lastSignal)
    if (event)
      returnEvent(event);
  share.handles.lastSignal.clear();
  for (void *peer : share.opened)
    cudaIpcCloseMemHandle(peer);
  share.opened.clear();
  if (share.ownSemaphores)
    cudaFree(share.ownSemaphores);
  share.ownSemaphores = nullptr;
}

void CudaBackend::releaseSharesOf(void *address, int64_t bytes) {
  char *begin = static_cast<char *>(address);
  for (auto share = ipcShares.begin(); share != ipcShares.end();)
    if (auto *data = static_cast<char *>(share->first.second);
        data >= begin && data < begin + bytes) {
      if (share->second->graphs)
        fuser_fail("hostir.deallocate: a symmetric buffer is freed while a "
                   "CUDA graph signals through its IPC share; destroy the "
                   "graph first");
      releaseShare(*share->second);
      share = ipcShares.erase(share);
    } else {
      ++share;
    }
}

FuserIpcHandles *CudaBackend::ipcShare(FuserTeam &team,
                                       const FuserBuffer &buffer) {
  const char *op = "hostir.ipc_share";
  char *data = getData(buffer);
  auto key = std::make_pair(team.members, static_cast<void *>(data));
  if (auto found = ipcShares.find(key); found != ipcShares.end())
    return &found->second->handles;
  if (refuseWhileCapturing(op, "sharing a buffer through CUDA IPC",
                           kSetUpBeforeCapture))
    return nullptr;
  if (std::optional<int64_t> remote = findNodeCrossing(team.members)) {
    fail("ipc_share: ranks " + std::to_string(team.members.front()) + " and " +
         std::to_string(*remote) + " of the team are on different nodes (" +
         (nodesAreSimulated() ? "FUSER_RANKS_PER_NODE" : "hosts") +
         "), and CUDA IPC reaches only GPUs of one node: compile the "
         "program for this topology (fuser-compile --ranks-per-node) or "
         "with --backend=nccl");
    return nullptr;
  }

  // Only memory from cudaMalloc can be exported: symmetric and cached
  // buffers.
  auto owner = allocations.upper_bound(data);
  if (owner == allocations.begin() ||
      (--owner, data >= static_cast<char *>(owner->first) + owner->second.bytes) ||
      (owner->second.memory != FUSER_MEMORY_SYMMETRIC && !owner->second.cached)) {
    fail("ipc_share: buffer " + describe(buffer) +
         " is not symmetric or cached memory of the CUDA backend; CUDA IPC "
         "exports only those");
    return nullptr;
  }
  auto share = std::make_unique<IpcShare>();
  int64_t size = static_cast<int64_t>(team.members.size());
  Published mine;
  mine.offset = data - static_cast<char *>(owner->first);
  if (checkCuda(cudaMalloc(&share->ownSemaphores, size * sizeof(uint32_t)), op,
                "cudaMalloc") ||
      checkCuda(cudaMemsetAsync(share->ownSemaphores, 0,
                                size * sizeof(uint32_t), getStream()),
                op, "cudaMemsetAsync") ||
      // Peers may signal as soon as the handles are exchanged.
      synchronize() ||
      checkCuda(cudaIpcGetMemHandle(&mine.allocation, owner->first), op,
                "cudaIpcGetMemHandle") ||
      checkCuda(cudaIpcGetMemHandle(&mine.semaphores, share->ownSemaphores),
                op, "cudaIpcGetMemHandle")) {
    releaseShare(*share);
    return nullptr;
  }
  ++deviceAllocations;
  std::vector<Published> everyone(size);
  if (exchangeAmong(team, &mine, sizeof(Published), everyone.data(),
                    "ipc_share: exchanging the IPC handles of a team") !=
      FUSER_OK) {
    releaseShare(*share);
    return nullptr;
  }
  FuserIpcHandles &handles = share->handles;
  handles.members = team.members;
  handles.index = team.index;
  handles.buffers.assign(size, nullptr);
  handles.semaphores.assign(size, nullptr);
  handles.signalled.assign(size, 0);
  handles.awaited.assign(size, 0);
  handles.lastSignal.assign(size, nullptr);
  handles.lastSignalStream.assign(size, nullptr);
  for (int64_t member = 0; member < size; ++member) {
    if (member == team.index) {
      handles.buffers[member] = data;
      handles.semaphores[member] = share->ownSemaphores;
      continue;
    }
    void *allocation = nullptr, *semaphores = nullptr;
    if (checkCuda(cudaIpcOpenMemHandle(&allocation, everyone[member].allocation,
                                       cudaIpcMemLazyEnablePeerAccess),
                  op, "cudaIpcOpenMemHandle")) {
      releaseShare(*share);
      return nullptr;
    }
    share->opened.push_back(allocation);
    if (checkCuda(cudaIpcOpenMemHandle(&semaphores, everyone[member].semaphores,
                                       cudaIpcMemLazyEnablePeerAccess),
                  op, "cudaIpcOpenMemHandle")) {
      releaseShare(*share);
      return nullptr;
    }
    share->opened.push_back(semaphores);
    handles.buffers[member] =
        static_cast<char *>(allocation) + everyone[member].offset;
    handles.semaphores[member] = static_cast<uint32_t *>(semaphores);
  }
  FuserIpcHandles *result = &share->handles;
  ipcShares[key] = std::move(share);
  return result;
}

static bool checkIpcPeer(const char *op, const FuserIpcHandles &handles,
                         int64_t peer) {
  if (peer >= 0 && peer < static_cast<int64_t>(handles.members.size()) &&
      peer != handles.index)
    return true;
  fail(std::string(op) + ": peer " + std::to_string(peer) +
       " is not another member of a team of " +
       std::to_string(handles.members.size()));
  return false;
}

void *CudaBackend::ipcPeerPointer(FuserIpcHandles &handles, int64_t peer) {
  if (!checkIpcPeer("ipc_peer_buffer", handles, peer))
    return nullptr;
  return handles.buffers[peer];
}

FuserStatus CudaBackend::ipcSignal(FuserIpcHandles &handles, int64_t peer) {
  if (!checkIpcPeer("ipc_signal", handles, peer))
    return FUSER_FAILED;
  const char *op = "hostir.ipc_signal";
  if (checkCapturedStream(op))
    return FUSER_FAILED;
  cudaEvent_t &last = handles.lastSignal[peer];
  if (last && handles.lastSignalStream[peer] != getStream() &&
      checkCuda(cudaStreamWaitEvent(getStream(), last, 0), op,
                "cudaStreamWaitEvent"))
    return FUSER_FAILED;
  // This rank's counter in the peer's array; the write follows the work
  // before it on the stream (the default flags keep the memory barrier).
  uint32_t *counter = handles.semaphores[peer] + handles.index;
  if (checkDriver(driver.streamWriteValue32(
                      getStream(), reinterpret_cast<CUdeviceptr>(counter),
                      ++handles.signalled[peer], CU_STREAM_WRITE_VALUE_DEFAULT),
                  op, "cuStreamWriteValue32"))
    return FUSER_FAILED;
  if (!last && !(last = takeEvent()))
    return FUSER_FAILED;
  handles.lastSignalStream[peer] = getStream();
  return checkCuda(cudaEventRecord(last, getStream()), op, "cudaEventRecord");
}

FuserStatus CudaBackend::ipcWait(FuserIpcHandles &handles, int64_t peer) {
  if (!checkIpcPeer("ipc_wait", handles, peer))
    return FUSER_FAILED;
  if (checkCapturedStream("hostir.ipc_wait"))
    return FUSER_FAILED;
  uint32_t *counter = handles.semaphores[handles.index] + peer;
  return checkDriver(driver.streamWaitValue32(
                         getStream(), reinterpret_cast<CUdeviceptr>(counter),
                         ++handles.awaited[peer], CU_STREAM_WAIT_VALUE_GEQ),
                     "hostir.ipc_wait", "cuStreamWaitValue32");
}
