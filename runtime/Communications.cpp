//===- Communications.cpp - collectives and point-to-point over MPI ------===//
//
// The host backend: every communication is a nonblocking MPI operation on
// the team's communicator, completed by fuser_wait within the timeout.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Teams.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <thread>

using namespace fuser::runtime;

/// Posted MPI requests, what to do once they complete, and what they are
/// (for messages).
struct FuserWork {
  std::vector<MPI_Request> requests;
  std::vector<std::function<void()>> finishers;
  std::string what;
  /// Sends and receives can be withdrawn after a timeout; collectives not.
  bool pointToPoint = false;
};

namespace {
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

double combine(FuserReduction kind, double a, double b) {
  switch (kind) {
  case FUSER_SUM:
  case FUSER_AVG:
    return a + b;
  case FUSER_PROD:
    return a * b;
  case FUSER_MAX:
    return a > b ? a : b;
  case FUSER_MIN:
    return a < b ? a : b;
  }
  return a;
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

/// Checks what every collective needs of its buffers: dense, one element
/// type, and output elements = input elements * `outputFactor` /
/// `inputFactor`.
bool checkBuffers(const char *what, const FuserBuffer &input,
                  const FuserBuffer &output, int64_t inputFactor,
                  int64_t outputFactor) {
  for (const FuserBuffer *buffer : {&input, &output})
    if (!isDense(*buffer)) {
      fail(std::string(what) + ": buffer " + describe(*buffer) +
           " has gaps; communication buffers must be dense");
      return false;
    }
  if (input.dtype != output.dtype) {
    fail(std::string(what) + ": input " + describe(input) + " and output " +
         describe(output) + " differ in element type");
    return false;
  }
  if (getNumElements(input) * outputFactor !=
      getNumElements(output) * inputFactor) {
    fail(std::string(what) + ": input " + describe(input) +
         " and output " + describe(output) + " do not fit on a team of " +
         std::to_string(std::max(inputFactor, outputFactor)));
    return false;
  }
  return true;
}

int toCount(int64_t count) { return static_cast<int>(count); }

FuserWork *post(const std::string &what, const FuserTeam *team,
                const std::function<int(MPI_Request *)> &start) {
  if (team->members.empty()) {
    fail(what + " on the team of a rank outside the mesh: only the mesh's "
                "devices communicate on it");
    return nullptr;
  }
  auto work = std::make_unique<FuserWork>();
  work->what = what + " on a team of " + std::to_string(team->members.size());
  MPI_Request request;
  if (start(&request) != MPI_SUCCESS) {
    fail(work->what + " could not be posted");
    return nullptr;
  }
  work->requests.push_back(request);
  return work.release();
}

/// Divides the output by the team size after a sum: the average.
void averageAfter(FuserWork *work, const FuserBuffer &output,
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

bool checkRoot(const char *what, const FuserTeam *team, int64_t root) {
  if (root >= 0 && root < static_cast<int64_t>(team->members.size()))
    return true;
  fail(std::string(what) + ": root " + std::to_string(root) +
       " is not a member index of a team of " +
       std::to_string(team->members.size()));
  return false;
}

bool checkPeer(const char *what, const FuserTeam *team, int64_t peer) {
  if (peer >= 0 && peer < static_cast<int64_t>(team->members.size()) &&
      peer != team->index)
    return true;
  fail(std::string(what) + ": peer " + std::to_string(peer) +
       " is not another member of a team of " +
       std::to_string(team->members.size()));
  return false;
}
/// A send to or a receive from team member `peer`.
FuserWork *postPointToPoint(FuserTeam *team, const FuserBuffer &buffer,
                            int64_t peer, bool sending) {
  const char *what = sending ? "send" : "recv";
  if (!checkPeer(what, team, peer) || !checkBuffers(what, buffer, buffer, 1, 1))
    return nullptr;
  std::string description =
      (sending ? "send to member " : "receive from member ") +
      std::to_string(peer);
  FuserWork *work = post(description, team, [&](MPI_Request *request) {
    int count = toCount(getNumElements(buffer));
    MPI_Datatype type = getCarrierType(buffer.dtype);
    return sending ? MPI_Isend(getData(buffer), count, type, toCount(peer),
                               /*tag=*/0, team->communicator, request)
                   : MPI_Irecv(getData(buffer), count, type, toCount(peer),
                               /*tag=*/0, team->communicator, request);
  });
  if (work)
    work->pointToPoint = true;
  return work;
}
} // namespace

extern "C" {

FuserWork *fuser_allgather(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output) {
  int64_t n = fuser_team_size(team);
  if (!checkBuffers("allgather", *input, *output, 1, n))
    return nullptr;
  int count = toCount(getNumElements(*input));
  MPI_Datatype type = getCarrierType(input->dtype);
  return post("allgather", team, [&](MPI_Request *request) {
    return MPI_Iallgather(getData(*input), count, type, getData(*output),
                          count, type, team->communicator, request);
  });
}

FuserWork *fuser_allreduce(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, FuserReduction kind) {
  if (!checkBuffers("allreduce", *input, *output, 1, 1))
    return nullptr;
  FuserWork *work = post("allreduce", team, [&](MPI_Request *request) {
    return MPI_Iallreduce(getData(*input), getData(*output),
                          toCount(getNumElements(*input)),
                          getCarrierType(input->dtype),
                          getReductionOp(input->dtype, kind),
                          team->communicator, request);
  });
  averageAfter(work, *output, kind, fuser_team_size(team));
  return work;
}

FuserWork *fuser_reduce_scatter(FuserTeam *team, const FuserBuffer *input,
                                const FuserBuffer *output,
                                FuserReduction kind) {
  int64_t n = fuser_team_size(team);
  if (!checkBuffers("reduce_scatter", *input, *output, n, 1))
    return nullptr;
  FuserWork *work = post("reduce_scatter", team, [&](MPI_Request *request) {
    return MPI_Ireduce_scatter_block(
        getData(*input), getData(*output), toCount(getNumElements(*output)),
        getCarrierType(input->dtype), getReductionOp(input->dtype, kind),
        team->communicator, request);
  });
  averageAfter(work, *output, kind, n);
  return work;
}

FuserWork *fuser_reduce(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, FuserReduction kind,
                        int64_t root) {
  if (!checkRoot("reduce", team, root) ||
      !checkBuffers("reduce", *input, *output, 1, 1))
    return nullptr;
  FuserWork *work = post("reduce", team, [&](MPI_Request *request) {
    return MPI_Ireduce(getData(*input), getData(*output),
                       toCount(getNumElements(*input)),
                       getCarrierType(input->dtype),
                       getReductionOp(input->dtype, kind), toCount(root),
                       team->communicator, request);
  });
  if (team->index == root)
    averageAfter(work, *output, kind, fuser_team_size(team));
  return work;
}

FuserWork *fuser_broadcast(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, int64_t root) {
  if (!checkRoot("broadcast", team, root) ||
      !checkBuffers("broadcast", *input, *output, 1, 1))
    return nullptr;
  // MPI broadcasts in place: the root starts from its input.
  if (team->index == root && fuser_copy(input, output) != FUSER_OK)
    return nullptr;
  return post("broadcast", team, [&](MPI_Request *request) {
    return MPI_Ibcast(getData(*output), toCount(getNumElements(*output)),
                      getCarrierType(output->dtype), toCount(root),
                      team->communicator, request);
  });
}

FuserWork *fuser_gather(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, int64_t root) {
  int64_t n = fuser_team_size(team);
  if (!checkRoot("gather", team, root) ||
      !checkBuffers("gather", *input, *output, 1, n))
    return nullptr;
  int count = toCount(getNumElements(*input));
  MPI_Datatype type = getCarrierType(input->dtype);
  return post("gather", team, [&](MPI_Request *request) {
    return MPI_Igather(getData(*input), count, type, getData(*output), count,
                       type, toCount(root), team->communicator, request);
  });
}

FuserWork *fuser_scatter(FuserTeam *team, const FuserBuffer *input,
                         const FuserBuffer *output, int64_t root) {
  int64_t n = fuser_team_size(team);
  if (!checkRoot("scatter", team, root) ||
      !checkBuffers("scatter", *input, *output, n, 1))
    return nullptr;
  int count = toCount(getNumElements(*output));
  MPI_Datatype type = getCarrierType(input->dtype);
  return post("scatter", team, [&](MPI_Request *request) {
    return MPI_Iscatter(getData(*input), count, type, getData(*output), count,
                        type, toCount(root), team->communicator, request);
  });
}

FuserWork *fuser_all_to_all(FuserTeam *team, const FuserBuffer *input,
                            const FuserBuffer *output) {
  int64_t n = fuser_team_size(team);
  if (!checkBuffers("all_to_all", *input, *output, 1, 1))
    return nullptr;
  if (getNumElements(*input) % n != 0) {
    fail("all_to_all: input " + describe(*input) +
         " does not split into " + std::to_string(n) + " blocks");
    return nullptr;
  }
  int count = toCount(getNumElements(*input) / n);
  MPI_Datatype type = getCarrierType(input->dtype);
  return post("all_to_all", team, [&](MPI_Request *request) {
    return MPI_Ialltoall(getData(*input), count, type, getData(*output), count,
                         type, team->communicator, request);
  });
}

FuserWork *fuser_send(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer) {
  return postPointToPoint(team, *buffer, peer, /*sending=*/true);
}

FuserWork *fuser_recv(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer) {
  return postPointToPoint(team, *buffer, peer, /*sending=*/false);
}

FuserWork *fuser_group(FuserWork *const *works, int64_t count) {
  auto group = std::make_unique<FuserWork>();
  group->what = "group of";
  group->pointToPoint = true;
  for (int64_t i = 0; i < count; ++i) {
    if (!works[i]) {
      fail("group: member " + std::to_string(i) + " was not posted");
      return nullptr;
    }
    group->requests.insert(group->requests.end(), works[i]->requests.begin(),
                           works[i]->requests.end());
  }
  for (int64_t i = 0; i < count; ++i) {
    group->what += (i ? ", " : " ") + works[i]->what;
    group->pointToPoint = group->pointToPoint && works[i]->pointToPoint;
    for (auto &finisher : works[i]->finishers)
      group->finishers.push_back(std::move(finisher));
    delete works[i];
  }
  return group.release();
}

FuserStatus fuser_wait(FuserWork *work) {
  // The failed post recorded why.
  if (!work)
    return FUSER_FAILED;
  std::unique_ptr<FuserWork> owned(work);
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
      return fail(work->what + " did not complete within " +
                  std::to_string(getTimeoutSeconds()) +
                  " s: a peer has not posted its side, or has failed");
    }
    std::this_thread::yield();
  }
  for (auto &finisher : work->finishers)
    finisher();
  return FUSER_OK;
}

} // extern "C"
