//===- ProgramRunner.cpp - calling a compiled program on this rank --------===//

#include "ProgramRunner.h"

#include "LibraryFile.h"

#include <mpi.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>

using namespace fuser;

namespace {
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

/// Calls a packed entry point with the C entry point's `arguments`: the
/// packed form takes a pointer to each of them.
void callEntry(Entry entry, std::vector<void *> &arguments) {
  std::vector<void *> slots;
  slots.reserve(arguments.size());
  for (void *&argument : arguments)
    slots.push_back(&argument);
  entry(slots.data());
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


/// Calls message(offset, bytes) for each part of a transfer of `total`
/// bytes that an MPI count (an int) can hold.
template <typename Message> void forEachMessage(size_t total, Message message) {
  constexpr size_t kMessageBytes = size_t(1) << 30;
  for (size_t offset = 0; offset < total; offset += kMessageBytes)
    message(offset, static_cast<int>(std::min(kMessageBytes, total - offset)));
}

} // namespace

/// Reads a strided result (descriptor at `fields`) into a contiguous
/// tensor. A device result is first copied whole (the span its strides
/// reach) to the host, so that any layout can be read there.
fuser::HostTensor fuser::readResult(const int64_t *fields, int64_t rank,
                                     FuserDType dtype, bool onDevice) {
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
      throw ProgramFailure(fuser_last_error());
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

/// `local` (a contiguous block at `offset`) placed into `global`.
void fuser::place(const HostTensor &local, const fuser::Shape &localShape,
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
fuser::Shape fuser::localShapeOf(const TensorSpec &tensor, int64_t device) {
  std::optional<Shape> shape =
      localShapeOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
  return shape ? *shape
               : *localShapeOn(tensor.shape, tensor.dimAxes, tensor.mesh,
                               tensor.mesh.devices[0]);
}

HostTensor fuser::pieceOf(const TensorSpec &tensor, const HostTensor &global,
                          int64_t device, fuser::Shape &localShape) {
  std::optional<fuser::Shape> offset =
      fuser::shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
  localShape = localShapeOf(tensor, device);
  int64_t count = 1;
  for (int64_t size : localShape)
    count *= size;
  HostTensor piece(tensor.code, count);
  if (!offset)
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

fuser::ProgramInputs::ProgramInputs(std::vector<HostTensor> &tensors,
                                    const std::vector<Shape> &tensorShapes,
                                    bool onDevice)
    : shapes(tensorShapes), onDevice(onDevice) {
  if (!onDevice) {
    for (HostTensor &tensor : tensors)
      data.push_back(tensor.bytes.data());
    return;
  }
  // A constructor that throws runs no destructor: the copies made so far
  // are freed here.
  try {
    copyToDevice(tensors);
  } catch (const ProgramFailure &) {
    releaseCopies();
    throw;
  }
}

void fuser::ProgramInputs::copyToDevice(std::vector<HostTensor> &tensors) {
  for (HostTensor &tensor : tensors) {
    int64_t bytes = static_cast<int64_t>(tensor.bytes.size());
    auto *device =
        static_cast<char *>(fuser_allocate(bytes, FUSER_MEMORY_DEVICE, 0));
    if (!device)
      throw ProgramFailure(fuser_last_error());
    deviceCopies.push_back(device);
    int64_t count[1] = {tensor.size()}, unit[1] = {1};
    FuserBuffer from{tensor.bytes.data(), tensor.bytes.data(), 0, 1, count,
                     unit, tensor.dtype};
    FuserBuffer to{device, device, 0, 1, count, unit, tensor.dtype};
    if (fuser_copy(&from, &to) != FUSER_OK)
      throw ProgramFailure(fuser_last_error());
    data.push_back(device);
  }
  if (fuser_synchronize() != FUSER_OK)
    throw ProgramFailure(fuser_last_error());
}

void fuser::ProgramInputs::releaseCopies() {
  for (char *device : deviceCopies)
    fuser_deallocate(device);
  deviceCopies.clear();
}

fuser::ProgramInputs::~ProgramInputs() { releaseCopies(); }

/// Runs `entry` over `inputs`; returns the descriptors of its results, one
/// after the other.
std::vector<int64_t>
fuser::execute(Entry entry, const ProgramInputs &inputs,
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
  if (fuser_take_failure() != FUSER_OK)
    throw ProgramFailure(fuser_last_error());
  return results;
}

/// The results `execute` returned, contiguous on the host.
std::vector<HostTensor>
fuser::readResults(const std::vector<int64_t> &results,
                   const ProgramInputs &inputs,
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
void fuser::releaseResults(const std::vector<int64_t> &results,
                           const ProgramInputs &inputs,
                           const std::vector<const TensorSpec *> &outputs) {
  std::vector<char *> owned;
  const int64_t *fields = results.data();
  for (const TensorSpec *output : outputs) {
    auto *allocated = reinterpret_cast<char *>(fields[0]);
    bool isInput = std::find(inputs.data.begin(), inputs.data.end(),
                             allocated) != inputs.data.end();
    if (!isInput &&
        std::find(owned.begin(), owned.end(), allocated) == owned.end())
      owned.push_back(allocated);
    fields += 3 + 2 * output->shape.size();
  }
  for (char *buffer : owned)
    fuser_deallocate(buffer);
}

/// Runs `entry` over `inputs`; returns the outputs, contiguous on the
/// host, and frees the buffers the program allocated for them.
std::vector<HostTensor>
fuser::run(Entry entry, const ProgramInputs &inputs,
           const std::vector<const TensorSpec *> &outputs) {
  std::vector<int64_t> results = execute(entry, inputs, outputs);
  std::vector<HostTensor> values = readResults(results, inputs, outputs);
  releaseResults(results, inputs, outputs);
  return values;
}

fuser::HostTensor fuser::gatherOnRankZero(const TensorSpec &tensor,
                                          const HostTensor &local,
                                          int64_t devices) {
  int64_t rank = fuser_rank();
  HostTensor global(tensor.code, rank == 0 ? tensor.numElements() : 0);
  for (int64_t device = 0; device < devices; ++device) {
    std::optional<fuser::Shape> shape =
        fuser::localShapeOn(tensor.shape, tensor.dimAxes, tensor.mesh, device);
    if (!shape)
      continue;
    int64_t elements = 1;
    for (int64_t size : *shape)
      elements *= size;
    if (device != 0 && rank == device)
      forEachMessage(local.bytes.size(), [&](size_t offset, int bytes) {
        MPI_Send(local.bytes.data() + offset, bytes, MPI_BYTE, 0, 0,
                 MPI_COMM_WORLD);
      });
    if (rank != 0)
      continue;
    // Rank 0's own piece is placed from where it is.
    HostTensor received(tensor.code, device == 0 ? 0 : elements);
    if (device != 0)
      forEachMessage(received.bytes.size(), [&](size_t offset, int bytes) {
        MPI_Recv(received.bytes.data() + offset, bytes, MPI_BYTE,
                 static_cast<int>(device), 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
      });
    place(device == 0 ? local : received, *shape,
            *fuser::shardOffsetOn(tensor.shape, tensor.dimAxes, tensor.mesh,
                                  device),
            global, tensor.shape);
  }
  return global;
}

const ProgramSpec *ProgramLibrary::find(const std::string &name) const {
  for (const ProgramSpec &program : metadata.programs)
    if (name.empty() || program.name == name)
      return &program;
  return nullptr;
}

Entry ProgramLibrary::entry(const ProgramSpec &program, bool reference) const {
  return reinterpret_cast<Entry>(
      dlsym(handle, (reference ? program.reference : program.entry).c_str()));
}

int64_t ProgramLibrary::devicesOf(const ProgramSpec &program) {
  int64_t devices = 0;
  for (const TensorSpec &tensor : program.tensors)
    for (int64_t device : tensor.mesh.devices)
      devices = std::max(devices, device + 1);
  return devices;
}

std::optional<ProgramLibrary> fuser::loadProgramLibrary(const std::string &path,
                                                        std::string &error) {
  // A bare file name would be looked up on the library path, not here.
  std::string located =
      path.find('/') == std::string::npos ? "./" + path : path;
  error = checkLibraryFile(path);
  if (!error.empty())
    return std::nullopt;
  ProgramLibrary library;
  library.handle = dlopen(located.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library.handle) {
    error = "cannot load " + path + ": " + dlerror();
    return std::nullopt;
  }
  auto *metadata = static_cast<const char *>(
      dlsym(library.handle, "fuser_program_metadata"));
  if (!metadata) {
    error = path + " was not written by fuser-compile (no "
                   "fuser_program_metadata)";
    return std::nullopt;
  }
  if (!parseProgramMetadata(metadata, library.metadata, error)) {
    error = path + ": " + error;
    return std::nullopt;
  }
  return library;
}
