//===- fuser-exec.cpp - run a compiled program on MPI ranks ---------------===//
//
//   mpirun -np N fuser-exec prog.so [--program NAME] [--iterations K]
//       [--seed S] [--inputs a.npy,b.npy] [--outputs y.npy] [--check]
//       [--tolerance T] [--graph] [--time] [--host-time] [--time-batch B]
//
// Loads a library fuser-compile wrote, creates the global inputs (seeded
// random values, or .npy files), hands every rank its piece, runs the
// program K times, gathers the last execution's outputs on rank 0 and,
// with --check, compares them with the unsharded reference program run on
// rank 0. Prints one line and exits non-zero on any failure, on every rank.
// The first execution is the warm-up: it allocates and sets up what later
// ones reuse (cached buffers, communicators, IPC shares, kernels), so that
// an execution after it that asks the device for memory fails the run.
//
// --graph (GPU programs) captures one execution as a CUDA graph after the
// warm-up (fuser_graph_begin_capture / end_capture), and each of the K - 1
// iterations after the warm-up replays it (fuser_graph_launch) instead of
// calling the program. The results are the buffers of the captured
// execution, which the graph owns and every replay writes again: the last
// replay's are read and checked, and releasing them leaves them to the
// graph, which frees them when it is destroyed. A program that cannot be
// captured fails naming the call (a host synchronization, say).
//
// --time and --host-time time the K - 1 iterations after the warm-up in
// batches of B back-to-back executions (default 1). Before a batch, the
// device is drained (fuser_synchronize) and the ranks meet (MPI_Barrier).
// --time measures the device time of the batch with a timer on the current
// stream (fuser_timer_*: CUDA events around the batch on GPUs, the steady
// clock on CPU ranks), so that it includes all the asynchronous work the
// batch issued. --host-time measures the host's time to issue the batch,
// without waiting for the device: the CPU cost of an execution as long as
// the device keeps up (once the device's queue is full, the host waits for
// it and the time is the device's). Each batch gives a time per execution
// (its time / its executions), the slowest rank's; the lines give their
// median, minimum and maximum in microseconds, then the device allocations
// per timed execution, before the verdict:
//   fuser-exec: timing NAME: executions=N batch=B median_us=M min_us=L max_us=H
//   fuser-exec: host timing NAME: executions=N batch=B median_us=M min_us=L max_us=H
//   fuser-exec: device allocations NAME: executions=N per_execution=A
// Timed executions release their results without reading them back (each
// execution releases the previous one's, stream-ordered); the last one's
// are read, gathered and checked.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include "Npy.h"
#include "ProgramRunner.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace fuser;

namespace {

struct Options {
  std::string library, program, inputs, outputs;
  int64_t iterations = 1, seed = 0;
  bool check = false, graph = false, time = false, hostTime = false;
  int64_t timeBatch = 1;
  /// Unset: 1e-4, or 2e-2 when a tensor has 16-bit floats.
  std::optional<double> tolerance;
};

[[noreturn]] void exitWith(const std::string &message) {
  if (fuser_rank() == 0)
    std::fprintf(stderr, "fuser-exec: %s\n", message.c_str());
  fuser_finalize();
  std::exit(1);
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        exitWith(argument + " needs a value");
      return argv[++i];
    };
    if (argument == "--program")
      options.program = value();
    else if (argument == "--iterations")
      options.iterations = std::stoll(value());
    else if (argument == "--seed")
      options.seed = std::stoll(value());
    else if (argument == "--inputs")
      options.inputs = value();
    else if (argument == "--outputs")
      options.outputs = value();
    else if (argument == "--tolerance")
      options.tolerance = std::stod(value());
    else if (argument == "--check")
      options.check = true;
    else if (argument == "--graph")
      options.graph = true;
    else if (argument == "--time")
      options.time = true;
    else if (argument == "--host-time")
      options.hostTime = true;
    else if (argument == "--time-batch")
      options.timeBatch = std::stoll(value());
    else if (!argument.empty() && argument[0] == '-')
      exitWith("unknown option " + argument);
    else
      options.library = argument;
  }
  if (options.library.empty())
    exitWith("usage: fuser-exec prog.so [--program NAME] [--iterations K] "
             "[--seed S] [--inputs a.npy,...] [--outputs y.npy,...] [--check] "
             "[--tolerance T] [--graph] [--time] [--host-time] "
             "[--time-batch B]");
  if (options.iterations < 1)
    exitWith("--iterations must be at least 1");
  if ((options.time || options.hostTime) && options.iterations < 2)
    exitWith(std::string(options.time ? "--time" : "--host-time") +
             " times the iterations after the first: give --iterations 2 or "
             "more");
  if (options.graph && options.iterations < 2)
    exitWith("--graph replays the iterations after the first: give "
             "--iterations 2 or more");
  if (options.timeBatch < 1)
    exitWith("--time-batch must be at least 1");
  return options;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  std::istringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ','))
    items.push_back(item);
  return items;
}

/// Ends every rank unless `succeeded` holds on every rank; the first rank
/// where it does not prints `message` (naming itself unless it is rank 0).
/// Collective.
void exitUnlessEveryRank(bool succeeded, const std::string &message) {
  int worldSize = static_cast<int>(fuser_world_size());
  int mine = succeeded ? worldSize : static_cast<int>(fuser_rank()), first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == worldSize)
    return;
  if (first == fuser_rank())
    std::fprintf(stderr, "fuser-exec: %s%s\n",
                 first ? ("rank " + std::to_string(first) + ": ").c_str() : "",
                 message.c_str());
  fuser_finalize();
  std::exit(1);
}

/// The executions after the warm-up: calls of the program's entry point,
/// each releasing the previous one's results first (stream-ordered: the
/// release waits for the execution that made them), or replays of the
/// graph of one captured execution, whose results every replay writes
/// again.
class Repetitions {
public:
  Repetitions(Entry entry, const ProgramInputs &inputs,
              const std::vector<const TensorSpec *> &outputs)
      : entry(entry), inputs(inputs), outputs(outputs) {}
  ~Repetitions() {
    // The graph's results are its own: they go with it.
    if (results)
      releaseResults(*results, inputs, outputs);
    fuser_graph_destroy(graph);
  }
  Repetitions(const Repetitions &) = delete;
  Repetitions &operator=(const Repetitions &) = delete;

  /// Captures one execution; every rank ends with the first failure's
  /// message when a rank cannot. Collective.
  void capture() {
    FuserStatus started = fuser_graph_begin_capture();
    if (started == FUSER_OK) {
      results = execute(entry, inputs, outputs);
      graph = fuser_graph_end_capture();
    }
    exitUnlessEveryRank(graph != nullptr,
                        std::string("--graph: ") + fuser_last_error());
  }
  void runOne() {
    if (graph) {
      fuser_check(fuser_graph_launch(graph));
      return;
    }
    if (results)
      releaseResults(*results, inputs, outputs);
    results = execute(entry, inputs, outputs);
  }
  /// The last execution's outputs, contiguous on the host.
  std::vector<HostTensor> read() const {
    return readResults(*results, inputs, outputs);
  }

private:
  Entry entry;
  const ProgramInputs &inputs;
  const std::vector<const TensorSpec *> &outputs;
  FuserGraph *graph = nullptr;
  std::optional<std::vector<int64_t>> results;
};

/// Each batch's time per execution in microseconds on this rank, as the
/// device saw it (--time) and as the host issued it (--host-time).
struct BatchTimes {
  std::vector<double> device, host;
};

/// Runs `executions` repetitions in batches of `batchSize` and times each
/// batch as the header says (--time, --host-time).
BatchTimes timeExecutions(Repetitions &repetitions, int64_t executions,
                          int64_t batchSize, bool deviceTime, bool hostTime) {
  BatchTimes times;
  FuserTimer *timer =
      deviceTime ? static_cast<FuserTimer *>(fuser_checked(fuser_timer_create()))
                 : nullptr;
  for (int64_t done = 0; done < executions;) {
    int64_t batch = std::min(batchSize, executions - done);
    fuser_check(fuser_synchronize());
    MPI_Barrier(MPI_COMM_WORLD);
    if (timer)
      fuser_check(fuser_timer_start(timer));
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < batch; ++i)
      repetitions.runOne();
    std::chrono::duration<double, std::micro> issued =
        std::chrono::steady_clock::now() - start;
    if (hostTime)
      times.host.push_back(issued.count() / batch);
    if (timer) {
      double elapsed = 0;
      fuser_check(fuser_timer_stop(timer));
      fuser_check(fuser_timer_elapsed_us(timer, &elapsed));
      times.device.push_back(elapsed / batch);
    }
    done += batch;
  }
  fuser_timer_destroy(timer);
  return times;
}

/// A timing line of the header from each rank's batch times: per batch the
/// slowest rank's, then their median, minimum and maximum. Collective; the
/// line is rank 0's.
std::string timingLine(const char *kind, const std::string &program,
                       const std::vector<double> &times, int64_t executions,
                       int64_t batchSize) {
  std::vector<double> slowest(times.size());
  MPI_Reduce(times.data(), slowest.data(), static_cast<int>(times.size()),
             MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  std::sort(slowest.begin(), slowest.end());
  size_t middle = slowest.size() / 2;
  double median = slowest.size() % 2
                      ? slowest[middle]
                      : (slowest[middle - 1] + slowest[middle]) / 2;
  char text[256];
  std::snprintf(text, sizeof(text),
                "%s %s: executions=%lld batch=%lld median_us=%.3f "
                "min_us=%.3f max_us=%.3f",
                kind, program.c_str(), static_cast<long long>(executions),
                static_cast<long long>(batchSize), median, slowest.front(),
                slowest.back());
  return text;
}
} // namespace

int main(int argc, char **argv) {
  if (fuser_init(&argc, &argv) != FUSER_OK) {
    std::fprintf(stderr, "fuser-exec: %s\n", fuser_last_error());
    return 1;
  }
  Options options = parseOptions(argc, argv);
  std::string error;
  std::optional<ProgramLibrary> library =
      loadProgramLibrary(options.library, error);
  if (!library)
    exitWith(error);
  const ProgramSpec *chosen = library->find(options.program);
  if (!chosen)
    exitWith("no program named " + options.program + " in " + options.library);
  const ProgramSpec &program = *chosen;
  std::string arity = checkEntryArity(program);
  if (!arity.empty())
    exitWith(arity);

  int64_t devices = ProgramLibrary::devicesOf(program);
  if (fuser_expect_world_size(devices) != FUSER_OK)
    exitWith(fuser_last_error());
  int64_t rank = fuser_rank();

  // Global inputs: the same on every rank.
  std::vector<std::string> files = splitList(options.inputs);
  std::vector<HostTensor> globals, locals;
  std::vector<fuser::Shape> globalShapes, localShapes;
  std::vector<const TensorSpec *> outputSpecs;
  bool narrowFloats = false;
  int64_t inputIndex = 0;
  for (const TensorSpec &tensor : program.tensors) {
    narrowFloats |= tensor.code == FUSER_F16 || tensor.code == FUSER_BF16;
    if (!tensor.isInput) {
      outputSpecs.push_back(&tensor);
      continue;
    }
    HostTensor values(tensor.code, tensor.numElements());
    if (!files.empty()) {
      if (static_cast<size_t>(inputIndex) >= files.size())
        exitWith("--inputs names " + std::to_string(files.size()) +
                 " files but " + program.name + " has more inputs");
      std::vector<float> data(values.size());
      std::string error;
      if (!fuser::readNpy(files[inputIndex], tensor.shape, data, error))
        exitWith(error);
      // f32 files feed every element type (bf16 and f16 values are exact in
      // f32), converted as the values are stored.
      if (tensor.code == FUSER_F32)
        std::memcpy(values.bytes.data(), data.data(), values.bytes.size());
      else
        for (int64_t i = 0; i < values.size(); ++i)
          values.set(i, data[i]);
    } else {
      std::mt19937_64 generator(options.seed * 1000003 + inputIndex);
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      for (int64_t i = 0; i < values.size(); ++i)
        values.set(i, uniform(generator));
    }
    fuser::Shape localShape;
    locals.push_back(pieceOf(tensor, values, rank, localShape));
    localShapes.push_back(localShape);
    globalShapes.push_back(tensor.shape);
    globals.push_back(std::move(values));
    ++inputIndex;
  }
  double tolerance = options.tolerance.value_or(narrowFloats ? 2e-2 : 1e-4);

  Entry entry = library->entry(program);
  if (!entry)
    exitWith(options.library + " has no entry point for " + program.name);
  bool onDevice = library->metadata.target == "cuda";
  // A rank whose GPU cannot start may be alone: end every rank.
  if (onDevice && fuser_use_backend(FUSER_BACKEND_CUDA) != FUSER_OK)
    fuser_fail((program.name + " was compiled for CUDA GPUs: " +
                fuser_last_error())
                   .c_str());
  std::vector<HostTensor> outputs;
  BatchTimes batchTimes;
  int64_t cachedAfterFirst = 0, cached = 0, allocationsAfterFirst = 0,
          allocationsAfterCapture = 0, allocations = 0;
  int64_t repeated = options.iterations - 1;
  {
    ProgramInputs inputs(locals, localShapes, onDevice);
    outputs = run(entry, inputs, outputSpecs);
    cachedAfterFirst = fuser_cached_buffer_count();
    allocationsAfterFirst = fuser_device_allocation_count();
    Repetitions repetitions(entry, inputs, outputSpecs);
    if (options.graph)
      repetitions.capture();
    allocationsAfterCapture = fuser_device_allocation_count();
    if (options.time || options.hostTime) {
      batchTimes = timeExecutions(repetitions, repeated, options.timeBatch,
                                  options.time, options.hostTime);
      outputs = repetitions.read();
    } else {
      for (int64_t iteration = 0; iteration < repeated; ++iteration) {
        repetitions.runOne();
        outputs = repetitions.read();
      }
    }
    cached = fuser_cached_buffer_count();
    allocations = fuser_device_allocation_count();
  }
  // A steady-state execution reuses memory: it asks the device for none.
  int64_t steadyAllocations = allocations - allocationsAfterCapture;
  std::vector<std::string> timing;
  if (options.time)
    timing.push_back(timingLine("timing", program.name, batchTimes.device,
                                repeated, options.timeBatch));
  if (options.hostTime)
    timing.push_back(timingLine("host timing", program.name, batchTimes.host,
                                repeated, options.timeBatch));
  if (options.time || options.hostTime) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "device allocations %s: executions=%lld per_execution=%g",
                  program.name.c_str(), static_cast<long long>(repeated),
                  static_cast<double>(steadyAllocations) / repeated);
    timing.push_back(text);
  }
  if (cached != cachedAfterFirst)
    exitWith("the allocation cache grew from " +
             std::to_string(cachedAfterFirst) + " to " +
             std::to_string(cached) + " buffers");
  if (steadyAllocations != 0)
    exitWith(std::string(options.graph ? "graph replays"
                                       : "executions after the first") +
             " made " + std::to_string(steadyAllocations) +
             " device allocations");

  // Each output whole on rank 0: every device sends its piece.
  std::vector<HostTensor> gathered;
  for (size_t o = 0; o < outputs.size(); ++o)
    gathered.push_back(gatherOnRankZero(*outputSpecs[o], outputs[o], devices));

  int failed = 0;
  if (rank == 0) {
    std::string verdict;
    std::vector<std::string> outputFiles = splitList(options.outputs);
    for (size_t o = 0; o < outputFiles.size() && o < gathered.size(); ++o) {
      std::vector<float> data(gathered[o].size());
      for (int64_t i = 0; i < gathered[o].size(); ++i)
        data[i] = static_cast<float>(gathered[o].get(i));
      std::string error;
      if (!fuser::writeNpy(outputFiles[o], outputSpecs[o]->shape, data,
                           error)) {
        verdict = error;
        failed = 1;
      }
    }
    std::ostringstream line;
    line << program.name << " on " << devices << " ranks, "
         << options.iterations << " iteration"
         << (options.iterations == 1 ? "" : "s");
    if (options.graph)
      line << " (" << repeated << " graph replays)";
    line << ", " << cached << " cached buffers";
    if (onDevice && options.graph)
      line << ", " << allocations << " device allocations ("
           << allocationsAfterCapture - allocationsAfterFirst
           << " in the capture, " << steadyAllocations << " after it)";
    else if (onDevice)
      line << ", " << allocationsAfterFirst << " device allocations ("
           << steadyAllocations << " after the first iteration)";
    if (options.check && !failed) {
      Entry reference = library->entry(program, /*reference=*/true);
      if (!reference)
        exitWith(options.library + " has no reference for " + program.name);
      // The reference is a CPU function: an independent computation.
      fuser_check(fuser_use_backend(FUSER_BACKEND_HOST));
      std::vector<HostTensor> expected = run(
          reference, ProgramInputs(globals, globalShapes, /*onDevice=*/false),
          outputSpecs);
      double worst = 0;
      for (size_t o = 0; o < expected.size(); ++o) {
        double scale = 0, difference = 0;
        for (int64_t i = 0; i < expected[o].size(); ++i) {
          scale = std::max(scale, std::fabs(expected[o].get(i)));
          difference = std::max(
              difference, std::fabs(expected[o].get(i) - gathered[o].get(i)));
        }
        worst = std::max(worst, scale > 0 ? difference / scale : difference);
      }
      failed = !(worst <= tolerance);
      char text[160];
      std::snprintf(text, sizeof(text),
                    ": check %s, max relative error %.3g (tolerance %.3g)",
                    failed ? "FAILED" : "passed", worst, tolerance);
      line << text;
    } else if (!failed) {
      line << ": done";
    }
    if (verdict.empty())
      verdict = line.str();
    for (const std::string &measured : timing)
      std::printf("fuser-exec: %s\n", measured.c_str());
    std::printf("fuser-exec: %s\n", verdict.c_str());
    std::fflush(stdout);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fuser_finalize();
  return failed;
}
