//===- PipelineCostModel.cpp - choosing how a pipeline overlaps -----------===//

#include "fuser/Dialect/Fuser/Analysis/PipelineCostModel.h"

#include <algorithm>
#include <limits>
#include <vector>

using namespace mlir;
using namespace mlir::fuser;

static double transferSeconds(double bytes, const LinkCalibration &link) {
  return link.latency + bytes / link.bytesPerSecond;
}

/// A GEMM and a transfer running together.
static double overlapSeconds(double gemm, double transfer,
                             const LinkCalibration &link) {
  return std::max(gemm, transfer) +
         link.interference * std::min(gemm, transfer);
}

namespace {
/// What a task of a ring's schedule occupies: the SMs (GEMMs and
/// memory-bound kernels) or the link.
enum class Resource { Compute, Link };

struct Task {
  Resource resource;
  double seconds;
};

/// One rank's ring as streams of tasks, each stream in order. Every rank
/// runs the same schedule, so a transfer that needs a peer's GEMM is ready
/// when the rank's own counterpart (the task before it) is done.
class RingSchedule {
public:
  std::vector<std::vector<Task>> streams;

  /// List scheduling: the SMs run one GEMM at a time (a GEMM fills the
  /// GPU) and the link one transfer at a time, each taking the task that
  /// can start first (ties: the stream issued first). Returns the time
  /// the last task ends plus the interference of the time the link was
  /// busy beside a GEMM.
  double run(const LinkCalibration &link) const {
    std::vector<size_t> next(streams.size(), 0);
    std::vector<double> streamFree(streams.size(), 0);
    double resourceFree[2] = {0, 0};
    std::vector<std::pair<double, double>> busy[2];
    double end = 0;
    while (true) {
      int64_t chosen = -1;
      double chosenStart = std::numeric_limits<double>::infinity();
      for (size_t stream = 0; stream < streams.size(); ++stream) {
        if (next[stream] == streams[stream].size())
          continue;
        const Task &task = streams[stream][next[stream]];
        double start =
            std::max(streamFree[stream], resourceFree[int(task.resource)]);
        if (start < chosenStart) {
          chosen = int64_t(stream);
          chosenStart = start;
        }
      }
      if (chosen < 0)
        break;
      const Task &task = streams[chosen][next[chosen]++];
      double finish = chosenStart + task.seconds;
      streamFree[chosen] = resourceFree[int(task.resource)] = finish;
      busy[int(task.resource)].push_back({chosenStart, finish});
      end = std::max(end, finish);
    }
    double shared = 0;
    for (auto [computeStart, computeEnd] : busy[int(Resource::Compute)])
      for (auto [linkStart, linkEnd] : busy[int(Resource::Link)])
        shared += std::max(0.0, std::min(computeEnd, linkEnd) -
                                    std::max(computeStart, linkStart));
    return end + link.interference * shared;
  }
};
} // namespace

/// Whether the problem's ring pushes every chunk at its start (AG+GEMM
/// over the copy engine, RingPipeline.cpp), so that a block's chunks share
/// the link and arrive together.
static bool pushesChunksTogether(const PipelineProblem &problem) {
  return problem.kind == PipelineProblem::Kind::AllgatherGemm &&
         problem.copyEngineRing;
}

/// The ring's schedule (RingPipeline.cpp in host lowering). AG+GEMM: one
/// stream per step (chunk i, distance j): the transfer of the block j
/// places back, then its GEMM. GEMM+RS: one stream per chunk: for each
/// distance j > 0 the GEMM of the block for the member j places on and the
/// transfer of the counterpart, the reduction of the received blocks (more
/// than one peer), then the local GEMM adding to them (and for
/// GEMM+allreduce the exchange of the reduced chunk with every peer).
static double estimateRing(const PipelineProblem &problem, int64_t chunks,
                           const LinkCalibration &link,
                           const PipelineCalibration &machine) {
  int64_t team = problem.teamSize;
  double chunkBytes =
      double(problem.rows / team) * double(problem.rowBytes) / double(chunks);
  Task gemm{Resource::Compute,
            machine.gemmSeconds(problem.rows / (team * chunks), problem.n,
                                problem.k)};
  Task transfer{Resource::Link, transferSeconds(chunkBytes, link)};
  RingSchedule schedule;
  if (pushesChunksTogether(problem)) {
    // Each push runs on the stream of its step; the block's GEMMs follow
    // its arrival. More chunks only shorten the GEMMs.
    for (int64_t distance = 0; distance < team; ++distance) {
      std::vector<Task> &stream = schedule.streams.emplace_back();
      if (distance != 0)
        stream.push_back(
            {Resource::Link, transferSeconds(chunkBytes * chunks, link)});
      stream.insert(stream.end(), chunks, gemm);
    }
    return schedule.run(link);
  }
  if (problem.kind == PipelineProblem::Kind::AllgatherGemm) {
    for (int64_t chunk = 0; chunk < chunks; ++chunk)
      for (int64_t distance = 0; distance < team; ++distance) {
        schedule.streams.emplace_back();
        if (distance != 0)
          schedule.streams.back().push_back(transfer);
        schedule.streams.back().push_back(gemm);
      }
    return schedule.run(link);
  }
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    std::vector<Task> &stream = schedule.streams.emplace_back();
    for (int64_t distance = team - 1; distance > 0; --distance) {
      stream.push_back(gemm);
      stream.push_back(transfer);
    }
    if (team > 2)
      // Read the peers' blocks, write one.
      stream.push_back({Resource::Compute, double(team) * chunkBytes /
                                               machine.memoryBytesPerSecond});
    stream.push_back(gemm);
    // GEMM+allreduce: then the reduced chunk goes to every peer.
    if (problem.kind == PipelineProblem::Kind::GemmAllreduce)
      stream.insert(stream.end(), team - 1, transfer);
  }
  return schedule.run(link);
}

int64_t mlir::fuser::getMinRingChunks(PipelineProblem::Kind kind) {
  return kind == PipelineProblem::Kind::AllgatherGemm ? 1 : 2;
}

double mlir::fuser::estimatePipeline(const PipelineProblem &problem,
                                     Pipelining mode, int64_t chunks,
                                     const PipelineCalibration &machine) {
  using Kind = PipelineProblem::Kind;
  int64_t team = problem.teamSize;
  double blockBytes = double(problem.rows / team) * double(problem.rowBytes);
  // Bytes a rank receives: the other members' blocks (an allreduce moves
  // them twice: reduce-scatter, then allgather).
  double received = double(team - 1) * blockBytes;
  double collectiveBytes =
      problem.kind == Kind::GemmAllreduce ? 2 * received : received;
  auto gemm = [&](int64_t rows) {
    return machine.gemmSeconds(rows, problem.n, problem.k);
  };
  const LinkCalibration &nccl = problem.getNcclLink(machine);
  switch (mode) {
  case Pipelining::None:
    return gemm(problem.rows) + transferSeconds(collectiveBytes, nccl);
  case Pipelining::Collective: {
    double step = gemm(problem.rows / chunks);
    double transfer = transferSeconds(collectiveBytes / chunks, nccl);
    return step + transfer +
           double(chunks - 1) * overlapSeconds(step, transfer, nccl);
  }
  case Pipelining::Ring:
    return estimateRing(problem, chunks,
                        problem.copyEngineRing ? machine.copyEngine : nccl,
                        machine);
  }
  llvm_unreachable("unknown pipelining");
}

PipelinePlan mlir::fuser::choosePipeline(const PipelineProblem &problem,
                                         const PipelineCalibration &machine) {
  int64_t block = problem.rows / problem.teamSize;
  PipelinePlan best{Pipelining::None, 0,
                    estimatePipeline(problem, Pipelining::None, 0, machine)};
  auto consider = [&](Pipelining mode, int64_t chunks) {
    if (block % chunks != 0)
      return;
    double seconds = estimatePipeline(problem, mode, chunks, machine);
    // A plan must win clearly to be worth its extra calls.
    if (seconds < 0.98 * best.seconds)
      best = {mode, chunks, seconds};
  };
  for (int64_t chunks : {2, 4, 8})
    consider(Pipelining::Collective, chunks);
  // More chunks of a pushing ring only add calls (on 2 x H200 one chunk
  // per block was as fast as two or faster, within 2%, at every benchmark
  // shape).
  bool pushing = pushesChunksTogether(problem);
  for (int64_t chunks : {1, 2, 4})
    if (chunks >= getMinRingChunks(problem.kind) && (!pushing || chunks == 1))
      consider(Pipelining::Ring, chunks);
  return best;
}
