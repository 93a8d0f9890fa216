//===- PipelineCostModel.cpp - choosing how a pipeline overlaps -----------===//

#include "fuser/Dialect/Fuser/Transforms/PipelineCostModel.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::fuser;

PipelineCalibration PipelineCalibration::h200() {
  PipelineCalibration machine;
  // cuBLASLt bf16 on one H200: about 700 TFLOP/s for GEMMs of 4096 and
  // more on every side, less as the smallest side shrinks.
  machine.gemmClasses = {{4096, 700e12}, {2048, 640e12}, {1024, 560e12},
                         {512, 420e12}, {0, 250e12}};
  machine.gemmCallOverhead = 10e-6;
  machine.memoryBytesPerSecond = 4.0e12;
  // NCCL over NVLink: collectives run kernels on the SMs, so a GEMM beside
  // one barely overlaps it (a 5.9 ms GEMM beside a 4.6 ms all-gather took
  // 9.8 ms). The copy engine overlaps almost fully (5.9 ms beside a 2.9 ms
  // peer copy took 6.4 ms) at 354 GB/s each way when both ways move.
  machine.nccl = {250e9, 20e-6, 0.85};
  machine.copyEngine = {354e9, 15e-6, 0.15};
  return machine;
}

/// Replaces each of `fields` that `object` states (a number, or an error
/// naming `where` and the key).
static llvm::Error
readNumbers(const llvm::json::Object &object, llvm::StringRef where,
            std::initializer_list<std::pair<llvm::StringRef, double *>> fields) {
  for (auto [key, value] : fields) {
    const llvm::json::Value *field = object.get(key);
    if (!field)
      continue;
    std::optional<double> number = field->getAsNumber();
    if (!number)
      return llvm::createStringError("'" + where + key + "' must be a number");
    *value = *number;
  }
  return llvm::Error::success();
}

static llvm::Error readLink(const llvm::json::Object &object,
                            llvm::StringRef name, LinkCalibration &link) {
  const llvm::json::Object *fields = object.getObject(name);
  if (!fields)
    return llvm::Error::success();
  return readNumbers(*fields, (name + ".").str(),
                     {{"bytes_per_second", &link.bytesPerSecond},
                      {"latency_s", &link.latency},
                      {"interference", &link.interference}});
}

llvm::Expected<PipelineCalibration>
PipelineCalibration::load(llvm::StringRef path) {
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text)
    return llvm::createStringError("cannot read the calibration '" + path +
                                   "': " + text.getError().message());
  llvm::Expected<llvm::json::Value> document =
      llvm::json::parse((*text)->getBuffer());
  if (!document)
    return llvm::createStringError(
        "the calibration '" + path +
        "' is not JSON: " + llvm::toString(document.takeError()));
  const llvm::json::Object *object = document->getAsObject();
  if (!object)
    return llvm::createStringError("the calibration '" + path +
                                   "' must be a JSON object");
  PipelineCalibration machine = h200();
  if (const llvm::json::Array *classes = object->getArray("gemm_classes")) {
    machine.gemmClasses.clear();
    for (const llvm::json::Value &entry : *classes) {
      const llvm::json::Object *fields = entry.getAsObject();
      std::optional<int64_t> minDim =
          fields ? fields->getInteger("min_dim") : std::nullopt;
      std::optional<double> rate =
          fields ? fields->getNumber("flops_per_second") : std::nullopt;
      if (!minDim || !rate || *rate <= 0)
        return llvm::createStringError(
            "every entry of 'gemm_classes' needs an integer 'min_dim' and a "
            "positive 'flops_per_second'");
      machine.gemmClasses.push_back({*minDim, *rate});
    }
    if (machine.gemmClasses.empty())
      return llvm::createStringError("'gemm_classes' is empty");
    llvm::sort(machine.gemmClasses, [](const GemmClass &a, const GemmClass &b) {
      return a.minDim > b.minDim;
    });
  }
  if (llvm::Error error = readNumbers(
          *object, "",
          {{"gemm_call_overhead_s", &machine.gemmCallOverhead},
           {"memory_bytes_per_second", &machine.memoryBytesPerSecond}}))
    return std::move(error);
  if (llvm::Error error = readLink(*object, "nccl", machine.nccl))
    return std::move(error);
  if (llvm::Error error = readLink(*object, "copy_engine", machine.copyEngine))
    return std::move(error);
  return machine;
}

double PipelineCalibration::gemmSeconds(int64_t m, int64_t n,
                                        int64_t k) const {
  int64_t smallest = std::min({m, n, k});
  const GemmClass *chosen = &gemmClasses.back();
  for (const GemmClass &shapeClass : gemmClasses)
    if (smallest >= shapeClass.minDim) {
      chosen = &shapeClass;
      break;
    }
  return gemmCallOverhead +
         2.0 * double(m) * double(n) * double(k) / chosen->flopsPerSecond;
}

static double transferSeconds(double bytes, const LinkCalibration &link) {
  return link.latency + bytes / link.bytesPerSecond;
}

/// A GEMM and a transfer running together.
static double overlapSeconds(double gemm, double transfer,
                             const LinkCalibration &link) {
  return std::max(gemm, transfer) +
         link.interference * std::min(gemm, transfer);
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
  switch (mode) {
  case Pipelining::None:
    return gemm(problem.rows) + transferSeconds(collectiveBytes, machine.nccl);
  case Pipelining::Collective: {
    double step = gemm(problem.rows / chunks);
    double transfer = transferSeconds(collectiveBytes / chunks, machine.nccl);
    return step + transfer +
           double(chunks - 1) * overlapSeconds(step, transfer, machine.nccl);
  }
  case Pipelining::Ring: {
    const LinkCalibration &link =
        problem.copyEngineRing ? machine.copyEngine : machine.nccl;
    int64_t steps = team * chunks;
    double step = gemm(problem.rows / steps);
    double transfer = transferSeconds(blockBytes / chunks, link);
    double seconds =
        step + double(steps - 1) * overlapSeconds(step, transfer, link);
    if (problem.kind == Kind::AllgatherGemm)
      // The rank's own block is copied into the gathered buffer first.
      return seconds + 2 * blockBytes / machine.memoryBytesPerSecond;
    // The local step comes last and hides the last transfer; then the
    // received blocks are reduced (read them all, write one).
    seconds += double(team + 1) * blockBytes / machine.memoryBytesPerSecond;
    if (problem.kind == Kind::GemmAllreduce)
      seconds += transferSeconds(received, machine.nccl);
    return seconds;
  }
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
  for (int64_t chunks : {1, 2, 4})
    consider(Pipelining::Ring, chunks);
  return best;
}
