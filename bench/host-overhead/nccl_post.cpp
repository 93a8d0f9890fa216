//===- nccl_post.cpp - what posting an NCCL call costs the host ----------===//
//
// Times, on each rank, the host's time to post an allreduce (the call and,
// for a nonblocking communicator, polling until NCCL says it is posted) on
// the two kinds of communicator the CUDA backend could post on: the
// nonblocking one it creates for a team, and a blocking one split from it
// with its resources shared. Checks each allreduce's result and a
// send/receive exchange in an NCCL group on both, then finalizes and
// destroys them in the backend's order. Prints, per kind, the median over
// rounds of the slowest rank's µs per allreduce.
//
// On a GPU machine, one rank per GPU:
//
//   mpicxx -O2 bench/host-overhead/nccl_post.cpp -o nccl_post
//       -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudart -lnccl
//   mpirun -np 2 -x NCCL_NVLS_ENABLE=0 ./nccl_post
//
// On one GPU, two ranks that NCCL takes for two hosts (it refuses two ranks
// of one host on one GPU) talk through sockets, slowly, but post the same
// way:
//
//   mpirun -np 2 -x NCCL_NVLS_ENABLE=0 bash -c
//       'NCCL_HOSTID=rank$OMPI_COMM_WORLD_RANK exec ./nccl_post'
//
//===----------------------------------------------------------------------===//

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
constexpr int kElements = 1024;
constexpr int kWarmup = 20;
constexpr int kRounds = 20;
constexpr int kPostsPerRound = 100;

void check(bool ok, const char *what) {
  if (ok)
    return;
  std::fprintf(stderr, "nccl_post: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/// Waits until the call that returned `result` on `communicator` is done,
/// as the backend's settle does.
void settle(ncclComm_t communicator, ncclResult_t result, const char *what) {
  while (result == ncclInProgress) {
    std::this_thread::yield();
    check(ncclCommGetAsyncError(communicator, &result) == ncclSuccess, what);
  }
  check(result == ncclSuccess, what);
}

/// Posts `posts` allreduces of `data` and returns the host's µs per post.
double timePosts(ncclComm_t communicator, float *data, cudaStream_t stream,
                 int posts) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < posts; ++i)
    settle(communicator,
           ncclAllReduce(data, data, kElements, ncclFloat32, ncclSum,
                         communicator, stream),
           "ncclAllReduce");
  std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / posts;
}

/// Four allreduces in place of every rank's ones: each element ends as
/// ranks^4.
void checkAllreduce(ncclComm_t communicator, float *data, cudaStream_t stream,
                    int ranks) {
  std::vector<float> values(kElements, 1.0f);
  cudaMemcpy(data, values.data(), sizeof(float) * kElements,
             cudaMemcpyHostToDevice);
  float expected = 1;
  for (int i = 0; i < 4; ++i) {
    settle(communicator,
           ncclAllReduce(data, data, kElements, ncclFloat32, ncclSum,
                         communicator, stream),
           "ncclAllReduce");
    expected *= ranks;
  }
  check(cudaStreamSynchronize(stream) == cudaSuccess, "cudaStreamSynchronize");
  cudaMemcpy(values.data(), data, sizeof(float) * kElements,
             cudaMemcpyDeviceToHost);
  check(std::all_of(values.begin(), values.end(),
                    [&](float value) { return value == expected; }),
        "the allreduce's result");
}

/// Each rank sends its rank to the next and receives the previous one's in
/// one NCCL group.
void checkSendReceive(ncclComm_t communicator, float *send, float *receive,
                      cudaStream_t stream, int rank, int ranks) {
  std::vector<float> values(kElements, static_cast<float>(rank));
  cudaMemcpy(send, values.data(), sizeof(float) * kElements,
             cudaMemcpyHostToDevice);
  ncclGroupStart();
  ncclSend(send, kElements, ncclFloat32, (rank + 1) % ranks, communicator,
           stream);
  ncclRecv(receive, kElements, ncclFloat32, (rank + ranks - 1) % ranks,
           communicator, stream);
  settle(communicator, ncclGroupEnd(), "ncclGroupEnd");
  check(cudaStreamSynchronize(stream) == cudaSuccess, "cudaStreamSynchronize");
  cudaMemcpy(values.data(), receive, sizeof(float) * kElements,
             cudaMemcpyDeviceToHost);
  float expected = static_cast<float>((rank + ranks - 1) % ranks);
  check(std::all_of(values.begin(), values.end(),
                    [&](float value) { return value == expected; }),
        "the send/receive exchange");
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1, devices = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  check(cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0,
        "cudaGetDeviceCount");
  check(cudaSetDevice(rank % devices) == cudaSuccess, "cudaSetDevice");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) ==
            cudaSuccess,
        "cudaStreamCreateWithFlags");
  float *data = nullptr, *send = nullptr, *receive = nullptr;
  for (float **buffer : {&data, &send, &receive})
    check(cudaMalloc(buffer, sizeof(float) * kElements) == cudaSuccess,
          "cudaMalloc");

  ncclUniqueId id;
  if (rank == 0)
    check(ncclGetUniqueId(&id) == ncclSuccess, "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclConfig_t setupConfig = NCCL_CONFIG_INITIALIZER;
  setupConfig.blocking = 0;
  setupConfig.splitShare = 1;
  ncclComm_t setup = nullptr;
  ncclResult_t created =
      ncclCommInitRankConfig(&setup, ranks, id, rank, &setupConfig);
  check(created == ncclSuccess || created == ncclInProgress,
        "ncclCommInitRankConfig");
  settle(setup, created, "ncclCommInitRankConfig");
  ncclConfig_t postingConfig = NCCL_CONFIG_INITIALIZER;
  postingConfig.blocking = 1;
  ncclComm_t posting = nullptr;
  ncclResult_t split = ncclCommSplit(setup, 0, rank, &posting, &postingConfig);
  // A nonblocking communicator's split returns success while it runs.
  settle(setup, split == ncclSuccess ? ncclInProgress : split, "ncclCommSplit");
  check(posting != nullptr, "ncclCommSplit's communicator");

  struct Kind {
    const char *name;
    ncclComm_t communicator;
  };
  for (Kind kind :
       {Kind{"nonblocking", setup}, Kind{"blocking, split from it", posting}}) {
    checkSendReceive(kind.communicator, send, receive, stream, rank, ranks);
    checkAllreduce(kind.communicator, data, stream, ranks);
    timePosts(kind.communicator, data, stream, kWarmup);
    std::vector<double> rounds;
    for (int round = 0; round < kRounds; ++round) {
      check(cudaStreamSynchronize(stream) == cudaSuccess,
            "cudaStreamSynchronize");
      MPI_Barrier(MPI_COMM_WORLD);
      double mine = timePosts(kind.communicator, data, stream, kPostsPerRound);
      double slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      rounds.push_back(slowest);
    }
    check(cudaStreamSynchronize(stream) == cudaSuccess,
          "cudaStreamSynchronize");
    if (rank == 0)
      std::printf("%s communicator: posting an allreduce of %d floats took "
                  "the host median_us=%.1f min_us=%.1f max_us=%.1f "
                  "(%d rounds of %d, the slowest rank's)\n",
                  kind.name, kElements, median(rounds),
                  *std::min_element(rounds.begin(), rounds.end()),
                  *std::max_element(rounds.begin(), rounds.end()), kRounds,
                  kPostsPerRound);
  }

  // The backend's order: the posting communicator, then its parent.
  check(ncclCommFinalize(posting) == ncclSuccess, "ncclCommFinalize");
  check(ncclCommDestroy(posting) == ncclSuccess, "ncclCommDestroy");
  ncclResult_t finalized = ncclCommFinalize(setup);
  settle(setup, finalized, "ncclCommFinalize");
  check(ncclCommDestroy(setup) == ncclSuccess, "ncclCommDestroy");
  if (rank == 0)
    std::printf("checked: allreduce and send/receive on both, finalized\n");
  MPI_Finalize();
  return 0;
}
