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
#include "ProgramMetadata.h"

#include <mpi.h>

#include <dlfcn.h>

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

/// A dense row-major tensor of any element type, as bytes.
struct HostTensor {
  FuserDType dtype;
  std::vector<char> bytes;

  HostTensor(FuserDType dtype, int64_t count)
      : dtype(dtype), bytes(count * fuser_element_size(dtype)) {}
  int64_t size() const { return bytes.size() / fuser_element_size(dtype); }
  char *at(int64_t index) { return bytes.data() + index * fuser_element_size(dtype); }
  const char *at(int64_t index) const {
    return bytes.data() + index * fuser_element_size(dtype);
  }
  double get(int64_t index) const { return fuser_load_element(at(index), dtype); }
  void set(int64_t index, double value) {
    fuser_store_element(at(index), dtype, value);
  }
};

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

/// A memref descriptor as the C entry points take it: allocated, aligned,
/// offset, sizes, strides (all 8 bytes).
std::vector<int64_t> makeDescriptor(char *data, const fuser::Shape &shape) {
  std::vector<int64_t> descriptor{reinterpret_cast<int64_t>(data),
                                  reinterpret_cast<int64_t>(data), 0};
  descriptor.insert(descriptor.end(), shape.begin(), shape.end());
  int64_t stride = 1;
  std::vector<int64_t> strides(shape.size());
  for (size_t dim = shape.size(); dim-- > 0;) {
    strides[dim] = stride;
    stride *= shape[dim];
  }
  descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  return descriptor;
}

using Entry = void (*)();

/// Calls a C entry point with `arguments` pointers.
void callEntry(Entry entry, const std::vector<void *> &a) {
  switch (a.size()) {
#define FUSER_CALL(N, ...)                                                      \
  case N:                                                                      \
    reinterpret_cast<void (*)(__VA_ARGS__)>(entry)
#define P void *
    FUSER_CALL(1, P)(a[0]); return;
    FUSER_CALL(2, P, P)(a[0], a[1]); return;
    FUSER_CALL(3, P, P, P)(a[0], a[1], a[2]); return;
    FUSER_CALL(4, P, P, P, P)(a[0], a[1], a[2], a[3]); return;
    FUSER_CALL(5, P, P, P, P, P)(a[0], a[1], a[2], a[3], a[4]); return;
    FUSER_CALL(6, P, P, P, P, P, P)(a[0], a[1], a[2], a[3], a[4], a[5]); return;
    FUSER_CALL(7, P, P, P, P, P, P, P)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    return;
    FUSER_CALL(8, P, P, P, P, P, P, P, P)(a[0], a[1], a[2], a[3], a[4], a[5],
                                          a[6], a[7]);
    return;
#undef P
#undef FUSER_CALL
  default:
    exitWith("programs with more than 7 inputs and outputs are not supported "
             "by fuser-exec yet");
  }
}

/// Row-major linear index in a tensor of `shape` of element `index` of a
/// block of `blockShape` that starts at `offset`.
int64_t globalIndex(int64_t index, const fuser::Shape &blockShape,
                    const fuser::Shape &offset, const fuser::Shape &shape) {
  int64_t position = 0, stride = 1;
  for (size_t dim = blockShape.size(); dim-- > 0;) {
    position += (index % blockShape[dim] + offset[dim]) * stride;
    index /= blockShape[dim];
    stride *= shape[dim];
  }
  return position;
}

/// Calls `copyRow(blockIndex, globalPosition, length)` for each innermost row
/// of a row-major block of `blockShape` that starts at `offset` in a tensor
/// of `shape`: a row is contiguous in both, so that tensors of gigabytes
/// are copied a row, not an element, at a time.
template <typename CopyRow>
void forEachBlockRow(const fuser::Shape &blockShape, const fuser::Shape &offset,
                     const fuser::Shape &shape, CopyRow copyRow) {
  int64_t count = 1;
  for (int64_t size : blockShape)
    count *= size;
  int64_t length = blockShape.empty() ? 1 : blockShape.back();
  for (int64_t index = 0; index < count; index += length)
    copyRow(index, globalIndex(index, blockShape, offset, shape), length);
}

/// `local` (a contiguous block at `offset`) placed into `global`.
void place(const HostTensor &local, const fuser::Shape &localShape,
           const fuser::Shape &offset, HostTensor &global,
           const fuser::Shape &globalShape) {
  int64_t size = fuser_element_size(local.dtype);
  forEachBlockRow(
      localShape, offset, globalShape,
      [&](int64_t localIndex, int64_t globalPosition, int64_t length) {
        std::memcpy(global.at(globalPosition), local.at(localIndex),
                    length * size);
      });
}

/// The piece of `global` a device holds (contiguous), or an empty piece of
/// the local shape for a device outside the tensor's mesh.
HostTensor pieceOf(const TensorSpec &tensor, const HostTensor &global,
                   int64_t device, fuser::Shape &localShape) {
  std::optional<fuser::Shape> shape =
      fuser::localShapeOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
  std::optional<fuser::Shape> offset =
      fuser::shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
  localShape = shape ? *shape
                     : *fuser::localShapeOn(tensor.shape, tensor.dimAxes,
                                            tensor.mesh, tensor.mesh.devices[0]);
  int64_t count = 1;
  for (int64_t size : localShape)
    count *= size;
  HostTensor piece(tensor.code, count);
  if (!shape)
    return piece;
  int64_t size = fuser_element_size(tensor.code);
  forEachBlockRow(
      localShape, *offset, tensor.shape,
      [&](int64_t localIndex, int64_t globalPosition, int64_t length) {
        std::memcpy(piece.at(localIndex), global.at(globalPosition),
                    length * size);
      });
  return piece;
}

/// Reads a strided result (descriptor at `fields`) into a contiguous
/// tensor. A device result is first copied whole (the span its strides
/// reach) to the host, so that any layout can be read there.
HostTensor readResult(const int64_t *fields, int64_t rank, FuserDType dtype,
                      bool onDevice) {
  auto *aligned = reinterpret_cast<char *>(fields[1]);
  int64_t offset = fields[2], size = fuser_element_size(dtype);
  const int64_t *sizes = fields + 3, *strides = fields + 3 + rank;
  int64_t count = 1, span = 1;
  for (int64_t dim = 0; dim < rank; ++dim) {
    count *= sizes[dim];
    span += (sizes[dim] - 1) * strides[dim];
  }
  HostTensor values(dtype, count);
  if (count == 0)
    return values;
  std::vector<char> staged;
  const char *base = aligned + offset * size;
  if (onDevice) {
    staged.resize(span * size);
    int64_t one[1] = {span}, unit[1] = {1};
    FuserBuffer from{aligned, aligned, offset, 1, one, unit, dtype};
    FuserBuffer to{staged.data(), staged.data(), 0, 1, one, unit, dtype};
    if (fuser_copy(&from, &to) != FUSER_OK || fuser_synchronize() != FUSER_OK)
      fuser_fail(fuser_last_error());
    base = staged.data();
  }
  // A row at a time: one copy where the innermost dim is contiguous.
  int64_t length = rank == 0 ? 1 : sizes[rank - 1];
  int64_t innerStride = rank == 0 ? 1 : strides[rank - 1];
  for (int64_t index = 0; index < count; index += length) {
    int64_t rest = index, position = 0;
    for (int64_t dim = rank; dim-- > 0;) {
      position += (rest % sizes[dim]) * strides[dim];
      rest /= sizes[dim];
    }
    if (innerStride == 1) {
      std::memcpy(values.at(index), base + position * size, length * size);
      continue;
    }
    for (int64_t element = 0; element < length; ++element)
      std::memcpy(values.at(index + element),
                  base + (position + element * innerStride) * size, size);
  }
  return values;
}

/// The inputs of one rank where its program reads them: host memory for the
/// host backend, device buffers (copied once) for the CUDA backend.
struct ProgramInputs {
  std::vector<char *> data;
  std::vector<fuser::Shape> shapes;
  bool onDevice = false;

  ProgramInputs(std::vector<HostTensor> &tensors,
                const std::vector<fuser::Shape> &tensorShapes, bool onDevice)
      : shapes(tensorShapes), onDevice(onDevice) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (!onDevice) {
        data.push_back(tensors[i].bytes.data());
        continue;
      }
      int64_t bytes = static_cast<int64_t>(tensors[i].bytes.size());
      auto *device = static_cast<char *>(
          fuser_checked(fuser_allocate(bytes, FUSER_MEMORY_DEVICE, 0)));
      int64_t count[1] = {tensors[i].size()}, unit[1] = {1};
      FuserBuffer from{tensors[i].bytes.data(), tensors[i].bytes.data(), 0, 1,
                       count, unit, tensors[i].dtype};
      FuserBuffer to{device, device, 0, 1, count, unit, tensors[i].dtype};
      fuser_check(fuser_copy(&from, &to));
      data.push_back(device);
    }
    if (onDevice)
      fuser_check(fuser_synchronize());
  }
  ~ProgramInputs() {
    if (onDevice)
      for (char *device : data)
        fuser_deallocate(device);
  }
};

/// Runs `entry` over `inputs`; returns the descriptors of its results, one
/// after the other.
std::vector<int64_t> execute(Entry entry, const ProgramInputs &inputs,
                             const std::vector<const TensorSpec *> &outputs) {
  std::vector<int64_t> results;
  for (const TensorSpec *output : outputs)
    results.resize(results.size() + 3 + 2 * output->shape.size());
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < inputs.data.size(); ++i)
    descriptors.push_back(makeDescriptor(inputs.data[i], inputs.shapes[i]));
  std::vector<void *> arguments;
  if (!outputs.empty())
    arguments.push_back(results.data());
  for (auto &descriptor : descriptors)
    arguments.push_back(descriptor.data());
  callEntry(entry, arguments);
  return results;
}

/// The results `execute` returned, contiguous on the host.
std::vector<HostTensor>
readResults(const std::vector<int64_t> &results, const ProgramInputs &inputs,
            const std::vector<const TensorSpec *> &outputs) {
  std::vector<HostTensor> values;
  const int64_t *fields = results.data();
  for (const TensorSpec *output : outputs) {
    int64_t rank = static_cast<int64_t>(output->shape.size());
    values.push_back(readResult(fields, rank, output->code, inputs.onDevice));
    fields += 3 + 2 * rank;
  }
  return values;
}

/// Frees the buffers the program allocated for the results `execute`
/// returned. Results may be views of the inputs or of one another: each
/// buffer is freed once.
void releaseResults(const std::vector<int64_t> &results,
                    const ProgramInputs &inputs,
                    const std::vector<const TensorSpec *> &outputs) {
  std::vector<char *> owned;
  const int64_t *fields = results.data();
  for (const TensorSpec *output : outputs) {
    auto *allocated = reinterpret_cast<char *>(fields[0]);
    bool isInput = std::find(inputs.data.begin(), inputs.data.end(),
                             allocated) != inputs.data.end();
    if (!isInput && std::find(owned.begin(), owned.end(), allocated) == owned.end())
      owned.push_back(allocated);
    fields += 3 + 2 * output->shape.size();
  }
  for (char *buffer : owned)
    fuser_deallocate(buffer);
}

/// Runs `entry` over `inputs`; returns the outputs, contiguous on the
/// host, and frees the buffers the program allocated for them.
std::vector<HostTensor> run(Entry entry, const ProgramInputs &inputs,
                            const std::vector<const TensorSpec *> &outputs) {
  std::vector<int64_t> results = execute(entry, inputs, outputs);
  std::vector<HostTensor> values = readResults(results, inputs, outputs);
  releaseResults(results, inputs, outputs);
  return values;
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
  // A bare file name would be looked up on the library path, not here.
  std::string path = options.library.find('/') == std::string::npos
                         ? "./" + options.library
                         : options.library;
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    exitWith(std::string("cannot load ") + options.library + ": " + dlerror());
  auto *metadata =
      static_cast<const char *>(dlsym(library, "fuser_program_metadata"));
  if (!metadata)
    exitWith(options.library + " was not written by fuser-compile (no "
                               "fuser_program_metadata)");
  ProgramMetadata contents;
  std::string error;
  if (!parseProgramMetadata(metadata, contents, error))
    exitWith(options.library + ": " + error);
  std::vector<ProgramSpec> &programs = contents.programs;
  auto chosen = std::find_if(programs.begin(), programs.end(), [&](auto &p) {
    return options.program.empty() || p.name == options.program;
  });
  if (chosen == programs.end())
    exitWith("no program named " + options.program + " in " + options.library);
  const ProgramSpec &program = *chosen;

  int64_t devices = 0;
  for (const TensorSpec &tensor : program.tensors)
    for (int64_t device : tensor.mesh.devices)
      devices = std::max(devices, device + 1);
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

  auto entry = reinterpret_cast<Entry>(dlsym(library, program.entry.c_str()));
  if (!entry)
    exitWith(options.library + " has no entry point for " + program.name);
  bool onDevice = contents.target == "cuda";
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

  // Gather each output on rank 0: every device sends its piece.
  std::vector<HostTensor> gathered;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorSpec &tensor = *outputSpecs[o];
    HostTensor global(tensor.code, rank == 0 ? tensor.numElements() : 0);
    for (int64_t device = 0; device < devices; ++device) {
      std::optional<fuser::Shape> shape = fuser::localShapeOn(
          tensor.shape, tensor.dimAxes, tensor.mesh, device);
      if (!shape)
        continue;
      int64_t elements = 1;
      for (int64_t size : *shape)
        elements *= size;
      HostTensor piece(tensor.code, 0);
      if (device == rank)
        piece = outputs[o];
      if (device != 0 && rank == device)
        MPI_Send(piece.bytes.data(), static_cast<int>(piece.bytes.size()),
                 MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      if (device != 0 && rank == 0) {
        piece = HostTensor(tensor.code, elements);
        MPI_Recv(piece.bytes.data(), static_cast<int>(piece.bytes.size()),
                 MPI_BYTE, static_cast<int>(device), 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      }
      if (rank == 0)
        place(piece, *shape,
              *fuser::shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh,
                                    device),
              global, tensor.shape);
    }
    gathered.push_back(std::move(global));
  }

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
      auto reference =
          reinterpret_cast<Entry>(dlsym(library, program.reference.c_str()));
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
