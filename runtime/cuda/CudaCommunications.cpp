//===- CudaCommunications.cpp - collectives and send/recv over NCCL ------===//
//
// One NCCL communicator per team, created once: the team's first member
// makes the unique id and broadcasts it over the team's MPI communicator.
// It is created nonblocking, so that setting it up is bounded by the
// timeout instead of hanging on a peer that failed, and split into a
// blocking communicator that shares its resources and posts the
// communications: NCCL launches each call of a nonblocking communicator
// from a thread it starts for the call, tens of microseconds of host time
// per communication. A communication runs on the stream current when it is
// posted; its work handle is an event there.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"
#include "../Teams.h"
#include "../World.h"

#include <algorithm>
#include <chrono>
#include <thread>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
/// The least time a communicator's creation is given.
constexpr double kCommunicatorSetupSeconds = 60;

ncclDataType_t getNcclType(FuserDType dtype) {
  switch (dtype) {
  case FUSER_F32:
    return ncclFloat32;
  case FUSER_F16:
    return ncclFloat16;
  case FUSER_BF16:
    return ncclBfloat16;
  case FUSER_F64:
    return ncclFloat64;
  case FUSER_I64:
    return ncclInt64;
  case FUSER_I32:
    return ncclInt32;
  case FUSER_I8:
    return ncclInt8;
  case FUSER_I1:
    return ncclUint8;
  }
  return ncclUint8;
}

/// Booleans combine as logical or (sum, max) and and (prod, min).
ncclRedOp_t getNcclOp(FuserReduction kind, FuserDType dtype) {
  bool logical = dtype == FUSER_I1;
  switch (kind) {
  case FUSER_SUM:
    return logical ? ncclMax : ncclSum;
  case FUSER_PROD:
    return logical ? ncclMin : ncclProd;
  case FUSER_MAX:
    return ncclMax;
  case FUSER_MIN:
    return ncclMin;
  case FUSER_AVG:
    return logical ? ncclMax : ncclAvg;
  }
  return ncclSum;
}

size_t countOf(const FuserBuffer &buffer) {
  return static_cast<size_t>(getNumElements(buffer));
}

std::string describeTeam(const FuserTeam &team) {
  return " on a team of " + std::to_string(team.members.size());
}
} // namespace

FuserStatus CudaBackend::settle(ncclComm_t communicator, ncclResult_t result,
                                const char *op, const char *call,
                                double seconds) {
  if (seconds <= 0)
    seconds = getTimeoutSeconds();
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(seconds);
  while (result == ncclInProgress) {
    if (std::chrono::steady_clock::now() > deadline) {
      abortCommunicators();
      return fail(std::string(op) + ": " + call + " did not complete within " +
                  std::to_string(seconds) +
                  " s (FUSER_TIMEOUT_S): a peer failed or never joined");
    }
    std::this_thread::yield();
    if (ncclCommGetAsyncError(communicator, &result) != ncclSuccess)
      break;
  }
  if (result != ncclSuccess) {
    FuserStatus status = checkNccl(result, op, call);
    abortCommunicators();
    return status;
  }
  return FUSER_OK;
}

ncclComm_t CudaBackend::getCommunicator(FuserTeam &team, const char *op) {
  auto found = communicators.find(team.members);
  if (found != communicators.end())
    return found->second.posting;
  if (refuseWhileCapturing(op, "creating the team's NCCL communicator",
                           kSetUpBeforeCapture))
    return nullptr;
  // The first member makes the id; every member takes its copy of it.
  ncclUniqueId mine{};
  if (team.index == 0 &&
      checkNccl(ncclGetUniqueId(&mine), op, "ncclGetUniqueId"))
    return nullptr;
  std::vector<ncclUniqueId> ids(team.members.size());
  if (exchangeAmong(team, &mine, sizeof(mine), ids.data(),
                    "sharing the NCCL id of a team") != FUSER_OK) {
    fail(std::string(op) + ": " + fuser_last_error());
    return nullptr;
  }
  ncclUniqueId id = ids.front();
  ncclConfig_t setupConfig = NCCL_CONFIG_INITIALIZER;
  setupConfig.blocking = 0;
  setupConfig.splitShare = 1;
  ncclComm_t setup = nullptr;
  ncclResult_t result = ncclCommInitRankConfig(
      &setup, static_cast<int>(team.members.size()), id,
      static_cast<int>(team.index), &setupConfig);
  if (result != ncclSuccess && result != ncclInProgress) {
    checkNccl(result, op, "ncclCommInitRankConfig");
    return nullptr;
  }
  communicators[team.members].setup = setup;
  // Setting up the transports takes longer than a communication may.
  double setupSeconds = std::max(getTimeoutSeconds(), kCommunicatorSetupSeconds);
  if (settle(setup, result, op, "ncclCommInitRankConfig", setupSeconds))
    return nullptr;
  // The split is a call of the nonblocking communicator, bounded too: it
  // returns success while it goes on in the background, and the setup
  // communicator reports its end.
  ncclConfig_t postingConfig = NCCL_CONFIG_INITIALIZER;
  postingConfig.blocking = 1;
  ncclComm_t posting = nullptr;
  ncclResult_t split = ncclCommSplit(
      setup, /*color=*/0, static_cast<int>(team.index), &posting, &postingConfig);
  if (settle(setup, split == ncclSuccess ? ncclInProgress : split, op,
             "ncclCommSplit", setupSeconds))
    return nullptr;
  if (!posting) {
    fail(std::string(op) + ": ncclCommSplit ended without a communicator");
    abortCommunicators();
    return nullptr;
  }
  communicators[team.members].posting = posting;
  return posting;
}

std::vector<ncclComm_t> CudaBackend::takeCommunicators() {
  std::vector<ncclComm_t> taken;
  for (auto &[members, team] : communicators)
    for (ncclComm_t communicator : {team.posting, team.setup})
      if (communicator)
        taken.push_back(communicator);
  communicators.clear();
  return taken;
}

FuserWork *CudaBackend::finishPost(CudaWork *posted) {
  std::unique_ptr<CudaWork> work(posted);
  work->stream = getStream();
  work->event = takeEvent();
  if (!work->event ||
      checkCuda(cudaEventRecord(work->event, work->stream), "hostir.wait",
                "cudaEventRecord"))
    return nullptr;
  return work.release();
}

FuserWork *CudaBackend::postCollective(
    FuserTeam &team, const char *op, const char *call,
    const std::function<ncclResult_t(ncclComm_t, cudaStream_t)> &launch) {
  ncclComm_t communicator = getCommunicator(team, op);
  if (!communicator || checkCapturedStream(op) ||
      settle(communicator, launch(communicator, getStream()), op, call))
    return nullptr;
  auto *work = new CudaWork();
  work->what = std::string(op) + describeTeam(team);
  return finishPost(work);
}

FuserWork *CudaBackend::allgather(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output) {
  return postCollective(
      team, "hostir.allgather", "ncclAllGather",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        return ncclAllGather(getData(input), getData(output), countOf(input),
                             getNcclType(input.dtype), communicator, stream);
      });
}

FuserWork *CudaBackend::allreduce(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output,
                                  FuserReduction kind) {
  return postCollective(
      team, "hostir.allreduce", "ncclAllReduce",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        return ncclAllReduce(getData(input), getData(output), countOf(input),
                             getNcclType(input.dtype),
                             getNcclOp(kind, input.dtype), communicator,
                             stream);
      });
}

FuserWork *CudaBackend::reduceScatter(FuserTeam &team, const FuserBuffer &input,
                                      const FuserBuffer &output,
                                      FuserReduction kind) {
  return postCollective(
      team, "hostir.reduce_scatter", "ncclReduceScatter",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        return ncclReduceScatter(getData(input), getData(output),
                                 countOf(output), getNcclType(input.dtype),
                                 getNcclOp(kind, input.dtype), communicator,
                                 stream);
      });
}

FuserWork *CudaBackend::reduce(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output, FuserReduction kind,
                               int64_t root) {
  return postCollective(
      team, "hostir.reduce", "ncclReduce",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        return ncclReduce(getData(input), getData(output), countOf(input),
                          getNcclType(input.dtype),
                          getNcclOp(kind, input.dtype), static_cast<int>(root),
                          communicator, stream);
      });
}

FuserWork *CudaBackend::broadcast(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output, int64_t root) {
  return postCollective(
      team, "hostir.broadcast", "ncclBroadcast",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        return ncclBroadcast(getData(input), getData(output), countOf(output),
                             getNcclType(output.dtype), static_cast<int>(root),
                             communicator, stream);
      });
}

/// NCCL has no gather, scatter or all-to-all: they are groups of sends and
/// receives of blocks (and a local copy of the rank's own block).
namespace {
struct BlockExchange {
  /// Elements of one block.
  size_t count;
  ncclDataType_t type;
  size_t blockBytes;
};

ncclResult_t copyOwnBlock(void *to, const void *from, size_t bytes,
                          cudaStream_t stream) {
  return cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream) ==
                 cudaSuccess
             ? ncclSuccess
             : ncclUnhandledCudaError;
}
} // namespace

FuserWork *CudaBackend::gather(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output, int64_t root) {
  BlockExchange block{countOf(input), getNcclType(input.dtype),
                      countOf(input) * getElementSize(input.dtype)};
  int me = static_cast<int>(team.index), size = team.members.size();
  return postCollective(
      team, "hostir.gather", "ncclSend/ncclRecv",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        if (me != root)
          return ncclSend(getData(input), block.count, block.type,
                          static_cast<int>(root), communicator, stream);
        char *blocks = getData(output);
        ncclResult_t result = copyOwnBlock(blocks + me * block.blockBytes,
                                           getData(input), block.blockBytes,
                                           stream);
        ncclGroupStart();
        for (int peer = 0; peer < size && result == ncclSuccess; ++peer)
          if (peer != me)
            result = ncclRecv(blocks + peer * block.blockBytes, block.count,
                              block.type, peer, communicator, stream);
        ncclResult_t end = ncclGroupEnd();
        return result != ncclSuccess ? result : end;
      });
}

FuserWork *CudaBackend::scatter(FuserTeam &team, const FuserBuffer &input,
                                const FuserBuffer &output, int64_t root) {
  BlockExchange block{countOf(output), getNcclType(output.dtype),
                      countOf(output) * getElementSize(output.dtype)};
  int me = static_cast<int>(team.index), size = team.members.size();
  return postCollective(
      team, "hostir.scatter", "ncclSend/ncclRecv",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        if (me != root)
          return ncclRecv(getData(output), block.count, block.type,
                          static_cast<int>(root), communicator, stream);
        char *blocks = getData(input);
        ncclResult_t result = copyOwnBlock(getData(output),
                                           blocks + me * block.blockBytes,
                                           block.blockBytes, stream);
        ncclGroupStart();
        for (int peer = 0; peer < size && result == ncclSuccess; ++peer)
          if (peer != me)
            result = ncclSend(blocks + peer * block.blockBytes, block.count,
                              block.type, peer, communicator, stream);
        ncclResult_t end = ncclGroupEnd();
        return result != ncclSuccess ? result : end;
      });
}

FuserWork *CudaBackend::allToAll(FuserTeam &team, const FuserBuffer &input,
                                 const FuserBuffer &output) {
  int me = static_cast<int>(team.index), size = team.members.size();
  size_t count = countOf(input) / size;
  BlockExchange block{count, getNcclType(input.dtype),
                      count * getElementSize(input.dtype)};
  return postCollective(
      team, "hostir.all_to_all", "ncclSend/ncclRecv",
      [&](ncclComm_t communicator, cudaStream_t stream) {
        char *from = getData(input), *to = getData(output);
        ncclResult_t result =
            copyOwnBlock(to + me * block.blockBytes,
                         from + me * block.blockBytes, block.blockBytes, stream);
        ncclGroupStart();
        for (int peer = 0; peer < size && result == ncclSuccess; ++peer)
          if (peer != me) {
            result = ncclSend(from + peer * block.blockBytes, block.count,
                              block.type, peer, communicator, stream);
            if (result == ncclSuccess)
              result = ncclRecv(to + peer * block.blockBytes, block.count,
                                block.type, peer, communicator, stream);
          }
        ncclResult_t end = ncclGroupEnd();
        return result != ncclSuccess ? result : end;
      });
}

FuserWork *CudaBackend::pointToPoint(FuserTeam &team, const FuserBuffer &buffer,
                                     int64_t peer, bool sending) {
  const char *op = sending ? "hostir.send" : "hostir.recv";
  ncclComm_t communicator = getCommunicator(team, op);
  if (!communicator || checkCapturedStream(op))
    return nullptr;
  // Posted with the rest of its group (or alone when waited on).
  auto work = std::make_unique<CudaWork>();
  work->what = std::string(sending ? "send to member " : "receive from member ") +
               std::to_string(peer) + describeTeam(team);
  work->stream = getStream();
  work->pending.push_back({communicator, getData(buffer), countOf(buffer),
                           getNcclType(buffer.dtype), static_cast<int>(peer),
                           sending});
  return work.release();
}

FuserStatus CudaBackend::postPending(CudaWork &work) {
  ncclGroupStart();
  ncclResult_t result = ncclSuccess;
  for (const CudaWork::PointToPoint &p2p : work.pending) {
    result = p2p.sending ? ncclSend(p2p.data, p2p.count, p2p.type, p2p.peer,
                                    p2p.communicator, work.stream)
                         : ncclRecv(p2p.data, p2p.count, p2p.type, p2p.peer,
                                    p2p.communicator, work.stream);
    if (result != ncclSuccess)
      break;
  }
  ncclResult_t end = ncclGroupEnd();
  if (result == ncclSuccess)
    result = end;
  if (settle(work.pending.front().communicator, result, "hostir.coalesce",
             "ncclGroupEnd"))
    return FUSER_FAILED;
  work.pending.clear();
  work.event = takeEvent();
  if (!work.event)
    return FUSER_FAILED;
  return checkCuda(cudaEventRecord(work.event, work.stream), "hostir.coalesce",
                   "cudaEventRecord");
}

FuserWork *CudaBackend::group(FuserWork *const *works, int64_t count) {
  auto group = std::make_unique<CudaWork>();
  group->what = "group of";
  group->stream = getStream();
  for (int64_t i = 0; i < count; ++i) {
    std::unique_ptr<CudaWork> member(static_cast<CudaWork *>(works[i]));
    group->what += (i ? ", " : " ") + member->what;
    if (member->pending.empty()) {
      // Already posted (a collective): the group waits for it too.
      if (checkCuda(cudaStreamWaitEvent(group->stream, member->event, 0),
                    "hostir.coalesce", "cudaStreamWaitEvent"))
        return nullptr;
      returnEvent(member->event);
      continue;
    }
    group->pending.insert(group->pending.end(), member->pending.begin(),
                          member->pending.end());
  }
  if (group->pending.empty()) {
    group->event = takeEvent();
    if (!group->event ||
        checkCuda(cudaEventRecord(group->event, group->stream),
                  "hostir.coalesce", "cudaEventRecord"))
      return nullptr;
    return group.release();
  }
  if (postPending(*group))
    return nullptr;
  return group.release();
}

FuserStatus CudaBackend::wait(FuserWork *posted) {
  std::unique_ptr<CudaWork> work(static_cast<CudaWork *>(posted));
  if (!work->pending.empty() && postPending(*work))
    return FUSER_FAILED;
  // The current stream waits; the host goes on issuing work.
  FuserStatus status = checkCuda(cudaStreamWaitEvent(getStream(), work->event, 0),
                                 "hostir.wait", "cudaStreamWaitEvent");
  returnEvent(work->event);
  return status;
}
