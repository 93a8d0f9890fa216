//===- CudaMemory.cpp - the caching allocator, cached buffers, copies ----===//
//
// Device memory comes from a stream-ordered pool that keeps what programs
// free, so a steady-state execution calls no cudaMalloc/cudaFree. Symmetric
// memory (what CUDA IPC shares) cannot come from the pool, which legacy IPC
// handles cannot export: it is cudaMalloc'd and kept for reuse by size.
// While a graph is captured, device memory is cudaMalloc'd beside the
// capture and the graph keeps it: every replay writes where the captured
// execution would have, and the graph holds no allocation nodes. (The pool
// cannot serve it: its stream-ordered reuse of memory freed on a captured
// stream ties the allocation to that stream, which invalidates the
// capture.)
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

#include <algorithm>

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
/// Every buffer starts on a boundary that allows 16-byte vector accesses.
constexpr int64_t kAlignment = 256;

int64_t roundUp(int64_t bytes) {
  return std::max<int64_t>(kAlignment,
                           (bytes + kAlignment - 1) / kAlignment * kAlignment);
}

/// Lets the calling thread make, while it lives, the calls a capture in
/// cudaStreamCaptureModeThreadLocal refuses: a graph's buffers are
/// allocated beside the capture, not in it.
class UncapturedCalls {
public:
  UncapturedCalls() { cudaThreadExchangeStreamCaptureMode(&mode); }
  ~UncapturedCalls() { cudaThreadExchangeStreamCaptureMode(&mode); }
  UncapturedCalls(const UncapturedCalls &) = delete;
  UncapturedCalls &operator=(const UncapturedCalls &) = delete;

private:
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
};
} // namespace

void *CudaBackend::allocate(int64_t bytes, FuserMemory memory, bool zeroed) {
  const char *op = "hostir.allocate";
  int64_t rounded = roundUp(bytes);
  void *address = nullptr;
  switch (memory) {
  case FUSER_MEMORY_DEVICE: {
    if (capture) {
      // The zeroing is part of the capture, on the current stream.
      if (zeroed && checkCapturedStream(op))
        return nullptr;
      UncapturedCalls uncaptured;
      if (checkCuda(cudaMalloc(&address, rounded), op, "cudaMalloc"))
        return nullptr;
      ++deviceAllocations;
      capture->buffers.push_back(address);
      break;
    }
    if (checkCuda(cudaMallocFromPoolAsync(&address, rounded, pool, getStream()),
                  op, "cudaMallocFromPoolAsync"))
      return nullptr;
    size_t reserved = 0;
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent,
                            &reserved);
    if (reserved > reservedHighWater) {
      reservedHighWater = reserved;
      ++deviceAllocations;
    }
    break;
  }
  case FUSER_MEMORY_SYMMETRIC: {
    if (refuseWhileCapturing(op, "allocating symmetric memory",
                             "it is obtained and released with host "
                             "synchronization; keep shared buffers cached "
                             "(fuser-compile -cache-allocations)"))
      return nullptr;
    auto reusable = freeSymmetric.find(rounded);
    if (reusable != freeSymmetric.end()) {
      address = reusable->second;
      freeSymmetric.erase(reusable);
      break;
    }
    if (checkCuda(cudaMalloc(&address, rounded), op, "cudaMalloc"))
      return nullptr;
    ++deviceAllocations;
    break;
  }
  case FUSER_MEMORY_HOST:
    if (refuseWhileCapturing(op, "cudaMallocHost",
                             "host memory is allocated and freed with host "
                             "synchronization") ||
        checkCuda(cudaMallocHost(&address, rounded), op, "cudaMallocHost"))
      return nullptr;
    ++deviceAllocations;
    break;
  default:
    fail("allocate: unknown memory kind " + std::to_string(memory));
    return nullptr;
  }
  allocations[address] =
      Allocation{memory, rounded, /*cached=*/false,
                 /*graphOwned=*/capture && memory == FUSER_MEMORY_DEVICE};
  if (memory != FUSER_MEMORY_HOST)
    holdDeviceBytes(rounded);
  if (zeroed &&
      checkCuda(cudaMemsetAsync(address, 0, rounded, getStream()), op,
                "cudaMemsetAsync")) {
    std::string error = fuser_last_error();
    deallocate(address);
    fail(error);
    return nullptr;
  }
  return address;
}

void CudaBackend::deallocate(void *address) {
  auto found = allocations.find(address);
  if (found == allocations.end()) {
    fail("deallocate: " + std::to_string(reinterpret_cast<uintptr_t>(address)) +
         " is not a buffer of the CUDA backend");
    fuser_fail(fuser_last_error());
  }
  Allocation allocation = found->second;
  // The graph's replays keep using its buffers: they are freed with it.
  if (allocation.cached || allocation.graphOwned)
    return;
  if (refuseWhileCapturing("hostir.deallocate",
                           "freeing a buffer allocated before the capture",
                           "a replay cannot free memory it did not allocate"))
    fuser_fail(fuser_last_error());
  allocations.erase(found);
  if (allocation.memory != FUSER_MEMORY_HOST)
    liveDeviceBytes -= allocation.bytes;
  switch (allocation.memory) {
  case FUSER_MEMORY_DEVICE:
    // Stream-ordered: the pool reuses the memory once the current stream
    // has passed this point.
    if (checkCuda(cudaFreeAsync(address, getStream()), "hostir.deallocate",
                  "cudaFreeAsync"))
      fuser_fail(fuser_last_error());
    return;
  case FUSER_MEMORY_SYMMETRIC:
    // What peers opened of it is closed; the memory is kept for the next
    // symmetric buffer of its size. Work issued so far may still read
    // through those mappings: it completes first (bounded). Cached buffers,
    // what steady-state executions share, never come here.
    if (synchronize())
      fuser_fail(fuser_last_error());
    releaseSharesOf(address, allocation.bytes);
    freeSymmetric.emplace(allocation.bytes, address);
    return;
  case FUSER_MEMORY_HOST:
    // Not stream-ordered: the work issued so far may still read it.
    if (synchronize())
      fuser_fail(fuser_last_error());
    cudaFreeHost(address);
    return;
  }
}

void *CudaBackend::getCachedBuffer(const std::string &name, int64_t bytes,
                                   FuserMemory memory) {
  auto found = cachedBuffers.find(name);
  if (found != cachedBuffers.end()) {
    if (found->second.second != bytes) {
      fail("cached buffer '" + name + "' holds " +
           std::to_string(found->second.second) + " bytes, asked for " +
           std::to_string(bytes));
      return nullptr;
    }
    return found->second.first;
  }
  if (refuseWhileCapturing("hostir.cached_buffer",
                           ("allocating cached buffer '" + name + "'").c_str(),
                           kSetUpBeforeCapture))
    return nullptr;
  // Allocated once and never returned to the pool: cudaMalloc, so that
  // IPC can share it too.
  void *address = nullptr;
  int64_t rounded = roundUp(bytes);
  if (memory == FUSER_MEMORY_HOST) {
    if (checkCuda(cudaMallocHost(&address, rounded), "hostir.cached_buffer",
                  "cudaMallocHost"))
      return nullptr;
  } else if (checkCuda(cudaMalloc(&address, rounded), "hostir.cached_buffer",
                       "cudaMalloc")) {
    return nullptr;
  }
  ++deviceAllocations;
  if (memory != FUSER_MEMORY_HOST)
    holdDeviceBytes(rounded);
  allocations[address] = Allocation{memory, rounded, /*cached=*/true};
  cachedBuffers[name] = {address, bytes};
  return address;
}

int64_t CudaBackend::getCachedBufferCount() const {
  return static_cast<int64_t>(cachedBuffers.size());
}

int64_t CudaBackend::getDeviceAllocationCount() const {
  return deviceAllocations;
}

namespace {
/// A copy as nested loops of contiguous rows: dims of size 1 dropped and
/// dims merged where both sides lay them out as one.
struct CopyPlan {
  std::vector<int64_t> sizes, sourceStrides, targetStrides;
};

CopyPlan planCopy(const FuserBuffer &source, const FuserBuffer &target) {
  CopyPlan plan;
  for (int64_t dim = 0; dim < source.rank; ++dim) {
    if (source.sizes[dim] == 1)
      continue;
    int64_t size = source.sizes[dim];
    if (!plan.sizes.empty() &&
        plan.sourceStrides.back() == source.strides[dim] * size &&
        plan.targetStrides.back() == target.strides[dim] * size) {
      plan.sizes.back() *= size;
      plan.sourceStrides.back() = source.strides[dim];
      plan.targetStrides.back() = target.strides[dim];
      continue;
    }
    plan.sizes.push_back(size);
    plan.sourceStrides.push_back(source.strides[dim]);
    plan.targetStrides.push_back(target.strides[dim]);
  }
  return plan;
}
} // namespace

FuserStatus CudaBackend::copy(const FuserBuffer &source,
                              const FuserBuffer &target) {
  const char *op = "hostir.copy";
  if (checkCapturedStream(op))
    return FUSER_FAILED;
  int64_t element = static_cast<int64_t>(getElementSize(source.dtype));
  CopyPlan plan = planCopy(source, target);
  char *from = getData(source), *to = getData(target);
  int64_t rank = static_cast<int64_t>(plan.sizes.size());
  if (rank == 0 || getNumElements(source) == 0)
    return getNumElements(source) == 0
               ? FUSER_OK
               : checkCuda(cudaMemcpyAsync(to, from, element,
                                           cudaMemcpyDefault, getStream()),
                           op, "cudaMemcpyAsync");
  // The copy engine moves rows: the innermost dim must be contiguous on
  // both sides (a transposing copy is a kernel's work).
  if (plan.sourceStrides.back() != 1 || plan.targetStrides.back() != 1)
    return fail("copy: " + describe(source) + " to " + describe(target) +
                " transposes or repeats elements; the copy engine moves "
                "rows that are "
                "contiguous on both sides");
  int64_t width = plan.sizes.back() * element;
  if (rank == 1)
    return checkCuda(cudaMemcpyAsync(to, from, width, cudaMemcpyDefault,
                                     getStream()),
                     op, "cudaMemcpyAsync");
  // Rows of the two innermost dims in one 2-D copy; loops over the rest.
  // A pitch shorter than a row (a broadcast source repeats its rows, stride
  // 0) is not one the copy engine takes: such rows go one by one.
  int64_t height = plan.sizes[rank - 2];
  size_t sourcePitch = plan.sourceStrides[rank - 2] * element,
         targetPitch = plan.targetStrides[rank - 2] * element;
  bool rowByRow = sourcePitch < static_cast<size_t>(width) ||
                  targetPitch < static_cast<size_t>(width);
  int64_t outer = 1;
  for (int64_t dim = 0; dim < rank - 2; ++dim)
    outer *= plan.sizes[dim];
  for (int64_t index = 0; index < outer; ++index) {
    int64_t sourceOffset = 0, targetOffset = 0, rest = index;
    for (int64_t dim = rank - 3; dim >= 0; --dim) {
      int64_t position = rest % plan.sizes[dim];
      rest /= plan.sizes[dim];
      sourceOffset += position * plan.sourceStrides[dim];
      targetOffset += position * plan.targetStrides[dim];
    }
    char *target = to + targetOffset * element;
    const char *source = from + sourceOffset * element;
    if (rowByRow) {
      for (int64_t row = 0; row < height; ++row)
        if (checkCuda(cudaMemcpyAsync(target + row * targetPitch,
                                      source + row * sourcePitch, width,
                                      cudaMemcpyDefault, getStream()),
                      op, "cudaMemcpyAsync"))
          return FUSER_FAILED;
      continue;
    }
    if (checkCuda(cudaMemcpy2DAsync(target, targetPitch, source, sourcePitch,
                                    width, height, cudaMemcpyDefault,
                                    getStream()),
                  op, "cudaMemcpy2DAsync"))
      return FUSER_FAILED;
  }
  return FUSER_OK;
}
