//===- HostCommunications.cpp - collectives and send/recv over MPI ------===//
//
// The host backend: every communication is a nonblocking MPI operation on
// the team's communicator, completed by fuser_wait within the timeout.
//
//===----------------------------------------------------------------------===//

#include "HostBackend.h"
#include "../Internal.h"
#include "../Teams.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <thread>

using namespace fuser::runtime;
using fuser::runtime::host::HostBackend;

namespace {
/// Posted MPI requests and what to do once they complete.
struct HostWork : FuserWork {
  std::vector<MPI_Request> requests;
  std::vector<std::function<void()>> finishers;
  /// Sends and receives can be withdrawn after a timeout; collectives not.
  bool pointToPoint = false;
};

/// The MPI type that carries one element; f16 and bf16 travel as 16 bits
/// and are reduced by operations of their own.
MPI_Datatype getCarrierType(FuserDType dtype) {
  switch (dtype) {
  case FUSER_F32:
    return MPI_FLOAT;
  case FUSER_F64:
    return MPI_DOUBLE;
  case FUSER_F16:
  case FUSER_BF16:
    return MPI_UINT16_T;
  case FUSER_I64:
    return MPI_INT64_T;
  case FUSER_I32:
    return MPI_INT32_T;
  case FUSER_I8:
    return MPI_INT8_T;
  case FUSER_I1:
    return MPI_UINT8_T;
  }
  return MPI_BYTE;
}

/// MPI user operation reducing 16-bit floats of one type and kind.
template <FuserDType DType, FuserReduction Kind>
void reduceHalves(void *in, void *inout, int *count, MPI_Datatype *) {
  auto *from = static_cast<char *>(in), *to = static_cast<char *>(inout);
  for (int i = 0; i < *count; ++i)
    storeElement(to + 2 * i, DType,
                 combine(Kind, loadElement(from + 2 * i, DType),
                         loadElement(to + 2 * i, DType)));
}

template <FuserDType DType> MPI_Op createHalfOp(FuserReduction kind) {
  MPI_User_function *function = nullptr;
  switch (kind) {
  case FUSER_SUM:
  case FUSER_AVG:
    function = reduceHalves<DType, FUSER_SUM>;
    break;
  case FUSER_PROD:
    function = reduceHalves<DType, FUSER_PROD>;
    break;
  case FUSER_MAX:
    function = reduceHalves<DType, FUSER_MAX>;
    break;
  case FUSER_MIN:
    function = reduceHalves<DType, FUSER_MIN>;
    break;
  }
  MPI_Op op;
  MPI_Op_create(function, /*commute=*/1, &op);
  return op;
}

MPI_Op getReductionOp(FuserDType dtype, FuserReduction kind) {
  if (dtype == FUSER_F16 || dtype == FUSER_BF16) {
    static std::map<std::pair<int, int>, MPI_Op> halfOps;
    MPI_Op &op = halfOps[{dtype, kind == FUSER_AVG ? FUSER_SUM : kind}];
    if (op == MPI_Op())
      op = dtype == FUSER_F16 ? createHalfOp<FUSER_F16>(kind)
                              : createHalfOp<FUSER_BF16>(kind);
    return op;
  }
  bool logical = dtype == FUSER_I1;
  switch (kind) {
  case FUSER_SUM:
  case FUSER_AVG:
    return logical ? MPI_LOR : MPI_SUM;
  case FUSER_PROD:
    return logical ? MPI_LAND : MPI_PROD;
  case FUSER_MAX:
    return logical ? MPI_LOR : MPI_MAX;
  case FUSER_MIN:
    return logical ? MPI_LAND : MPI_MIN;
  }
  return MPI_SUM;
}

int toCount(int64_t count) { return static_cast<int>(count); }

HostWork *post(const std::string &what, const FuserTeam &team,
               const std::function<int(MPI_Request *)> &start) {
  auto work = std::make_unique<HostWork>();
  work->what = what + " on a team of " + std::to_string(team.members.size());
  MPI_Request request;
  if (start(&request) != MPI_SUCCESS) {
    fail(work->what + " could not be posted");
    return nullptr;
  }
  work->requests.push_back(request);
  return work.release();
}

/// Divides the output by the team size after a sum: the average.
void averageAfter(HostWork *work, const FuserBuffer &output,
                  FuserReduction kind, int64_t teamSize) {
  if (!work || kind != FUSER_AVG)
    return;
  FuserBuffer target = output;
  std::vector<int64_t> sizes(output.sizes, output.sizes + output.rank),
      strides(output.strides, output.strides + output.rank);
  work->finishers.push_back([target, sizes, strides, teamSize]() mutable {
    target.sizes = sizes.data();
    target.strides = strides.data();
    for (int64_t i = 0, n = getNumElements(target); i < n; ++i) {
      char *address = getElementAddress(target, i);
      storeElement(address, target.dtype,
                   loadElement(address, target.dtype) / teamSize);
    }
  });
}

} // namespace

FuserWork *HostBackend::pointToPoint(FuserTeam &team, const FuserBuffer &buffer,
                                     int64_t peer, bool sending) {
  std::string description =
      (sending ? "send to member " : "receive from member ") +
      std::to_string(peer);
  HostWork *work = post(description, team, [&](MPI_Request *request) {
    int count = toCount(getNumElements(buffer));
    MPI_Datatype type = getCarrierType(buffer.dtype);
    return sending ? MPI_Isend(getData(buffer), count, type, toCount(peer),
                               /*tag=*/0, team.communicator, request)
                   : MPI_Irecv(getData(buffer), count, type, toCount(peer),
                               /*tag=*/0, team.communicator, request);
  });
  if (work)
    work->pointToPoint = true;
  return work;
}

FuserWork *HostBackend::allgather(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output) {
  int count = toCount(getNumElements(input));
  MPI_Datatype type = getCarrierType(input.dtype);
  return post("allgather", team, [&](MPI_Request *request) {
    return MPI_Iallgather(getData(input), count, type, getData(output), count,
                          type, team.communicator, request);
  });
}

FuserWork *HostBackend::allreduce(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output,
                                  FuserReduction kind) {
  HostWork *work = post("allreduce", team, [&](MPI_Request *request) {
    return MPI_Iallreduce(getData(input), getData(output),
                          toCount(getNumElements(input)),
                          getCarrierType(input.dtype),
                          getReductionOp(input.dtype, kind), team.communicator,
                          request);
  });
  averageAfter(work, output, kind, team.members.size());
  return work;
}

FuserWork *HostBackend::reduceScatter(FuserTeam &team, const FuserBuffer &input,
                                      const FuserBuffer &output,
                                      FuserReduction kind) {
  HostWork *work = post("reduce_scatter", team, [&](MPI_Request *request) {
    return MPI_Ireduce_scatter_block(
        getData(input), getData(output), toCount(getNumElements(output)),
        getCarrierType(input.dtype), getReductionOp(input.dtype, kind),
        team.communicator, request);
  });
  averageAfter(work, output, kind, team.members.size());
  return work;
}

FuserWork *HostBackend::reduce(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output, FuserReduction kind,
                               int64_t root) {
  HostWork *work = post("reduce", team, [&](MPI_Request *request) {
    return MPI_Ireduce(getData(input), getData(output),
                       toCount(getNumElements(input)),
                       getCarrierType(input.dtype),
                       getReductionOp(input.dtype, kind), toCount(root),
                       team.communicator, request);
  });
  if (team.index == root)
    averageAfter(work, output, kind, team.members.size());
  return work;
}

FuserWork *HostBackend::broadcast(FuserTeam &team, const FuserBuffer &input,
                                  const FuserBuffer &output, int64_t root) {
  // MPI broadcasts in place: the root starts from its input.
  if (team.index == root && copy(input, output) != FUSER_OK)
    return nullptr;
  return post("broadcast", team, [&](MPI_Request *request) {
    return MPI_Ibcast(getData(output), toCount(getNumElements(output)),
                      getCarrierType(output.dtype), toCount(root),
                      team.communicator, request);
  });
}

FuserWork *HostBackend::gather(FuserTeam &team, const FuserBuffer &input,
                               const FuserBuffer &output, int64_t root) {
  int count = toCount(getNumElements(input));
  MPI_Datatype type = getCarrierType(input.dtype);
  return post("gather", team, [&](MPI_Request *request) {
    return MPI_Igather(getData(input), count, type, getData(output), count,
                       type, toCount(root), team.communicator, request);
  });
}

FuserWork *HostBackend::scatter(FuserTeam &team, const FuserBuffer &input,
                                const FuserBuffer &output, int64_t root) {
  int count = toCount(getNumElements(output));
  MPI_Datatype type = getCarrierType(input.dtype);
  return post("scatter", team, [&](MPI_Request *request) {
    return MPI_Iscatter(getData(input), count, type, getData(output), count,
                        type, toCount(root), team.communicator, request);
  });
}

FuserWork *HostBackend::allToAll(FuserTeam &team, const FuserBuffer &input,
                                 const FuserBuffer &output) {
  int count = toCount(getNumElements(input) /
                      static_cast<int64_t>(team.members.size()));
  MPI_Datatype type = getCarrierType(input.dtype);
  return post("all_to_all", team, [&](MPI_Request *request) {
    return MPI_Ialltoall(getData(input), count, type, getData(output), count,
                         type, team.communicator, request);
  });
}

FuserWork *HostBackend::group(FuserWork *const *works, int64_t count) {
  auto group = std::make_unique<HostWork>();
  group->what = "group of";
  group->pointToPoint = true;
  for (int64_t i = 0; i < count; ++i) {
    std::unique_ptr<HostWork> member(static_cast<HostWork *>(works[i]));
    group->requests.insert(group->requests.end(), member->requests.begin(),
                           member->requests.end());
    group->what += (i ? ", " : " ") + member->what;
    group->pointToPoint = group->pointToPoint && member->pointToPoint;
    for (auto &finisher : member->finishers)
      group->finishers.push_back(std::move(finisher));
  }
  return group.release();
}

FuserStatus HostBackend::wait(FuserWork *posted) {
  std::unique_ptr<HostWork> work(static_cast<HostWork *>(posted));
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(getTimeoutSeconds());
  int done = 0;
  while (true) {
    if (MPI_Testall(static_cast<int>(work->requests.size()),
                    work->requests.data(), &done,
                    MPI_STATUSES_IGNORE) != MPI_SUCCESS)
      return fail(work->what + " failed");
    if (done)
      break;
    if (std::chrono::steady_clock::now() > deadline) {
      // Point-to-point requests can be withdrawn; collectives cannot, so
      // the caller has to abort (fuser_fail) rather than continue.
      if (work->pointToPoint)
        for (MPI_Request &request : work->requests)
          if (request != MPI_REQUEST_NULL) {
            MPI_Cancel(&request);
            MPI_Request_free(&request);
          }
      return fail(work->what + " did not complete within " + describeTimeout() +
                  ": a peer has not posted its side, or has failed");
    }
    std::this_thread::yield();
  }
  for (auto &finisher : work->finishers)
    finisher();
  return FUSER_OK;
}
