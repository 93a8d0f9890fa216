//===- TensorExchange.h - program tensors to and from DLPack -----*- C++
//-*-===//
//
// Programs take and give tensors of other array libraries (PyTorch, CuPy,
// JAX, NumPy) through DLPack, without copies where the layout allows: a
// piece the caller hands over is read where it lies, and an output is
// handed back where the program wrote it. What an output views (a runtime
// buffer, or an input it aliases) lives as long as the last tensor that
// views it.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_PYTHON_TENSOREXCHANGE_H
#define FUSER_PYTHON_TENSOREXCHANGE_H

#include "DLPack.h"

#include "fuser/Runtime/Runtime.h"
#include "fuser/Support/MeshMath.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

namespace fuser::python {

/// Makes `backend` and its `stream` the runtime's current ones for the
/// scope's life: buffers and streams belong to the backend that made them,
/// which need not be current when they are released.
class ExecutionScope {
public:
  ExecutionScope(FuserBackend backend, FuserStream *stream);
  ~ExecutionScope();
  ExecutionScope(const ExecutionScope &) = delete;
  ExecutionScope &operator=(const ExecutionScope &) = delete;

private:
  FuserBackend previousBackend;
  FuserStream *previousStream = nullptr;
};

/// Memory that exported tensors view, released with the last of them.
class Storage {
public:
  virtual ~Storage() = default;
};

/// A buffer of the runtime, freed (ordered on `stream`) with its last view.
class RuntimeBuffer : public Storage {
public:
  RuntimeBuffer(void *memory, FuserStream *stream)
      : memory(memory), backend(fuser_current_backend()), stream(stream) {}
  ~RuntimeBuffer() override;
  RuntimeBuffer(const RuntimeBuffer &) = delete;
  RuntimeBuffer &operator=(const RuntimeBuffer &) = delete;

private:
  void *memory;
  FuserBackend backend;
  FuserStream *stream;
};

/// A tensor another library handed over, given back to it (its DLPack
/// deleter) with its last view.
class ForeignTensor : public Storage {
public:
  /// Takes over `value`'s tensor: `value.__dlpack__()`, with
  /// `stream=producerStream` for a CUDA tensor, so that its producer orders
  /// its pending writes before the work on that stream.
  static std::shared_ptr<ForeignTensor>
  take(pybind11::handle value, int64_t producerStream,
       const std::string &input);
  explicit ForeignTensor(DLManagedTensor *managed) : managed(managed) {}
  ~ForeignTensor() override;
  ForeignTensor(const ForeignTensor &) = delete;
  ForeignTensor &operator=(const ForeignTensor &) = delete;

  const DLTensor &tensor() const { return managed->dl_tensor; }
  /// Its first element.
  char *data() const {
    return static_cast<char *>(tensor().data) + tensor().byte_offset;
  }
  Shape shape() const;
  /// Its strides in elements (the row-major ones when it gives none).
  Shape strides() const;

private:
  DLManagedTensor *managed;
};

/// A program's output as other libraries take it: `__dlpack__` and
/// `__dlpack_device__` of the array API standard.
class ExportedTensor {
public:
  ExportedTensor(std::shared_ptr<Storage> storage, char *data, FuserDType dtype,
                 Shape shape, Shape strides, FuserStream *stream)
      : storage(std::move(storage)), data(data), dtype(dtype),
        shape(std::move(shape)), strides(std::move(strides)), stream(stream),
        deviceIndex(fuser_device_index()) {}

  /// A `dltensor` capsule viewing the output; a CUDA consumer's stream
  /// first waits for the stream the program ran on.
  pybind11::object toDLPack(std::optional<int64_t> consumerStream) const;
  /// (device type, device ordinal) as DLPack numbers them.
  pybind11::tuple device() const;
  pybind11::tuple sizes() const;
  std::string elementType() const { return fuser_dtype_name(dtype); }

private:
  std::shared_ptr<Storage> storage;
  char *data;
  FuserDType dtype;
  Shape shape, strides;
  FuserStream *stream;
  int32_t deviceIndex;
};

/// Whether `type` is how DLPack spells `dtype`.
bool isDLDataType(DLDataType type, FuserDType dtype);
/// "float32", "bfloat16", ...: a DLPack type as messages name it.
std::string describeDLDataType(DLDataType type);

/// Called at fuser_finalize: the runtime's buffers are gone with it, so
/// views released after that free nothing.
void markRuntimeFinalized();

} // namespace fuser::python

#endif // FUSER_PYTHON_TENSOREXCHANGE_H
