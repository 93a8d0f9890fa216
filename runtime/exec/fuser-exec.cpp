//===- fuser-exec.cpp - run a compiled program on MPI ranks ---------------===//
//
//   mpirun -np N fuser-exec prog.so [--program NAME] [--iterations K]
//       [--seed S] [--inputs a.npy,b.npy] [--outputs y.npy] [--check]
//       [--tolerance T]
//
// Loads a library fuser-compile wrote, creates the global inputs (seeded
// random values, or .npy files), hands every rank its piece, runs the
// program K times, gathers the outputs on rank 0 and, with --check, compares
// them with the unsharded reference program run on rank 0. Prints one line
// and exits non-zero on any failure, on every rank.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include "Npy.h"

#include <mpi.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// One input or output of a program, as its metadata line says.
struct TensorSpec {
  bool isInput;
  std::string dtype;
  fuser::Shape shape;
  fuser::Mesh mesh;
  fuser::DimAxes dimAxes;

  int64_t numElements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
};

struct ProgramSpec {
  std::string name;
  std::vector<TensorSpec> tensors;
};

struct Options {
  std::string library, program, inputs, outputs;
  int64_t iterations = 1, seed = 0;
  bool check = false;
  double tolerance = 1e-4;
};

[[noreturn]] void exitWith(const std::string &message) {
  if (fuser_rank() == 0)
    std::fprintf(stderr, "fuser-exec: %s\n", message.c_str());
  fuser_finalize();
  std::exit(1);
}

std::vector<int64_t> readList(std::istringstream &line) {
  int64_t count = 0;
  line >> count;
  std::vector<int64_t> values(count);
  for (int64_t &value : values)
    line >> value;
  return values;
}

std::vector<ProgramSpec> parseMetadata(const char *text) {
  std::vector<ProgramSpec> programs;
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  if (line != "fuser-program 1")
    exitWith("the library's metadata is not fuser-program 1");
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    if (kind == "program") {
      programs.emplace_back();
      words >> programs.back().name;
    } else if (kind == "tensor") {
      TensorSpec tensor;
      words >> word >> tensor.dtype;
      tensor.isInput = word == "input";
      tensor.shape = readList(words);
      words >> word;
      tensor.mesh.shape = readList(words);
      words >> word;
      tensor.mesh.devices = readList(words);
      words >> word;
      for (size_t dim = 0; dim < tensor.shape.size(); ++dim)
        tensor.dimAxes.push_back(readList(words));
      programs.back().tensors.push_back(std::move(tensor));
    }
  }
  return programs;
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
    else if (!argument.empty() && argument[0] == '-')
      exitWith("unknown option " + argument);
    else
      options.library = argument;
  }
  if (options.library.empty())
    exitWith("usage: fuser-exec prog.so [--program NAME] [--iterations K] "
             "[--seed S] [--inputs a.npy,...] [--outputs y.npy,...] [--check] "
             "[--tolerance T]");
  if (options.iterations < 1)
    exitWith("--iterations must be at least 1");
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
std::vector<int64_t> makeDescriptor(float *data, const fuser::Shape &shape) {
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

/// The rows of `local` (contiguous) placed into `global` at `offset`.
void place(const std::vector<float> &local, const fuser::Shape &localShape,
           const fuser::Shape &offset, std::vector<float> &global,
           const fuser::Shape &globalShape) {
  int64_t count = static_cast<int64_t>(local.size());
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index, position = 0, stride = 1;
    for (size_t dim = localShape.size(); dim-- > 0;) {
      int64_t coordinate = rest % localShape[dim] + offset[dim];
      rest /= localShape[dim];
      position += coordinate * stride;
      stride *= globalShape[dim];
    }
    global[position] = local[index];
  }
}

/// The piece of `global` a device holds (contiguous), or an empty piece of
/// the local shape for a device outside the tensor's mesh.
std::vector<float> pieceOf(const TensorSpec &tensor,
                           const std::vector<float> &global, int64_t device,
                           fuser::Shape &localShape) {
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
  std::vector<float> piece(count);
  if (!shape)
    return piece;
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index, position = 0, stride = 1;
    for (size_t dim = localShape.size(); dim-- > 0;) {
      position += (rest % localShape[dim] + (*offset)[dim]) * stride;
      rest /= localShape[dim];
      stride *= tensor.shape[dim];
    }
    piece[index] = global[position];
  }
  return piece;
}

/// Reads a strided f32 result (descriptor at `fields`) into a vector.
std::vector<float> readResult(const int64_t *fields, int64_t rank) {
  auto *aligned = reinterpret_cast<float *>(fields[1]);
  int64_t offset = fields[2];
  const int64_t *sizes = fields + 3, *strides = fields + 3 + rank;
  int64_t count = 1;
  for (int64_t dim = 0; dim < rank; ++dim)
    count *= sizes[dim];
  std::vector<float> values(count);
  for (int64_t index = 0; index < count; ++index) {
    int64_t rest = index, position = offset;
    for (int64_t dim = rank; dim-- > 0;) {
      position += (rest % sizes[dim]) * strides[dim];
      rest /= sizes[dim];
    }
    values[index] = aligned[position];
  }
  return values;
}

/// Runs `entry` over `inputs` (contiguous f32 tensors of `shapes`); returns
/// the outputs, contiguous, and frees the buffers the program allocated.
std::vector<std::vector<float>>
run(Entry entry, std::vector<std::vector<float>> &inputs,
    const std::vector<fuser::Shape> &inputShapes,
    const std::vector<int64_t> &outputRanks) {
  std::vector<int64_t> results;
  for (int64_t rank : outputRanks)
    results.resize(results.size() + 3 + 2 * rank);
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < inputs.size(); ++i)
    descriptors.push_back(makeDescriptor(inputs[i].data(), inputShapes[i]));
  std::vector<void *> arguments;
  if (!outputRanks.empty())
    arguments.push_back(results.data());
  for (auto &descriptor : descriptors)
    arguments.push_back(descriptor.data());
  callEntry(reinterpret_cast<Entry>(entry), arguments);
  std::vector<std::vector<float>> outputs;
  const int64_t *fields = results.data();
  for (int64_t rank : outputRanks) {
    outputs.push_back(readResult(fields, rank));
    auto *allocated = reinterpret_cast<void *>(fields[0]);
    bool isInput = std::any_of(inputs.begin(), inputs.end(), [&](auto &input) {
      return input.data() == allocated;
    });
    if (!isInput)
      fuser_deallocate(allocated);
    fields += 3 + 2 * rank;
  }
  return outputs;
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
  std::vector<ProgramSpec> programs = parseMetadata(metadata);
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
  std::vector<std::vector<float>> globals;
  std::vector<fuser::Shape> globalShapes, localShapes;
  std::vector<std::vector<float>> locals;
  std::vector<int64_t> outputRanks;
  std::vector<const TensorSpec *> outputSpecs;
  int64_t inputIndex = 0;
  for (const TensorSpec &tensor : program.tensors) {
    if (tensor.dtype != "f32")
      exitWith("fuser-exec handles f32 tensors only, " + program.name +
               " has a " + tensor.dtype + " one");
    if (!tensor.isInput) {
      outputRanks.push_back(static_cast<int64_t>(tensor.shape.size()));
      outputSpecs.push_back(&tensor);
      continue;
    }
    std::vector<float> values(tensor.numElements());
    if (!files.empty()) {
      if (static_cast<size_t>(inputIndex) >= files.size())
        exitWith("--inputs names " + std::to_string(files.size()) +
                 " files but " + program.name + " has more inputs");
      std::string error;
      if (!fuser::readNpy(files[inputIndex], tensor.shape, values, error))
        exitWith(error);
    } else {
      std::mt19937_64 generator(options.seed * 1000003 + inputIndex);
      std::uniform_real_distribution<float> uniform(-1.f, 1.f);
      for (float &value : values)
        value = uniform(generator);
    }
    fuser::Shape localShape;
    locals.push_back(pieceOf(tensor, values, rank, localShape));
    localShapes.push_back(localShape);
    globalShapes.push_back(tensor.shape);
    globals.push_back(std::move(values));
    ++inputIndex;
  }

  auto entry = reinterpret_cast<Entry>(
      dlsym(library, ("_mlir_ciface_" + program.name).c_str()));
  if (!entry)
    exitWith(options.library + " has no entry point for " + program.name);
  std::vector<std::vector<float>> outputs;
  int64_t cachedAfterFirst = 0;
  for (int64_t iteration = 0; iteration < options.iterations; ++iteration) {
    outputs = run(entry, locals, localShapes, outputRanks);
    if (iteration == 0)
      cachedAfterFirst = fuser_cached_buffer_count();
  }
  if (fuser_cached_buffer_count() != cachedAfterFirst)
    exitWith("the allocation cache grew from " +
             std::to_string(cachedAfterFirst) + " to " +
             std::to_string(fuser_cached_buffer_count()) + " buffers");

  // Gather each output on rank 0: every device sends its piece.
  std::vector<std::vector<float>> gathered;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TensorSpec &tensor = *outputSpecs[o];
    std::vector<float> global(rank == 0 ? tensor.numElements() : 0);
    for (int64_t device = 0; device < devices; ++device) {
      std::optional<fuser::Shape> shape = fuser::localShapeOn(
          tensor.shape, tensor.dimAxes, tensor.mesh, device);
      if (!shape)
        continue;
      std::vector<float> piece;
      if (device == rank)
        piece = outputs[o];
      if (device != 0) {
        if (rank == device)
          MPI_Send(piece.data(), static_cast<int>(piece.size()), MPI_FLOAT, 0,
                   0, MPI_COMM_WORLD);
        if (rank == 0) {
          int64_t elements = 1;
          for (int64_t size : *shape)
            elements *= size;
          piece.resize(elements);
          MPI_Recv(piece.data(), static_cast<int>(elements), MPI_FLOAT,
                   static_cast<int>(device), 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
        }
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
  std::string verdict;
  if (rank == 0) {
    std::vector<std::string> outputFiles = splitList(options.outputs);
    for (size_t o = 0; o < outputFiles.size() && o < gathered.size(); ++o) {
      std::string error;
      if (!fuser::writeNpy(outputFiles[o], outputSpecs[o]->shape, gathered[o],
                           error)) {
        verdict = error;
        failed = 1;
      }
    }
    std::ostringstream line;
    line << program.name << " on " << devices << " ranks, "
         << options.iterations << " iteration"
         << (options.iterations == 1 ? "" : "s") << ", "
         << fuser_cached_buffer_count() << " cached buffers";
    if (options.check && !failed) {
      auto reference = reinterpret_cast<Entry>(dlsym(
          library, ("_mlir_ciface_" + program.name + "__reference").c_str()));
      if (!reference)
        exitWith(options.library + " has no reference for " + program.name);
      std::vector<std::vector<float>> expected =
          run(reference, globals, globalShapes, outputRanks);
      double worst = 0;
      for (size_t o = 0; o < expected.size(); ++o) {
        double scale = 0, difference = 0;
        for (size_t i = 0; i < expected[o].size(); ++i) {
          scale = std::max(scale, std::fabs(double(expected[o][i])));
          difference = std::max(
              difference, std::fabs(double(expected[o][i]) - gathered[o][i]));
        }
        worst = std::max(worst, scale > 0 ? difference / scale : difference);
      }
      failed = !(worst <= options.tolerance);
      char text[160];
      std::snprintf(text, sizeof(text),
                    ": check %s, max relative error %.3g (tolerance %.3g)",
                    failed ? "FAILED" : "passed", worst, options.tolerance);
      line << text;
    } else if (!failed) {
      line << ": done";
    }
    verdict = failed && !verdict.empty() ? verdict : line.str();
    std::printf("fuser-exec: %s\n", verdict.c_str());
    std::fflush(stdout);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  fuser_finalize();
  return failed;
}
