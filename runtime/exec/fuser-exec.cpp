//===- fuser-exec.cpp - run a compiled program on MPI ranks ---------------===//
//
//   mpirun -np N fuser-exec prog.so [--program NAME] [--iterations K]
//       [--seed S] [--inputs a.npy,b.npy] [--outputs y.npy] [--check]
//       [--tolerance T] [--graph] [--time] [--host-time] [--time-batch B]
//       [--memory]
//
// Loads a library fuser-compile wrote, creates the global inputs (seeded
// random values, or .npy files), hands every rank its piece, runs the
// program K times and, with --check, compares every rank's piece of every
// output of the last execution (a shard, or a whole copy of a replicated
// output) with the unsharded reference program run on rank 0; --outputs
// gathers them on rank 0 and writes them. Prints one line and exits
// non-zero on any failure, on every rank: the ranks agree on each step's
// errors before going on, and every wait on the other ranks is bounded by
// FUSER_TIMEOUT_S (BoundedCollectives.h), so that bad input, a rank that
// failed or one that was killed ends every rank with a message instead of
// leaving some waiting.
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
// device is drained (fuser_synchronize) and the ranks meet (a barrier).
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
// clang-format off
//   fuser-exec: timing NAME: executions=N batch=B median_us=M min_us=L max_us=H
//   fuser-exec: host timing NAME: executions=N batch=B median_us=M min_us=L max_us=H
//   fuser-exec: device allocations NAME: executions=N per_execution=A
//   fuser-exec: device memory NAME: peak_bytes=P
//   fuser-exec: phases NAME: inputs_s=I pieces_s=P to_device_s=D first_execution_s=F timed_s=T
// clang-format on
// (P: the most device memory a rank's buffers held at once, inputs and
// outputs included, the largest of the ranks'; on GPUs only. The phases
// are wall-clock seconds, the slowest rank's: making or reading the
// global inputs, cutting each rank's pieces, copying them to the device,
// the first execution with its results read back, and the timed
// executions with the last one's results read back; starting the
// device backend counts in to_device.)
// Timed executions release their results without reading them back (each
// execution releases the previous one's, stream-ordered); the last one's
// are read and checked.
//
// --memory reads each rank's resident memory (VmRSS) after the warm-up
// (and the capture, with --graph) and after the last execution, and prints
// the largest of the ranks' and the largest growth of a rank's in percent,
// before the verdict (a leak shows as growth with K):
// clang-format off
//   fuser-exec: resident memory NAME: executions=N warmup_kib=A end_kib=B growth_percent=G
// clang-format on
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include "BoundedCollectives.h"
#include "MachineCheck.h"
#include "Npy.h"
#include "ProgramRunner.h"
#include "ReferenceCheck.h"
#include "ResidentMemory.h"
#include "SeededInputs.h"

#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace fuser;

namespace {

struct Options {
  std::string library, program, inputs, outputs;
  int64_t iterations = 1, seed = 0;
  bool check = false, graph = false, time = false, hostTime = false,
       memory = false;
  int64_t timeBatch = 1;
  /// Unset: 1e-4, or 2e-2 when a tensor has 16-bit floats.
  std::optional<double> tolerance;
};

/// A command line fuser-exec cannot run; its message says why.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `text`, the value of `option`, as an integer of at least `minimum`.
int64_t parseInteger(const std::string &option, const std::string &text,
                     int64_t minimum) {
  int64_t value = 0;
  auto [end, problem] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (problem != std::errc() || end != text.data() + text.size() ||
      value < minimum)
    throw UsageError(option + " takes an integer" +
                     (minimum > INT64_MIN
                          ? " of at least " + std::to_string(minimum)
                          : std::string()) +
                     ", got '" + text + "'");
  return value;
}

/// `text`, the value of `option`, as a finite non-negative number.
double parseNonNegative(const std::string &option, const std::string &text) {
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0)
    throw UsageError(option + " takes a non-negative number, got '" + text +
                     "'");
  return value;
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw UsageError(argument + " needs a value");
      return argv[++i];
    };
    if (argument == "--program")
      options.program = value();
    else if (argument == "--iterations")
      options.iterations = parseInteger(argument, value(), 1);
    else if (argument == "--seed")
      options.seed = parseInteger(argument, value(), INT64_MIN);
    else if (argument == "--inputs")
      options.inputs = value();
    else if (argument == "--outputs")
      options.outputs = value();
    else if (argument == "--tolerance")
      options.tolerance = parseNonNegative(argument, value());
    else if (argument == "--check")
      options.check = true;
    else if (argument == "--graph")
      options.graph = true;
    else if (argument == "--time")
      options.time = true;
    else if (argument == "--host-time")
      options.hostTime = true;
    else if (argument == "--time-batch")
      options.timeBatch = parseInteger(argument, value(), 1);
    else if (argument == "--memory")
      options.memory = true;
    else if (!argument.empty() && argument[0] == '-')
      throw UsageError("unknown option " + argument);
    else if (!options.library.empty())
      throw UsageError("one library is run at a time, got " + options.library +
                       " and " + argument);
    else
      options.library = argument;
  }
  if (options.library.empty())
    throw UsageError(
        "usage: fuser-exec prog.so [--program NAME] [--iterations K] "
        "[--seed S] [--inputs a.npy,...] [--outputs y.npy,...] [--check] "
        "[--tolerance T] [--graph] [--time] [--host-time] "
        "[--time-batch B] [--memory]");
  // Each of these is about the iterations after the warm-up.
  for (auto [given, what] : {std::pair{options.time, "--time times"},
                             std::pair{options.hostTime, "--host-time times"},
                             std::pair{options.memory, "--memory measures"},
                             std::pair{options.graph, "--graph replays"}})
    if (given && options.iterations < 2)
      throw UsageError(std::string(what) +
                       " the iterations after the first: give --iterations "
                       "2 or more");
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
    exitOnAnyRankError(graph ? ""
                             : std::string("--graph: ") + fuser_last_error());
  }
  void runOne() {
    if (graph) {
      fuser_check(fuser_graph_launch(graph));
      return;
    }
    if (results)
      releaseResults(*results, inputs, outputs);
    // A failed execution has no results to release.
    results.reset();
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
    boundedBarrier("starting a timed batch");
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
  boundedReduce(times.data(), slowest.data(), static_cast<int>(times.size()),
                MPI_MAX, "collecting the timings");
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

/// "resident memory NAME: ..." (--memory) from this rank's resident memory
/// after the warm-up and at the end: the largest of the ranks' and the
/// largest growth of a rank's. Collective; the line is rank 0's.
std::string memoryLine(const std::string &program, int64_t executions,
                       int64_t warmupKiB, int64_t endKiB) {
  double mine[3] = {static_cast<double>(warmupKiB), static_cast<double>(endKiB),
                    100.0 * (endKiB - warmupKiB) / warmupKiB};
  double largest[3] = {0, 0, 0};
  boundedReduce(mine, largest, 3, MPI_MAX, "collecting resident memory");
  char text[256];
  std::snprintf(text, sizeof(text),
                "resident memory %s: executions=%lld warmup_kib=%.0f "
                "end_kib=%.0f growth_percent=%.2f",
                program.c_str(), static_cast<long long>(executions), largest[0],
                largest[1], largest[2]);
  return text;
}

/// "phases NAME: ..." (--time) from this rank's wall-clock seconds per
/// phase of the run: the slowest rank's. Collective; the line is rank 0's.
std::string phasesLine(const std::string &program,
                       const std::vector<double> &seconds) {
  static const char *const names[] = {"inputs", "pieces", "to_device",
                                      "first_execution", "timed"};
  std::vector<double> slowest(seconds.size());
  boundedReduce(seconds.data(), slowest.data(),
                static_cast<int>(seconds.size()), MPI_MAX,
                "collecting the phases' times");
  std::string text = "phases " + program + ":";
  for (size_t phase = 0; phase < slowest.size(); ++phase) {
    char field[64];
    std::snprintf(field, sizeof(field), " %s_s=%.2f", names[phase],
                  slowest[phase]);
    text += field;
  }
  return text;
}

std::string peakMemoryLine(const std::string &program) {
  double mine = static_cast<double>(fuser_device_memory_peak_bytes());
  double largest = 0;
  boundedReduce(&mine, &largest, 1, MPI_MAX, "collecting peak device memory");
  char text[160];
  std::snprintf(text, sizeof(text), "device memory %s: peak_bytes=%.0f",
                program.c_str(), largest);
  return text;
}

/// Why `program` of `library` cannot run as `options` ask, or empty: a
/// missing entry point or reference, file lists that do
/// not match its inputs and outputs, another number of ranks.
std::string checkRunnable(const ProgramLibrary &library,
                          const ProgramSpec &program, const Options &options) {
  if (!library.entry(program))
    return options.library + " has no entry point for " + program.name + " (" +
           program.entry + ")";
  if (options.check && !library.entry(program, /*reference=*/true))
    return options.library + " has no reference for " + program.name + " (" +
           program.reference + ")";
  size_t inputs = 0;
  for (const TensorSpec &tensor : program.tensors)
    inputs += tensor.isInput;
  size_t outputs = program.tensors.size() - inputs;
  size_t inputFiles = splitList(options.inputs).size(),
         outputFiles = splitList(options.outputs).size();
  if (inputFiles && inputFiles != inputs)
    return "--inputs names " + std::to_string(inputFiles) + " files but " +
           program.name + " has " + std::to_string(inputs) + " inputs";
  if (outputFiles > outputs)
    return "--outputs names " + std::to_string(outputFiles) + " files but " +
           program.name + " has " + std::to_string(outputs) + " outputs";
  if (fuser_expect_world_size(ProgramLibrary::devicesOf(program)) != FUSER_OK)
    return fuser_last_error();
  return "";
}

/// The program's global inputs, the same on every rank: the .npy files
/// --inputs names, or seeded uniform values in [-1, 1). Empty with `error`
/// set when a file is not the input or memory runs out.
std::vector<HostTensor> makeGlobalInputs(const ProgramSpec &program,
                                         const Options &options,
                                         std::string &error) {
  std::vector<std::string> files = splitList(options.inputs);
  std::vector<HostTensor> globals;
  int64_t inputIndex = 0;
  for (const TensorSpec &tensor : program.tensors) {
    if (!tensor.isInput)
      continue;
    try {
      HostTensor values(tensor.code, tensor.numElements());
      if (!files.empty()) {
        if (!readNpy(files[inputIndex], tensor.shape, values, error))
          return {};
      } else {
        fillUniform(values, static_cast<uint64_t>(options.seed) * 1000003 +
                                static_cast<uint64_t>(inputIndex));
      }
      globals.push_back(std::move(values));
    } catch (const std::bad_alloc &) {
      error = "input #" + std::to_string(inputIndex) + " of " + program.name +
              " (" + std::to_string(tensor.numElements()) + " " + tensor.dtype +
              " elements) does not fit in this rank's memory";
      return {};
    }
    ++inputIndex;
  }
  return globals;
}

/// Empty when every rank holds the same global inputs, else which input
/// differs and where: ranks reading files of one name on different
/// machines, or seeding alike by mistake, would check a program against
/// inputs it never ran on. Collective.
std::string findDifferingInputs(const std::vector<HostTensor> &globals) {
  for (size_t index = 0; index < globals.size(); ++index) {
    uint64_t hash = 1469598103934665603ull;
    for (char byte : globals[index].bytes)
      hash = (hash ^ static_cast<unsigned char>(byte)) * 1099511628211ull;
    std::vector<uint64_t> hashes =
        boundedAllgather(hash, "comparing the global inputs");
    for (size_t rank = 1; rank < hashes.size(); ++rank)
      if (hashes[rank] != hashes[0])
        return "input #" + std::to_string(index) +
               " differs between ranks 0 and " + std::to_string(rank) +
               ": every rank must hold the same global inputs";
  }
  return "";
}

/// The end of the verdict's line for --check.
std::string checkSummary(const CheckVerdict &verdict, double tolerance) {
  char text[160];
  std::snprintf(text, sizeof(text),
                ": check %s, max relative error %.3g (tolerance %.3g)",
                verdict.differences.empty() ? "passed" : "FAILED",
                verdict.worstError, tolerance);
  return text;
}
} // namespace

/// What main does, where a failed program throws.
static int runCommand(int argc, char **argv) {
  if (fuser_init(&argc, &argv) != FUSER_OK) {
    std::fprintf(stderr, "fuser-exec: %s\n", fuser_last_error());
    return 1;
  }
  // Every rank takes each step; a step's error on any rank ends them all.
  std::string error;
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const UsageError &usage) {
    error = usage.what();
  }
  exitOnAnyRankError(error);
  std::optional<ProgramLibrary> library =
      loadProgramLibrary(options.library, error);
  exitOnAnyRankError(error);
  const ProgramSpec *chosen = library->find(options.program);
  if (!chosen) {
    error = "no program named " + options.program + " in " + options.library +
            " (it holds";
    for (const ProgramSpec &program : library->metadata.programs)
      error += " " + program.name;
    error += ")";
  }
  exitOnAnyRankError(error);
  const ProgramSpec &program = *chosen;
  exitOnAnyRankError(checkRunnable(*library, program, options));
  int64_t devices = ProgramLibrary::devicesOf(program);
  int64_t rank = fuser_rank();

  // Wall-clock seconds of each phase of the run (--time reports them).
  std::vector<double> phaseSeconds;
  auto phaseStart = std::chrono::steady_clock::now();
  auto endPhase = [&] {
    auto now = std::chrono::steady_clock::now();
    phaseSeconds.push_back(
        std::chrono::duration<double>(now - phaseStart).count());
    phaseStart = now;
  };
  std::vector<HostTensor> globals = makeGlobalInputs(program, options, error);
  exitOnAnyRankError(error);
  if (options.check)
    exitOnAnyRankError(findDifferingInputs(globals));
  endPhase();
  std::vector<HostTensor> locals;
  std::vector<fuser::Shape> globalShapes, localShapes;
  std::vector<const TensorSpec *> outputSpecs;
  bool narrowFloats = false;
  for (const TensorSpec &tensor : program.tensors) {
    narrowFloats |= tensor.code == FUSER_F16 || tensor.code == FUSER_BF16;
    if (!tensor.isInput) {
      outputSpecs.push_back(&tensor);
      continue;
    }
    // Where no mesh axis splits the tensor the piece is all of it: the
    // global values move into it (gigabytes at full size), unless --check
    // reads them again.
    HostTensor &global = globals[globalShapes.size()];
    fuser::Shape localShape = localShapeOf(tensor, rank);
    if (!options.check && localShape == tensor.shape &&
        fuser::shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh, rank))
      locals.push_back(std::move(global));
    else
      locals.push_back(pieceOf(tensor, global, rank, localShape));
    localShapes.push_back(localShape);
    globalShapes.push_back(tensor.shape);
  }
  double tolerance = options.tolerance.value_or(narrowFloats ? 2e-2 : 1e-4);
  endPhase();

  Entry entry = library->entry(program);
  bool onDevice = library->metadata.target == "cuda";
  // A rank whose GPU cannot start may be alone: end every rank.
  if (onDevice && fuser_use_backend(FUSER_BACKEND_CUDA) != FUSER_OK)
    fuser_fail((program.name + " was compiled for CUDA GPUs: " +
                fuser_last_error())
                   .c_str());
  if (rank == 0) {
    for (const std::string &line : describeMachine(library->metadata))
      std::printf("fuser-exec: %s\n", line.c_str());
    std::fflush(stdout);
  }
  std::vector<HostTensor> outputs;
  BatchTimes batchTimes;
  int64_t cachedAfterFirst = 0, cached = 0, allocationsAfterFirst = 0,
          allocationsAfterCapture = 0, allocations = 0, warmupKiB = 0,
          endKiB = 0;
  int64_t repeated = options.iterations - 1;
  {
    ProgramInputs inputs(locals, localShapes, onDevice);
    endPhase();
    outputs = run(entry, inputs, outputSpecs);
    endPhase();
    cachedAfterFirst = fuser_cached_buffer_count();
    allocationsAfterFirst = fuser_device_allocation_count();
    Repetitions repetitions(entry, inputs, outputSpecs);
    if (options.graph)
      repetitions.capture();
    allocationsAfterCapture = fuser_device_allocation_count();
    warmupKiB = readResidentKiB();
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
    endPhase();
    endKiB = readResidentKiB();
    cached = fuser_cached_buffer_count();
    allocations = fuser_device_allocation_count();
  }
  // A steady-state execution reuses memory: it asks the device for none.
  int64_t steadyAllocations = allocations - allocationsAfterCapture;
  if (cached != cachedAfterFirst)
    error = "the allocation cache grew from " +
            std::to_string(cachedAfterFirst) + " to " + std::to_string(cached) +
            " buffers";
  else if (steadyAllocations != 0)
    error = std::string(options.graph ? "graph replays"
                                      : "executions after the first") +
            " made " + std::to_string(steadyAllocations) +
            " device allocations";
  else if (options.memory && (warmupKiB <= 0 || endKiB <= 0))
    error = "--memory reads VmRSS in /proc/self/status, which this system "
            "does not report";
  exitOnAnyRankError(error);
  std::vector<std::string> measurements;
  if (options.time)
    measurements.push_back(timingLine("timing", program.name, batchTimes.device,
                                      repeated, options.timeBatch));
  if (options.hostTime)
    measurements.push_back(timingLine("host timing", program.name,
                                      batchTimes.host, repeated,
                                      options.timeBatch));
  if (options.time || options.hostTime) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "device allocations %s: executions=%lld per_execution=%g",
                  program.name.c_str(), static_cast<long long>(repeated),
                  static_cast<double>(steadyAllocations) / repeated);
    measurements.push_back(text);
    if (onDevice)
      measurements.push_back(peakMemoryLine(program.name));
    measurements.push_back(phasesLine(program.name, phaseSeconds));
  }
  if (options.memory)
    measurements.push_back(
        memoryLine(program.name, repeated, warmupKiB, endKiB));

  // --check: every rank's pieces against the reference, which each rank
  // runs (a CPU function: an independent computation).
  std::optional<CheckVerdict> verdict;
  if (options.check) {
    fuser_check(fuser_use_backend(FUSER_BACKEND_HOST));
    std::vector<HostTensor> expected = run(
        library->entry(program, /*reference=*/true),
        ProgramInputs(globals, globalShapes, /*onDevice=*/false), outputSpecs);
    verdict = checkEveryPiece(outputSpecs, outputs, expected, tolerance);
  }

  // --outputs: each output whole on rank 0, every device sending its piece.
  std::vector<std::string> outputFiles = splitList(options.outputs);
  for (size_t o = 0; o < outputFiles.size(); ++o) {
    HostTensor gathered =
        gatherOnRankZero(*outputSpecs[o], outputs[o], devices);
    if (rank != 0 || !error.empty())
      continue;
    writeNpy(outputFiles[o], outputSpecs[o]->shape, gathered, error);
  }
  exitOnAnyRankError(error);

  int failed = 0;
  if (rank == 0) {
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
    line << (verdict ? checkSummary(*verdict, tolerance) : ": done");
    for (const std::string &measured : measurements)
      std::printf("fuser-exec: %s\n", measured.c_str());
    std::printf("fuser-exec: %s\n", line.str().c_str());
    if (verdict) {
      failed = !verdict->differences.empty();
      for (const std::string &difference : verdict->differences)
        std::printf("fuser-exec: %s\n", difference.c_str());
    }
    std::fflush(stdout);
  }
  boundedBroadcast(&failed, sizeof(failed), 0, "sharing the verdict");
  fuser_finalize();
  return failed;
}

int main(int argc, char **argv) {
  try {
    return runCommand(argc, argv);
  } catch (const ProgramFailure &failure) {
    // The other ranks may be waiting in the program: end them all.
    fuser_fail(failure.what());
  }
}
