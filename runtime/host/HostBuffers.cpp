//===- HostBuffers.cpp - host memory, the buffer cache, copies -----------===//

#include "HostBackend.h"
#include "../Internal.h"

#include <cstdlib>
#include <cstring>

using namespace fuser::runtime;
using fuser::runtime::host::HostBackend;

namespace {
/// Aligned for any element type and for vector loads.
constexpr size_t kAlignment = 64;
} // namespace

void HostBackend::release() {
  for (auto &[name, buffer] : cache)
    std::free(buffer.memory);
  cache.clear();
}

void *HostBackend::allocate(int64_t bytes, FuserMemory, bool zeroed) {
  size_t rounded = (static_cast<size_t>(bytes) + kAlignment - 1) /
                   kAlignment * kAlignment;
  void *memory = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
  if (!memory) {
    fail("out of host memory allocating " + std::to_string(bytes) + " bytes");
    return nullptr;
  }
  if (zeroed)
    std::memset(memory, 0, rounded);
  return memory;
}

void HostBackend::deallocate(void *memory) { std::free(memory); }

void *HostBackend::getCachedBuffer(const std::string &name, int64_t bytes,
                                   FuserMemory memory) {
  auto [it, inserted] = cache.try_emplace(name, CachedBuffer{nullptr, bytes});
  if (!inserted) {
    if (it->second.bytes != bytes) {
      fail("cached buffer '" + name + "' holds " +
           std::to_string(it->second.bytes) + " bytes, asked for " +
           std::to_string(bytes));
      return nullptr;
    }
    return it->second.memory;
  }
  void *allocated = allocate(bytes, memory, /*zeroed=*/false);
  if (!allocated) {
    cache.erase(it);
    return nullptr;
  }
  it->second.memory = allocated;
  return allocated;
}

FuserStatus HostBackend::copy(const FuserBuffer &source,
                              const FuserBuffer &target) {
  size_t size = getElementSize(source.dtype);
  bool sameLayout = std::equal(source.strides, source.strides + source.rank,
                               target.strides);
  if (sameLayout && isDense(source)) {
    std::memmove(getData(target), getData(source),
                 static_cast<size_t>(getNumElements(source)) * size);
    return FUSER_OK;
  }
  for (int64_t i = 0, n = getNumElements(source); i < n; ++i)
    std::memcpy(getElementAddress(target, i), getElementAddress(source, i),
                size);
  return FUSER_OK;
}

FuserStream *HostBackend::wrapStream(void *) {
  fail("the host backend runs work in program order and has no streams to "
       "wrap; select the CUDA backend first");
  return nullptr;
}

FuserStatus HostBackend::launchKernel(const char *, const char *kernel, void **,
                                      const int64_t *, const int64_t *,
                                      void **) {
  return fail(std::string("launch of kernel '") + kernel +
              "': a GPU kernel cannot run on the host backend (CPU ranks); "
              "select the CUDA backend, or compile the program with "
              "--target=cpu for CPU kernels");
}

static FuserStatus needsGraphs(const char *what) {
  return fail(std::string(what) +
              ": CUDA graphs need the CUDA backend; the host backend (CPU "
              "ranks) runs every call as it is issued, so there is no device "
              "work to capture and replay (compile the program with "
              "--target=cuda)");
}

FuserStatus HostBackend::beginCapture() {
  return needsGraphs("graph_begin_capture");
}

FuserGraph *HostBackend::endCapture() {
  needsGraphs("graph_end_capture");
  return nullptr;
}

FuserStatus HostBackend::launchGraph(FuserGraph &) {
  return needsGraphs("graph_launch");
}

void HostBackend::destroyGraph(FuserGraph *graph) { delete graph; }

static FuserStatus needsCuda(const char *op) {
  return fail(std::string(op) +
              ": CUDA IPC needs the CUDA backend (compile with --target=cuda)");
}

FuserIpcHandles *HostBackend::ipcShare(FuserTeam &, const FuserBuffer &) {
  needsCuda("ipc_share");
  return nullptr;
}

void *HostBackend::ipcPeerPointer(FuserIpcHandles &, int64_t) {
  needsCuda("ipc_peer_buffer");
  return nullptr;
}

FuserStatus HostBackend::ipcSignal(FuserIpcHandles &, int64_t) {
  return needsCuda("ipc_signal");
}

FuserStatus HostBackend::ipcWait(FuserIpcHandles &, int64_t) {
  return needsCuda("ipc_wait");
}

extern "C" {

/// What MLIR's memref lowering calls for copies it cannot inline (strided
/// ones, in generated CPU kernels): the signature of MLIR's runner
/// utilities, each memref given as {rank, descriptor}.
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

void memrefCopy(int64_t elementSize, UnrankedMemRef *source,
                UnrankedMemRef *target) {
  auto view = [&](const UnrankedMemRef &memref) {
    auto *fields = static_cast<int64_t *>(memref.descriptor);
    FuserBuffer buffer;
    buffer.allocated = reinterpret_cast<void *>(fields[0]);
    buffer.aligned = reinterpret_cast<void *>(fields[1]);
    buffer.offset = fields[2];
    buffer.rank = memref.rank;
    buffer.sizes = fields + 3;
    buffer.strides = fields + 3 + memref.rank;
    // Only the element size matters for a copy.
    buffer.dtype = elementSize == 8   ? FUSER_F64
                   : elementSize == 4 ? FUSER_F32
                   : elementSize == 2 ? FUSER_F16
                                      : FUSER_I8;
    return buffer;
  };
  FuserBuffer from = view(*source), to = view(*target);
  fuser_check(fuser_copy(&from, &to));
}

} // extern "C"
