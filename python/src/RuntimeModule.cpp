//===- RuntimeModule.cpp - running compiled programs from Python ----------===//
//
// fuser_mlir._runtime: loads a library the compiler wrote and runs one of
// its programs on the ranks of this process's world (mpirun, or torchrun
// with a store for the ranks to meet in, starts one Python per rank). Inputs are NumPy arrays (copied) or tensors of any
// DLPack library on the rank's device (PyTorch, CuPy, JAX: read in place
// where their layout allows, on the caller's CUDA stream): each rank passes
// the global inputs and the runner cuts its piece, or passes its own piece;
// the outputs come back whole on every rank, or as the rank's piece. The
// same runner as fuser-exec (runtime/exec/ProgramRunner.h).
//
//===----------------------------------------------------------------------===//

#include "ArrayExchange.h"
#include "BoundedCollectives.h"
#include "ProgramRunner.h"
#include "TensorExchange.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <numeric>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace fuser;
using namespace fuser::python;

namespace {

/// Programs' buffers are aligned for 16-byte vector accesses (as
/// fuser_allocate's are); a caller's piece that is not is read from a copy.
constexpr uintptr_t kProgramBufferAlignment = 16;

/// DLPack's number for CUDA's legacy default stream.
constexpr int64_t kLegacyDefaultStream = 1;

/// What starts a world without MPI: a Python callable giving (store,
/// rank, world size), the store a torch.distributed Store; and the store,
/// once started, which the runtime calls into until finalize.
py::object &storeProvider() {
  static py::object provider;
  return provider;
}
py::object &startedStore() {
  static py::object store;
  return store;
}

FuserStatus setInStore(void *store, const char *key, const void *value,
                       int64_t bytes) {
  py::gil_scoped_acquire gil;
  try {
    py::handle(static_cast<PyObject *>(store))
        .attr("set")(key, py::bytes(static_cast<const char *>(value),
                                    static_cast<size_t>(bytes)));
    return FUSER_OK;
  } catch (const std::exception &exception) {
    fuser_set_error((std::string("the store refused ") + key + ": " +
                     exception.what())
                        .c_str());
    return FUSER_FAILED;
  }
}

FuserStatus getFromStore(void *store, const char *key, void *value,
                         int64_t bytes, double timeoutSeconds) {
  py::gil_scoped_acquire gil;
  try {
    py::handle handle(static_cast<PyObject *>(store));
    py::object timeout = py::module_::import("datetime").attr("timedelta")(
        py::arg("seconds") = timeoutSeconds);
    handle.attr("wait")(std::vector<std::string>{key}, timeout);
    std::string found = handle.attr("get")(key).cast<std::string>();
    if (static_cast<int64_t>(found.size()) != bytes) {
      fuser_set_error((std::string(key) + " holds " +
                       std::to_string(found.size()) + " bytes, not " +
                       std::to_string(bytes))
                          .c_str());
      return FUSER_FAILED;
    }
    std::memcpy(value, found.data(), found.size());
    return FUSER_OK;
  } catch (const std::exception &exception) {
    char bound[64];
    std::snprintf(bound, sizeof(bound), "%g s", timeoutSeconds);
    fuser_set_error((std::string(key) + " did not come within " + bound +
                     " (FUSER_TIMEOUT_S): " + exception.what())
                        .c_str());
    return FUSER_FAILED;
  }
}

/// Starts the runtime on first use: from the store the provider gives
/// where one is set (torchrun), else over MPI.
void initialize() {
  if (storeProvider() && !startedStore()) {
    py::tuple started = storeProvider()();
    FuserBootstrap bootstrap{started[1].cast<int64_t>(),
                             started[2].cast<int64_t>(), started[0].ptr(),
                             &setInStore, &getFromStore};
    if (fuser_init_with_bootstrap(&bootstrap) != FUSER_OK)
      throw std::runtime_error(fuser_last_error());
    startedStore() = started[0];
    return;
  }
  if (fuser_init(nullptr, nullptr) != FUSER_OK)
    throw std::runtime_error(fuser_last_error());
}

void finalize() {
  markRuntimeFinalized();
  fuser_finalize();
  startedStore() = py::object();
  storeProvider() = py::object();
}

py::dict describeTensor(const TensorSpec &tensor) {
  py::dict fields;
  fields["dtype"] = tensor.dtype;
  fields["shape"] = tensor.shape;
  fields["mesh_shape"] = tensor.mesh.shape;
  fields["devices"] = tensor.mesh.devices;
  fields["dim_axes"] = tensor.dimAxes;
  return fields;
}

std::string describeDevice(DLDevice device) {
  switch (device.device_type) {
  case kDLCPU:
    return "the CPU";
  case kDLCUDA:
    return "GPU " + std::to_string(device.device_id);
  }
  return "device type " + std::to_string(device.device_type);
}

int64_t elementsOf(const Shape &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

Shape rowMajorStrides(const Shape &shape) {
  Shape strides(shape.size());
  int64_t stride = 1;
  for (size_t dim = shape.size(); dim-- > 0;) {
    strides[dim] = stride;
    stride *= shape[dim];
  }
  return strides;
}

/// Whether a tensor of `shape` with `strides` is laid out row-major without
/// gaps (a dim of one element may have any stride).
bool isRowMajor(const Shape &shape, const Shape &strides) {
  Shape expected = rowMajorStrides(shape);
  for (size_t dim = 0; dim < shape.size(); ++dim)
    if (shape[dim] != 1 && strides[dim] != expected[dim])
      return false;
  return true;
}

/// `tensor` whole on every rank, from the piece `local` of each of the
/// `devices` ranks. Collective.
HostTensor wholeOnEveryRank(const TensorSpec &tensor, const HostTensor &local,
                            int64_t devices) {
  size_t bytes = local.bytes.size();
  std::vector<char> pieces(bytes * static_cast<size_t>(fuser_world_size()));
  if (fuser_world_allgather(local.bytes.data(), static_cast<int64_t>(bytes),
                            pieces.data(), "sharing an output's pieces",
                            0) != FUSER_OK)
    throw ProgramFailure(fuser_last_error());
  HostTensor whole(tensor.code, tensor.numElements());
  for (int64_t device = 0; device < devices; ++device) {
    std::optional<Shape> offset =
        shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
    if (!offset)
      continue;
    HostTensor piece(tensor.code, local.size());
    std::memcpy(piece.bytes.data(), pieces.data() + device * bytes, bytes);
    place(piece, localShapeOf(tensor, device), *offset, whole, tensor.shape);
  }
  return whole;
}

void *allocateOrThrow(int64_t bytes, bool zeroed) {
  void *memory = fuser_allocate(bytes, FUSER_MEMORY_DEVICE, zeroed);
  if (!memory)
    throw std::runtime_error(fuser_last_error());
  return memory;
}

void copyOrThrow(const FuserBuffer &from, const FuserBuffer &to,
                 const std::string &what) {
  if (fuser_copy(&from, &to) != FUSER_OK)
    throw std::runtime_error(what + ": " + fuser_last_error());
}

/// An input where the program reads it, and what keeps it there.
struct PlacedInput {
  std::shared_ptr<Storage> storage;
  char *data;
};

/// "input 'x' (#0)", or "input #0" for an input without a name.
std::string describeInput(size_t index, const std::vector<std::string> &names) {
  std::string number = "#" + std::to_string(index);
  if (index < names.size() && !names[index].empty())
    return "input '" + names[index] + "' (" + number + ")";
  return "input " + number;
}

/// Runs `step` on this rank, then agrees with every other rank on whether
/// all of them succeeded: a rank that failed raises its own error, the
/// others a RuntimeError naming that rank. So every rank raises, and none
/// goes on into a program (or a gather) that a failed rank never reaches.
template <typename Step>
void runAgreed(const std::string &what, Step step) {
  std::string error;
  std::exception_ptr failure;
  try {
    step();
  } catch (const std::exception &exception) {
    error = exception.what();
    if (error.empty())
      error = "failed";
    failure = std::current_exception();
  }
  std::optional<RankError> first = firstRankError(error);
  if (!first)
    return;
  if (failure)
    std::rethrow_exception(failure);
  throw std::runtime_error("rank " + std::to_string(first->rank) + ": " +
                           what + ": " + first->message);
}

/// What one run of a program needs on this rank, checked.
struct RunPlan {
  const ProgramSpec &spec;
  int64_t devices;
  int64_t rank;
  std::vector<const TensorSpec *> inputs, outputs;
};

/// A loaded library.
class Library {
public:
  explicit Library(const std::string &path) {
    std::string error;
    std::optional<ProgramLibrary> loaded = loadProgramLibrary(path, error);
    if (!loaded)
      throw py::value_error(error);
    library = std::move(*loaded);
  }

  std::vector<std::string> programs() const {
    std::vector<std::string> names;
    for (const ProgramSpec &program : library.metadata.programs)
      names.push_back(program.name);
    return names;
  }

  py::list signature(const std::string &name, bool inputs) const {
    py::list tensors;
    for (const TensorSpec &tensor : program(name).tensors)
      if (tensor.isInput == inputs)
        tensors.append(describeTensor(tensor));
    return tensors;
  }

  std::string target() const { return library.metadata.target; }

  /// What a caller needs to chain a generated @f__fwd and @f__bwd: the
  /// program `name` differentiates and, for @f__bwd, the inputs of f it
  /// takes first.
  py::dict derivative(const std::string &name) const {
    const ProgramSpec &spec = program(name);
    py::dict fields;
    fields["of"] = spec.derivativeOf.empty() ? py::none()
                                             : py::cast(spec.derivativeOf);
    fields["vjp_inputs"] = spec.vjpInputs ? py::cast(*spec.vjpInputs)
                                          : py::object(py::none());
    return fields;
  }

  /// Runs `name` over NumPy arrays; returns NumPy arrays.
  py::list runArrays(const std::string &name, const py::sequence &arrays,
                     const std::vector<bool> &pieces,
                     const std::vector<bool> &gather,
                     const std::vector<std::string> &names) const {
    std::optional<RunPlan> plan;
    std::vector<HostTensor> locals;
    std::vector<Shape> localShapes;
    runAgreed("checking the inputs of " + name, [&] {
      plan.emplace(planRun(name, py::len(arrays), pieces, gather));
      for (size_t index = 0; index < plan->inputs.size(); ++index) {
        const TensorSpec &tensor = *plan->inputs[index];
        std::string input = describeInput(index, names);
        Shape localShape;
        if (pieces[index]) {
          localShape = localShapeOf(tensor, plan->rank);
          locals.push_back(
              toHostTensor(arrays[index], tensor, localShape, input));
        } else {
          HostTensor global =
              toHostTensor(arrays[index], tensor, tensor.shape, input);
          locals.push_back(pieceOf(tensor, global, plan->rank, localShape));
        }
        localShapes.push_back(localShape);
      }
      useTarget(plan->spec);
    });
    std::vector<HostTensor> results;
    runAgreed("running " + name, [&] {
      ProgramInputs inputs(locals, localShapes, onDevice());
      results = fuser::run(library.entry(plan->spec), inputs, plan->outputs);
    });
    py::list values;
    for (size_t o = 0; o < plan->outputs.size(); ++o) {
      const TensorSpec &tensor = *plan->outputs[o];
      if (gather[o])
        values.append(toArray(
            wholeOnEveryRank(tensor, results[o], plan->devices), tensor.shape));
      else
        values.append(toArray(results[o], localShapeOf(tensor, plan->rank)));
    }
    return values;
  }

  /// Runs the unsharded reference of `name` (a CPU function of the library,
  /// computed apart from the sharded program) over global NumPy arrays on
  /// this rank alone; returns its outputs whole.
  py::list runReference(const std::string &name, const py::sequence &arrays,
                        const std::vector<std::string> &names) const {
    const ProgramSpec &spec = program(name);
    initialize();
    Entry entry = library.entry(spec, /*reference=*/true);
    if (!entry)
      throw py::value_error("the library has no reference for " + name);
    std::vector<const TensorSpec *> inputSpecs, outputs;
    for (const TensorSpec &tensor : spec.tensors)
      (tensor.isInput ? inputSpecs : outputs).push_back(&tensor);
    if (inputSpecs.size() != py::len(arrays))
      throw py::value_error(spec.name + " takes " +
                            std::to_string(inputSpecs.size()) +
                            " inputs, not " + std::to_string(py::len(arrays)));
    std::vector<HostTensor> globals;
    std::vector<Shape> shapes;
    for (size_t index = 0; index < inputSpecs.size(); ++index) {
      globals.push_back(toHostTensor(arrays[index], *inputSpecs[index],
                                     inputSpecs[index]->shape,
                                     describeInput(index, names)));
      shapes.push_back(inputSpecs[index]->shape);
    }
    if (fuser_use_backend(FUSER_BACKEND_HOST) != FUSER_OK)
      throw std::runtime_error(fuser_last_error());
    std::vector<HostTensor> results;
    {
      ProgramInputs inputs(globals, shapes, /*onDevice=*/false);
      results = fuser::run(entry, inputs, outputs);
    }
    py::list values;
    for (size_t o = 0; o < outputs.size(); ++o)
      values.append(toArray(results[o], outputs[o]->shape));
    return values;
  }

  /// Runs `name` over DLPack tensors on the program's device, on `stream`
  /// (a cudaStream_t; the legacy default stream when none); returns
  /// ExportedTensors there.
  py::list runTensors(const std::string &name, const py::sequence &tensors,
                      std::optional<int64_t> stream,
                      const std::vector<bool> &pieces,
                      const std::vector<bool> &gather,
                      const std::vector<std::string> &names) const {
    std::optional<RunPlan> plan;
    int64_t nativeStream = stream.value_or(kLegacyDefaultStream);
    FuserStream *runStream = nullptr;
    runAgreed("checking the inputs of " + name, [&] {
      plan.emplace(planRun(name, py::len(tensors), pieces, gather));
      useTarget(plan->spec);
      runStream = onDevice()
                      ? fuser_wrap_stream(reinterpret_cast<void *>(nativeStream))
                      : fuser_get_current_stream();
      if (!runStream)
        throw std::runtime_error(fuser_last_error());
    });
    ExecutionScope scope(fuser_current_backend(), runStream);
    // The callers' tensors stay ours until their pieces are read.
    std::vector<std::shared_ptr<ForeignTensor>> taken;
    std::vector<PlacedInput> placed;
    std::vector<char *> data;
    std::vector<Shape> shapes;
    runAgreed("placing the inputs of " + name, [&] {
      for (size_t index = 0; index < plan->inputs.size(); ++index) {
        const TensorSpec &tensor = *plan->inputs[index];
        std::string input = describeInput(index, names);
        taken.push_back(
            ForeignTensor::take(tensors[index], nativeStream, input));
        placed.push_back(placeInput(taken.back(), tensor, input, plan->rank,
                                    pieces[index], runStream));
        data.push_back(placed.back().data);
        shapes.push_back(localShapeOf(tensor, plan->rank));
      }
    });
    ProgramInputs inputs(data, shapes, onDevice());
    std::vector<int64_t> results;
    runAgreed("running " + name, [&] {
      results = execute(library.entry(plan->spec), inputs, plan->outputs);
    });
    // The pieces to put together are read before the views own (and may
    // free) the program's buffers.
    std::vector<std::optional<HostTensor>> pieceCopies;
    const int64_t *fields = results.data();
    for (size_t o = 0; o < plan->outputs.size(); ++o) {
      const TensorSpec &tensor = *plan->outputs[o];
      int64_t rank = static_cast<int64_t>(tensor.shape.size());
      if (gather[o])
        pieceCopies.push_back(readResult(fields, rank, tensor.code, onDevice()));
      else
        pieceCopies.emplace_back();
      fields += 3 + 2 * rank;
    }
    py::list views = outputViews(*plan, results, placed, runStream);
    py::list values;
    for (size_t o = 0; o < plan->outputs.size(); ++o)
      values.append(pieceCopies[o]
                        ? wholeOutput(*plan, o, *pieceCopies[o], runStream)
                        : views[o]);
    return values;
  }

private:
  const ProgramSpec &program(const std::string &name) const {
    const ProgramSpec *found = name.empty() ? nullptr : library.find(name);
    if (!found)
      throw py::key_error("no program named '" + name + "'");
    return *found;
  }

  bool onDevice() const { return library.metadata.target == "cuda"; }

  RunPlan planRun(const std::string &name, size_t given,
                  const std::vector<bool> &pieces,
                  const std::vector<bool> &gather) const {
    const ProgramSpec &spec = program(name);
    initialize();
    RunPlan plan{spec, ProgramLibrary::devicesOf(spec), 0, {}, {}};
    if (fuser_expect_world_size(plan.devices) != FUSER_OK)
      throw std::runtime_error(fuser_last_error());
    plan.rank = fuser_rank();
    for (const TensorSpec &tensor : spec.tensors)
      (tensor.isInput ? plan.inputs : plan.outputs).push_back(&tensor);
    if (plan.inputs.size() != given)
      throw py::value_error(spec.name + " takes " +
                            std::to_string(plan.inputs.size()) +
                            " inputs, not " + std::to_string(given));
    if (pieces.size() != given || gather.size() != plan.outputs.size())
      throw py::value_error(spec.name + ": pieces and gather say, for each "
                            "input and each output, whether it is this "
                            "rank's piece");
    return plan;
  }

  /// Selects the backend the program runs on, so that the buffers made
  /// for it are that backend's.
  void useTarget(const ProgramSpec &spec) const {
    if (fuser_use_backend(onDevice() ? FUSER_BACKEND_CUDA
                                     : FUSER_BACKEND_HOST) != FUSER_OK)
      throw std::runtime_error(spec.name + " was compiled for " + target() +
                               ": " + fuser_last_error());
  }

  /// `foreign` (the global tensor, or with `pieces` this rank's piece) where
  /// the program reads it: in place when it is the piece, row-major and
  /// aligned; else the piece copied into a buffer of its own.
  PlacedInput placeInput(const std::shared_ptr<ForeignTensor> &foreign,
                         const TensorSpec &tensor, const std::string &input,
                         int64_t rank, bool pieces,
                         FuserStream *runStream) const {
    DLDevice device = foreign->tensor().device;
    DLDevice expected = onDevice() ? DLDevice{kDLCUDA, fuser_device_index()}
                                   : DLDevice{kDLCPU, 0};
    if (device.device_type != expected.device_type ||
        (onDevice() && device.device_id != expected.device_id))
      throw py::value_error(input + " is on " + describeDevice(device) +
                            "; the program runs on " +
                            describeDevice(expected) + " on this rank");
    if (!isDLDataType(foreign->tensor().dtype, tensor.code))
      throw py::type_error(input + " is " +
                           describeDLDataType(foreign->tensor().dtype) +
                           "; the program takes " + tensor.dtype);
    Shape localShape = localShapeOf(tensor, rank);
    Shape given = foreign->shape();
    if (given != (pieces ? localShape : tensor.shape))
      throw py::value_error(input + " has shape " + describeShape(given) +
                            "; the program takes " +
                            describeShape(pieces ? localShape : tensor.shape));
    Shape strides = foreign->strides();
    bool aligned = reinterpret_cast<uintptr_t>(foreign->data()) %
                       kProgramBufferAlignment ==
                   0;
    if (pieces && aligned && isRowMajor(given, strides))
      return {foreign, foreign->data()};

    std::optional<Shape> offset =
        pieces ? Shape(given.size(), 0)
               : shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh, rank);
    int64_t elements = elementsOf(localShape);
    // A rank outside the tensor's mesh holds a piece nothing reads.
    void *memory = allocateOrThrow(elements * fuser_element_size(tensor.code),
                                   /*zeroed=*/!offset);
    auto own = std::make_shared<RuntimeBuffer>(memory, runStream);
    if (!offset || elements == 0)
      return {own, static_cast<char *>(memory)};
    if (!localShape.empty() && localShape.back() > 1 && strides.back() != 1)
      throw py::value_error(input + "'s last dim has stride " +
                            std::to_string(strides.back()) +
                            "; the runtime copies whole rows: pass it with a "
                            "contiguous last dim");
    int64_t start = 0;
    for (size_t dim = 0; dim < offset->size(); ++dim)
      start += (*offset)[dim] * strides[dim];
    Shape unit = rowMajorStrides(localShape);
    int64_t rankOfShape = static_cast<int64_t>(localShape.size());
    FuserBuffer from{foreign->data(), foreign->data(),   start,
                     rankOfShape,     localShape.data(), strides.data(),
                     tensor.code};
    FuserBuffer to{memory,      memory,     0, rankOfShape, localShape.data(),
                   unit.data(), tensor.code};
    copyOrThrow(from, to, input);
    return {own, static_cast<char *>(memory)};
  }

  /// The outputs where the program wrote them; an output that views an
  /// input or another output shares what keeps that alive.
  py::list outputViews(const RunPlan &plan, const std::vector<int64_t> &results,
                       const std::vector<PlacedInput> &placed,
                       FuserStream *runStream) const {
    std::vector<std::pair<char *, std::shared_ptr<Storage>>> owners;
    for (const PlacedInput &input : placed)
      owners.emplace_back(input.data, input.storage);
    py::list values;
    const int64_t *fields = results.data();
    for (const TensorSpec *output : plan.outputs) {
      auto *allocated = reinterpret_cast<char *>(fields[0]);
      auto owner = std::find_if(owners.begin(), owners.end(), [&](auto &entry) {
        return entry.first == allocated;
      });
      if (owner == owners.end()) {
        owners.emplace_back(
            allocated, std::make_shared<RuntimeBuffer>(allocated, runStream));
        owner = std::prev(owners.end());
      }
      size_t rank = output->shape.size();
      char *data = reinterpret_cast<char *>(fields[1]) +
                   fields[2] * fuser_element_size(output->code);
      values.append(ExportedTensor(
          owner->second, data, output->code,
          Shape(fields + 3, fields + 3 + rank),
          Shape(fields + 3 + rank, fields + 3 + 2 * rank), runStream));
      fields += 3 + 2 * rank;
    }
    return values;
  }

  /// Output `o` whole on every rank, from this rank's `piece` of it, in a
  /// new buffer on the program's device.
  py::object wholeOutput(const RunPlan &plan, size_t o, const HostTensor &piece,
                         FuserStream *runStream) const {
    const TensorSpec &tensor = *plan.outputs[o];
    HostTensor whole = wholeOnEveryRank(tensor, piece, plan.devices);
    void *memory = allocateOrThrow(whole.bytes.size(), /*zeroed=*/false);
    auto own = std::make_shared<RuntimeBuffer>(memory, runStream);
    int64_t count[1] = {whole.size()}, unit[1] = {1};
    FuserBuffer from{
        whole.bytes.data(), whole.bytes.data(), 0, 1, count, unit, tensor.code};
    FuserBuffer to{memory, memory, 0, 1, count, unit, tensor.code};
    if (whole.size() > 0)
      copyOrThrow(from, to, "output #" + std::to_string(o));
    // The host copy goes with this scope.
    if (fuser_synchronize() != FUSER_OK)
      throw std::runtime_error(fuser_last_error());
    return py::cast(ExportedTensor(own, static_cast<char *>(memory),
                                   tensor.code, tensor.shape,
                                   rowMajorStrides(tensor.shape), runStream));
  }

  ProgramLibrary library;
};

/// `__dlpack__` of the array API standard: versioned capsules and copies
/// are not offered, so a consumer asking for them gets the unversioned
/// capsule (which the standard lets it accept) or a BufferError.
py::object exportTensor(const ExportedTensor &tensor, py::object stream,
                        py::object maxVersion, py::object device,
                        py::object copy) {
  (void)maxVersion;
  if (!copy.is_none() && copy.cast<bool>())
    throw py::buffer_error("the program's outputs are exported in place only");
  if (!device.is_none() && !device.cast<py::tuple>().equal(tensor.device()))
    throw py::buffer_error("the output lies on its program's device only");
  return tensor.toDLPack(stream.is_none()
                             ? std::nullopt
                             : std::optional<int64_t>(stream.cast<int64_t>()));
}

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Runs programs the compiler wrote on this process's ranks";
  m.def(
      "set_store_provider",
      [](py::object provider) {
        if (startedStore())
          throw std::runtime_error("the runtime has started already");
        storeProvider() = std::move(provider);
      },
      py::arg("provider"),
      "Starts the world, on first use, from a key-value store: `provider()` "
      "gives (a torch.distributed Store every rank reaches, rank, world "
      "size). Without one, the world is MPI's");
  m.def("uses_store", [] {
    initialize();
    return fuser_world_uses_store() != 0;
  });
  m.def("rank", [] {
    initialize();
    return fuser_rank();
  });
  m.def("world_size", [] {
    initialize();
    return fuser_world_size();
  });
  m.def(
      "device_index",
      [] {
        initialize();
        if (fuser_use_backend(FUSER_BACKEND_CUDA) != FUSER_OK)
          throw std::runtime_error(fuser_last_error());
        return fuser_device_index();
      },
      "The CUDA device this rank's programs run on (starts the CUDA "
      "backend: collective, every rank calls it)");
  m.def(
      "agree",
      [](const std::string &error,
         double timeoutSeconds) -> std::optional<py::tuple> {
        initialize();
        std::optional<RankError> first = firstRankError(error, timeoutSeconds);
        if (!first)
          return std::nullopt;
        return py::make_tuple(first->rank, first->message);
      },
      py::arg("error"), py::kw_only(), py::arg("timeout_s") = 0.0,
      "The lowest rank whose `error` is not empty and its error, on every "
      "rank; None when no rank has one (collective, bounded by `timeout_s`, "
      "0 for FUSER_TIMEOUT_S)");
  m.def(
      "allgather_uint64",
      [](uint64_t value, const std::string &step) {
        initialize();
        return boundedAllgather(value, step.c_str());
      },
      py::arg("value"), py::arg("step"),
      "`value` of every rank, in rank order (collective, bounded)");
  m.def(
      "barrier",
      [](const std::string &step) {
        initialize();
        boundedBarrier(step.c_str());
      },
      py::arg("step"), "Every rank reaches it, within FUSER_TIMEOUT_S");
  m.def(
      "node_of_rank",
      [](int64_t rank) {
        initialize();
        return fuser_node_of_rank(rank);
      },
      py::arg("rank"),
      "The node of `rank`: the lowest rank sharing its machine");
  m.def("finalize", &finalize,
        "Frees the runtime's caches and ends MPI or lets go of the store "
        "(once, at exit)");
  py::class_<ExportedTensor>(
      m, "Tensor",
      "A program's output on its device, for any DLPack consumer "
      "(torch.from_dlpack, numpy.from_dlpack, cupy.from_dlpack)")
      .def("__dlpack__", &exportTensor, py::kw_only(),
           py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", &ExportedTensor::device)
      .def_property_readonly("shape", &ExportedTensor::sizes)
      .def_property_readonly("dtype", &ExportedTensor::elementType);
  py::class_<Library>(m, "Library")
      .def(py::init<const std::string &>(), py::arg("path"))
      .def_property_readonly("target", &Library::target)
      .def_property_readonly("programs", &Library::programs)
      .def("derivative", &Library::derivative, py::arg("program"))
      .def(
          "inputs",
          [](const Library &library, const std::string &name) {
            return library.signature(name, /*inputs=*/true);
          },
          py::arg("program"))
      .def(
          "outputs",
          [](const Library &library, const std::string &name) {
            return library.signature(name, /*inputs=*/false);
          },
          py::arg("program"))
      .def("run_arrays", &Library::runArrays, py::arg("program"),
           py::arg("inputs"), py::kw_only(), py::arg("pieces"),
           py::arg("gather"), py::arg("names"))
      .def("reference", &Library::runReference, py::arg("program"),
           py::arg("inputs"), py::kw_only(), py::arg("names"))
      .def("run_tensors", &Library::runTensors, py::arg("program"),
           py::arg("inputs"), py::kw_only(), py::arg("stream"),
           py::arg("pieces"), py::arg("gather"), py::arg("names"));
}
