//===- TensorExchange.cpp - program tensors to and from DLPack ------------===//

#include "TensorExchange.h"

#include <string>
#include <vector>

namespace py = pybind11;
using namespace fuser;
using namespace fuser::python;

namespace {
bool runtimeFinalized = false;

DLDataType toDLDataType(FuserDType dtype) {
  auto bits = static_cast<uint8_t>(8 * fuser_element_size(dtype));
  switch (dtype) {
  case FUSER_F32:
  case FUSER_F16:
  case FUSER_F64:
    return {kDLFloat, bits, 1};
  case FUSER_BF16:
    return {kDLBfloat, bits, 1};
  case FUSER_I64:
  case FUSER_I32:
  case FUSER_I8:
    return {kDLInt, bits, 1};
  case FUSER_I1:
    return {kDLBool, bits, 1};
  }
  throw std::logic_error("unknown element type");
}

/// What an exported capsule owns: the DLPack tensor and what it views.
struct ExportedView {
  DLManagedTensor managed;
  std::vector<int64_t> shape, strides;
  std::shared_ptr<Storage> storage;
};

void deleteExportedView(DLManagedTensor *managed) {
  delete static_cast<ExportedView *>(managed->manager_ctx);
}

/// A capsule nobody consumed still owns its tensor.
void destroyUnconsumedCapsule(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, kDLPackCapsuleName))
    return;
  auto *managed = static_cast<DLManagedTensor *>(
      PyCapsule_GetPointer(capsule, kDLPackCapsuleName));
  managed->deleter(managed);
}
} // namespace

void fuser::python::markRuntimeFinalized() { runtimeFinalized = true; }

ExecutionScope::ExecutionScope(FuserBackend backend, FuserStream *stream)
    : previousBackend(fuser_current_backend()) {
  // The backend started when the buffer or stream was made.
  fuser_use_backend(backend);
  previousStream = fuser_get_current_stream();
  fuser_set_current_stream(stream);
}

ExecutionScope::~ExecutionScope() {
  fuser_set_current_stream(previousStream);
  fuser_use_backend(previousBackend);
}

RuntimeBuffer::~RuntimeBuffer() {
  if (runtimeFinalized)
    return;
  ExecutionScope scope(backend, stream);
  fuser_deallocate(memory);
}

std::shared_ptr<ForeignTensor>
ForeignTensor::take(py::handle value, int64_t producerStream,
                    const std::string &input) {
  if (!py::hasattr(value, "__dlpack__") ||
      !py::hasattr(value, "__dlpack_device__"))
    throw py::type_error(input + " is neither an array nor a DLPack tensor");
  auto device = value.attr("__dlpack_device__")().cast<py::tuple>();
  bool onCuda = device[0].cast<int>() == kDLCUDA;
  py::object capsule =
      onCuda ? value.attr("__dlpack__")(py::arg("stream") = producerStream)
             : value.attr("__dlpack__")();
  if (!PyCapsule_IsValid(capsule.ptr(), kDLPackCapsuleName))
    throw py::type_error(input + ": __dlpack__ gave no '" +
                         std::string(kDLPackCapsuleName) + "' capsule");
  auto *managed = static_cast<DLManagedTensor *>(
      PyCapsule_GetPointer(capsule.ptr(), kDLPackCapsuleName));
  PyCapsule_SetName(capsule.ptr(), kDLPackUsedCapsuleName);
  return std::make_shared<ForeignTensor>(managed);
}

ForeignTensor::~ForeignTensor() {
  if (managed->deleter)
    managed->deleter(managed);
}

Shape ForeignTensor::shape() const {
  return Shape(tensor().shape, tensor().shape + tensor().ndim);
}

Shape ForeignTensor::strides() const {
  if (tensor().strides)
    return Shape(tensor().strides, tensor().strides + tensor().ndim);
  Shape strides(tensor().ndim);
  int64_t stride = 1;
  for (int32_t dim = tensor().ndim; dim-- > 0;) {
    strides[dim] = stride;
    stride *= tensor().shape[dim];
  }
  return strides;
}

py::object
ExportedTensor::toDLPack(std::optional<int64_t> consumerStream) const {
  // DLPack's stream numbers: none given is the legacy default stream (1),
  // -1 asks for no ordering.
  int64_t consumer = consumerStream.value_or(1);
  if (deviceIndex >= 0 && consumer != -1) {
    ExecutionScope onDevice(FUSER_BACKEND_CUDA, stream);
    FuserStream *waiting =
        fuser_wrap_stream(reinterpret_cast<void *>(consumer));
    if (waiting != stream) {
      fuser_set_current_stream(waiting);
      fuser_synchronize_stream(stream);
    }
  }
  auto *view = new ExportedView{{}, shape, strides, storage};
  DLTensor &tensor = view->managed.dl_tensor;
  tensor.data = data;
  tensor.device =
      deviceIndex >= 0 ? DLDevice{kDLCUDA, deviceIndex} : DLDevice{kDLCPU, 0};
  tensor.ndim = static_cast<int32_t>(shape.size());
  tensor.dtype = toDLDataType(dtype);
  tensor.shape = view->shape.data();
  tensor.strides = view->strides.data();
  tensor.byte_offset = 0;
  view->managed.manager_ctx = view;
  view->managed.deleter = deleteExportedView;
  PyObject *capsule = PyCapsule_New(&view->managed, kDLPackCapsuleName,
                                    destroyUnconsumedCapsule);
  if (!capsule) {
    delete view;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

py::tuple ExportedTensor::device() const {
  if (deviceIndex >= 0)
    return py::make_tuple(int(kDLCUDA), deviceIndex);
  return py::make_tuple(int(kDLCPU), 0);
}

py::tuple ExportedTensor::sizes() const {
  py::tuple sizes(shape.size());
  for (size_t dim = 0; dim < shape.size(); ++dim)
    sizes[dim] = shape[dim];
  return sizes;
}

bool fuser::python::isDLDataType(DLDataType type, FuserDType dtype) {
  DLDataType expected = toDLDataType(dtype);
  if (type.lanes != 1 || type.bits != expected.bits)
    return false;
  // Producers that predate kDLBool spell booleans as 8-bit unsigned.
  if (dtype == FUSER_I1)
    return type.code == kDLBool || type.code == kDLUInt;
  return type.code == expected.code;
}

std::string fuser::python::describeDLDataType(DLDataType type) {
  std::string kind;
  switch (type.code) {
  case kDLInt:
    kind = "int";
    break;
  case kDLUInt:
    kind = "uint";
    break;
  case kDLFloat:
    kind = "float";
    break;
  case kDLBfloat:
    kind = "bfloat";
    break;
  case kDLBool:
    return "bool";
  default:
    kind = "type code " + std::to_string(type.code) + " of ";
  }
  std::string text = kind + std::to_string(type.bits);
  return type.lanes == 1 ? text : text + "x" + std::to_string(type.lanes);
}
