//===- Buffers.cpp - host memory, the buffer cache, copies ---------------===//

#include "Internal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace fuser::runtime;

namespace {
/// Aligned for any element type and for vector loads.
constexpr size_t kAlignment = 64;

struct CachedBuffer {
  void *memory;
  int64_t bytes;
};

std::map<std::string, CachedBuffer> &getCache() {
  static std::map<std::string, CachedBuffer> cache;
  return cache;
}
} // namespace

void fuser::runtime::releaseCachedBuffers() {
  for (auto &[name, buffer] : getCache())
    std::free(buffer.memory);
  getCache().clear();
}

extern "C" {

void *fuser_allocate(int64_t bytes, int32_t zeroed) {
  if (bytes < 0) {
    fail("cannot allocate " + std::to_string(bytes) + " bytes");
    return nullptr;
  }
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

void fuser_deallocate(void *memory) { std::free(memory); }

void *fuser_cached_buffer(const char *name, int64_t bytes) {
  auto [it, inserted] = getCache().try_emplace(name, CachedBuffer{nullptr, bytes});
  if (!inserted) {
    if (it->second.bytes != bytes) {
      fail(std::string("cached buffer '") + name + "' holds " +
           std::to_string(it->second.bytes) + " bytes, asked for " +
           std::to_string(bytes));
      return nullptr;
    }
    return it->second.memory;
  }
  void *memory = fuser_allocate(bytes, /*zeroed=*/0);
  if (!memory) {
    getCache().erase(it);
    return nullptr;
  }
  it->second.memory = memory;
  return memory;
}

int64_t fuser_cached_buffer_count(void) {
  return static_cast<int64_t>(getCache().size());
}

FuserStatus fuser_copy(const FuserBuffer *source, const FuserBuffer *target) {
  if (source->dtype != target->dtype || source->rank != target->rank ||
      !std::equal(source->sizes, source->sizes + source->rank, target->sizes))
    return fail("copy: source " + describe(*source) + " and target " +
                describe(*target) + " differ in shape or element type");
  size_t size = getElementSize(source->dtype);
  bool sameLayout = std::equal(source->strides, source->strides + source->rank,
                               target->strides);
  if (sameLayout && isDense(*source)) {
    std::memmove(getData(*target), getData(*source),
                 static_cast<size_t>(getNumElements(*source)) * size);
    return FUSER_OK;
  }
  for (int64_t i = 0, n = getNumElements(*source); i < n; ++i)
    std::memcpy(getElementAddress(*target, i), getElementAddress(*source, i),
                size);
  return FUSER_OK;
}

/// What MLIR's memref lowering calls for copies it cannot inline (strided
/// ones, in generated kernels): the signature of MLIR's runner utilities,
/// each memref given as {rank, descriptor}.
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
