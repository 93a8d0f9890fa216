//===- ProgramRunner.h - calling a compiled program on this rank -*- C++
//-*-===//
//
// What fuser-exec and the Python bindings share to run a library
// fuser-compile wrote: loading it and its metadata, cutting a rank's piece
// of a global input, calling a program's C entry point over memref
// descriptors, reading its (possibly strided, possibly device) results back
// to the host, and putting the pieces of an output together again.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_EXEC_PROGRAMRUNNER_H
#define FUSER_RUNTIME_EXEC_PROGRAMRUNNER_H

#include "ProgramMetadata.h"

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fuser {

/// A program, or moving its inputs or outputs, failed: the runtime's
/// message. The process can go on (the runtime aborts where it could not).
struct ProgramFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A dense row-major tensor of any element type, as bytes.
struct HostTensor {
  FuserDType dtype;
  std::vector<char> bytes;

  HostTensor(FuserDType dtype, int64_t count)
      : dtype(dtype), bytes(count * fuser_element_size(dtype)) {}
  int64_t size() const { return bytes.size() / fuser_element_size(dtype); }
  char *at(int64_t index) {
    return bytes.data() + index * fuser_element_size(dtype);
  }
  const char *at(int64_t index) const {
    return bytes.data() + index * fuser_element_size(dtype);
  }
  double get(int64_t index) const {
    return fuser_load_element(at(index), dtype);
  }
  void set(int64_t index, double value) {
    fuser_store_element(at(index), dtype, value);
  }
};

/// A program's packed entry point: arguments[i] points to argument i of its
/// C entry point (the results' descriptors, then each input's).
using Entry = void (*)(void **arguments);

/// A library fuser-compile wrote, loaded, with its metadata.
struct ProgramLibrary {
  void *handle = nullptr;
  ProgramMetadata metadata;

  /// The program named `name` (the first one for an empty name), or null.
  const ProgramSpec *find(const std::string &name) const;
  /// The program's C entry point (or its reference), or null.
  Entry entry(const ProgramSpec &program, bool reference = false) const;
  /// The number of devices the program's tensors span.
  static int64_t devicesOf(const ProgramSpec &program);
};

/// Loads the library at `path`; nothing and a message when it is not one
/// fuser-compile wrote.
std::optional<ProgramLibrary> loadProgramLibrary(const std::string &path,
                                                 std::string &error);

/// The shape of the piece of `tensor` a device holds; a device outside the
/// tensor's mesh holds one shaped like its first device's, which nothing
/// reads.
Shape localShapeOf(const TensorSpec &tensor, int64_t device);

/// The piece of `global` a device holds (contiguous), or an empty piece of
/// the local shape for a device outside the tensor's mesh.
HostTensor pieceOf(const TensorSpec &tensor, const HostTensor &global,
                   int64_t device, Shape &localShape);

/// `local` (a contiguous block at `offset`) placed into `global`.
void place(const HostTensor &local, const Shape &localShape,
           const Shape &offset, HostTensor &global, const Shape &globalShape);

/// The inputs of one rank where its program reads them: host memory for the
/// host backend, device buffers for the CUDA backend.
struct ProgramInputs {
  std::vector<char *> data;
  std::vector<Shape> shapes;
  bool onDevice = false;

  /// `tensors` where the program reads them: in place for the host
  /// backend, device copies (made once, freed with this) for the CUDA
  /// backend.
  ProgramInputs(std::vector<HostTensor> &tensors,
                const std::vector<Shape> &tensorShapes, bool onDevice);
  /// Contiguous buffers the caller owns, already where the program reads
  /// them.
  ProgramInputs(std::vector<char *> buffers, std::vector<Shape> bufferShapes,
                bool onDevice)
      : data(std::move(buffers)), shapes(std::move(bufferShapes)),
        onDevice(onDevice) {}
  ~ProgramInputs();
  ProgramInputs(const ProgramInputs &) = delete;
  ProgramInputs &operator=(const ProgramInputs &) = delete;

private:
  void copyToDevice(std::vector<HostTensor> &tensors);
  void releaseCopies();
  /// The device copies this made of host tensors.
  std::vector<char *> deviceCopies;
};

/// Runs `entry` over `inputs`; returns the descriptors of its results, one
/// after the other. Throws ProgramFailure when the program failed.
std::vector<int64_t> execute(Entry entry, const ProgramInputs &inputs,
                             const std::vector<const TensorSpec *> &outputs);
/// One result of `execute` (its descriptor at `fields`, of `rank` dims)
/// contiguous on the host; a device result is copied whole (the span its
/// strides reach) first. Throws ProgramFailure when the copy fails.
HostTensor readResult(const int64_t *fields, int64_t rank, FuserDType dtype,
                      bool onDevice);
/// The results `execute` returned, contiguous on the host.
std::vector<HostTensor>
readResults(const std::vector<int64_t> &results, const ProgramInputs &inputs,
            const std::vector<const TensorSpec *> &outputs);
/// Frees the buffers the program allocated for the results `execute`
/// returned. Results may be views of the inputs or of one another: each
/// buffer is freed once.
void releaseResults(const std::vector<int64_t> &results,
                    const ProgramInputs &inputs,
                    const std::vector<const TensorSpec *> &outputs);
/// Runs `entry` over `inputs`; returns the outputs, contiguous on the
/// host, and frees the buffers the program allocated for them.
std::vector<HostTensor> run(Entry entry, const ProgramInputs &inputs,
                            const std::vector<const TensorSpec *> &outputs);

/// `tensor` whole on rank 0 (empty elsewhere), from the piece `local` of
/// each of the `devices` ranks. Collective.
HostTensor gatherOnRankZero(const TensorSpec &tensor, const HostTensor &local,
                            int64_t devices);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_PROGRAMRUNNER_H
