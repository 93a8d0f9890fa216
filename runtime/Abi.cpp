//===- Abi.cpp - the C ABI, written once for both backends ---------------===//
//
// Every call checks what both backends require of its arguments (shapes,
// element types, dense communication buffers, roots and peers), reports
// violations in the same words, and forwards to the backend in use.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "Internal.h"
#include "Teams.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <utility>

using namespace fuser::runtime;

namespace {
/// Checks what every collective needs of its buffers: dense, one element
/// type, and output elements = input elements * `outputFactor` /
/// `inputFactor`.
bool checkBuffers(const char *what, const FuserBuffer &input,
                  const FuserBuffer &output, int64_t inputFactor,
                  int64_t outputFactor) {
  for (const FuserBuffer *buffer : {&input, &output})
    if (!isDense(*buffer)) {
      fail(std::string(what) + ": buffer " + describe(*buffer) +
           " has gaps; communication buffers must be dense");
      return false;
    }
  if (input.dtype != output.dtype) {
    fail(std::string(what) + ": input " + describe(input) + " and output " +
         describe(output) + " differ in element type");
    return false;
  }
  if (getNumElements(input) * outputFactor !=
      getNumElements(output) * inputFactor) {
    fail(std::string(what) + ": input " + describe(input) + " and output " +
         describe(output) + " do not fit on a team of " +
         std::to_string(std::max(inputFactor, outputFactor)));
    return false;
  }
  return true;
}

bool checkMember(const char *what, const FuserTeam &team) {
  if (!team.members.empty())
    return true;
  fail(std::string(what) + " on the team of a rank outside the mesh: only the "
                           "mesh's devices communicate on it");
  return false;
}

bool checkRoot(const char *what, const FuserTeam &team, int64_t root) {
  if (root >= 0 && root < static_cast<int64_t>(team.members.size()))
    return true;
  fail(std::string(what) + ": root " + std::to_string(root) +
       " is not a member index of a team of " +
       std::to_string(team.members.size()));
  return false;
}

bool checkPeer(const char *what, const FuserTeam &team, int64_t peer) {
  if (peer >= 0 && peer < static_cast<int64_t>(team.members.size()) &&
      peer != team.index)
    return true;
  fail(std::string(what) + ": peer " + std::to_string(peer) +
       " is not another member of a team of " +
       std::to_string(team.members.size()));
  return false;
}

bool sameDType(const char *what,
               std::initializer_list<const FuserBuffer *> buffers) {
  FuserDType dtype = (*buffers.begin())->dtype;
  for (const FuserBuffer *buffer : buffers)
    if (buffer && buffer->dtype != dtype) {
      fail(std::string(what) + ": operands " + describe(**buffers.begin()) +
           " and " + describe(*buffer) + " differ in element type");
      return false;
    }
  return true;
}

/// Whether `activation` is one the products apply to `dtype`; fails
/// naming `what` otherwise.
bool checkActivation(const char *what, FuserActivation activation,
                     FuserDType dtype) {
  if (activation == FUSER_ACTIVATION_NONE)
    return true;
  if (activation != FUSER_ACTIVATION_GELU_TANH &&
      activation != FUSER_ACTIVATION_RELU) {
    fail(std::string(what) + ": unknown activation " +
         std::to_string(static_cast<int>(activation)));
    return false;
  }
  if (!isFloatingPoint(dtype)) {
    fail(std::string(what) + ": an activation needs floating-point " +
         "elements, not " + fuser_dtype_name(dtype));
    return false;
  }
  return true;
}

/// Checks what both sdpa calls need: query [b, h, sq, d], key and value
/// [b, h, skv, d], out [b, h, sq, d] and `others` (gradients: each the
/// shape of the operand it belongs to) of one floating-point element type,
/// logsumexp f32 [b, h, sq], 0 <= p < 1 and a finite scale.
bool checkAttention(const char *what, const FuserBuffer &query,
                    const FuserBuffer &key, const FuserBuffer &value,
                    const FuserBuffer &out, const FuserBuffer &logsumexp,
                    std::initializer_list<std::pair<const FuserBuffer *,
                                                    const FuserBuffer *>>
                        others,
                    double scale, double dropoutProbability) {
  std::string op(what);
  auto sameShape = [](const FuserBuffer &a, const FuserBuffer &b) {
    return a.rank == b.rank && std::equal(a.sizes, a.sizes + a.rank, b.sizes);
  };
  bool fits = query.rank == 4 && key.rank == 4 && value.rank == 4 &&
              sameShape(key, value) && sameShape(query, out);
  for (int dim : {0, 1, 3})
    fits = fits && key.sizes[dim] == query.sizes[dim];
  if (!fits) {
    fail(op + ": query " + describe(query) + ", key " + describe(key) +
         ", value " + describe(value) + " and out " + describe(out) +
         " do not fit: query and out are [b, h, sq, d], key and value "
         "[b, h, skv, d]");
    return false;
  }
  for (auto [operand, gradient] : others)
    if (!sameShape(*operand, *gradient)) {
      fail(op + ": gradient " + describe(*gradient) +
           " does not have the shape of its operand " + describe(*operand));
      return false;
    }
  if (!isFloatingPoint(query.dtype)) {
    fail(op + ": attention needs floating-point elements, not " +
         fuser_dtype_name(query.dtype));
    return false;
  }
  for (const FuserBuffer *buffer : {&key, &value, &out})
    if (buffer->dtype != query.dtype) {
      fail(op + ": query " + describe(query) + " and " + describe(*buffer) +
           " differ in element type");
      return false;
    }
  for (auto [operand, gradient] : others)
    if (gradient->dtype != query.dtype) {
      fail(op + ": query " + describe(query) + " and gradient " +
           describe(*gradient) + " differ in element type");
      return false;
    }
  if (logsumexp.dtype != FUSER_F32 || logsumexp.rank != 3 ||
      !std::equal(query.sizes, query.sizes + 3, logsumexp.sizes)) {
    fail(op + ": logsumexp " + describe(logsumexp) + " is not f32[" +
         std::to_string(query.sizes[0]) + ", " +
         std::to_string(query.sizes[1]) + ", " +
         std::to_string(query.sizes[2]) + "] ([b, h, sq] of query " +
         describe(query) + ")");
    return false;
  }
  if (!(dropoutProbability >= 0 && dropoutProbability < 1)) {
    fail(op + ": dropout probability " + std::to_string(dropoutProbability) +
         " is not in [0, 1)");
    return false;
  }
  if (!std::isfinite(scale)) {
    fail(op + ": scale " + std::to_string(scale) + " is not finite");
    return false;
  }
  return true;
}

int64_t teamSize(const FuserTeam &team) {
  return static_cast<int64_t>(team.members.size());
}

std::string describeSizes(const int64_t sizes[3]) {
  return std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]) + " x " +
         std::to_string(sizes[2]);
}

/// Checks a launch's sizes against CUDA's limits, so that a program's
/// mistake reads as one instead of the driver's error code.
bool checkLaunchSizes(const char *kernel, const int64_t grid[3],
                      const int64_t block[3]) {
  const int64_t maxGrid[] = {2147483647, 65535, 65535};
  const int64_t maxBlock[] = {1024, 1024, 64};
  constexpr int64_t maxThreads = 1024;
  std::string what = std::string("launch of kernel '") + kernel + "': ";
  for (int dim = 0; dim < 3; ++dim) {
    if (grid[dim] < 1 || grid[dim] > maxGrid[dim]) {
      fail(what + "grid " + describeSizes(grid) +
           " is out of bounds: a grid has 1 to " + describeSizes(maxGrid) +
           " blocks");
      return false;
    }
    if (block[dim] < 1 || block[dim] > maxBlock[dim]) {
      fail(what + "block " + describeSizes(block) +
           " is out of bounds: a block has 1 to " + describeSizes(maxBlock) +
           " threads");
      return false;
    }
  }
  if (int64_t threads = block[0] * block[1] * block[2]; threads > maxThreads) {
    fail(what + "block " + describeSizes(block) + " has " +
         std::to_string(threads) + " threads; a block has at most " +
         std::to_string(maxThreads));
    return false;
  }
  return true;
}
} // namespace

extern "C" {

//--- Communications --------------------------------------------------------//

FuserWork *fuser_allgather(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output) {
  if (!checkMember("allgather", *team) ||
      !checkBuffers("allgather", *input, *output, 1, teamSize(*team)))
    return nullptr;
  return getBackend().allgather(*team, *input, *output);
}

FuserWork *fuser_allreduce(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, FuserReduction kind) {
  if (!checkMember("allreduce", *team) ||
      !checkBuffers("allreduce", *input, *output, 1, 1))
    return nullptr;
  return getBackend().allreduce(*team, *input, *output, kind);
}

FuserWork *fuser_reduce_scatter(FuserTeam *team, const FuserBuffer *input,
                                const FuserBuffer *output,
                                FuserReduction kind) {
  if (!checkMember("reduce_scatter", *team) ||
      !checkBuffers("reduce_scatter", *input, *output, teamSize(*team), 1))
    return nullptr;
  return getBackend().reduceScatter(*team, *input, *output, kind);
}

FuserWork *fuser_reduce(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, FuserReduction kind,
                        int64_t root) {
  if (!checkMember("reduce", *team) || !checkRoot("reduce", *team, root) ||
      !checkBuffers("reduce", *input, *output, 1, 1))
    return nullptr;
  return getBackend().reduce(*team, *input, *output, kind, root);
}

FuserWork *fuser_broadcast(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, int64_t root) {
  if (!checkMember("broadcast", *team) ||
      !checkRoot("broadcast", *team, root) ||
      !checkBuffers("broadcast", *input, *output, 1, 1))
    return nullptr;
  return getBackend().broadcast(*team, *input, *output, root);
}

FuserWork *fuser_gather(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, int64_t root) {
  if (!checkMember("gather", *team) || !checkRoot("gather", *team, root) ||
      !checkBuffers("gather", *input, *output, 1, teamSize(*team)))
    return nullptr;
  return getBackend().gather(*team, *input, *output, root);
}

FuserWork *fuser_scatter(FuserTeam *team, const FuserBuffer *input,
                         const FuserBuffer *output, int64_t root) {
  if (!checkMember("scatter", *team) || !checkRoot("scatter", *team, root) ||
      !checkBuffers("scatter", *input, *output, teamSize(*team), 1))
    return nullptr;
  return getBackend().scatter(*team, *input, *output, root);
}

FuserWork *fuser_all_to_all(FuserTeam *team, const FuserBuffer *input,
                            const FuserBuffer *output) {
  if (!checkMember("all_to_all", *team) ||
      !checkBuffers("all_to_all", *input, *output, 1, 1))
    return nullptr;
  if (getNumElements(*input) % teamSize(*team) != 0) {
    fail("all_to_all: input " + describe(*input) + " does not split into " +
         std::to_string(teamSize(*team)) + " blocks");
    return nullptr;
  }
  return getBackend().allToAll(*team, *input, *output);
}

static FuserWork *postPointToPoint(FuserTeam *team, const FuserBuffer *buffer,
                                   int64_t peer, bool sending) {
  const char *what = sending ? "send" : "recv";
  if (!checkMember(what, *team) || !checkPeer(what, *team, peer) ||
      !checkBuffers(what, *buffer, *buffer, 1, 1))
    return nullptr;
  return getBackend().pointToPoint(*team, *buffer, peer, sending);
}

FuserWork *fuser_send(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer) {
  return postPointToPoint(team, buffer, peer, /*sending=*/true);
}

FuserWork *fuser_recv(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer) {
  return postPointToPoint(team, buffer, peer, /*sending=*/false);
}

FuserWork *fuser_group(FuserWork *const *works, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!works[i]) {
      // Leave nothing behind: the others complete (the host backend's
      // requests) or are posted and awaited on the stream (the CUDA
      // backend's), bounded by the timeout either way.
      for (int64_t j = 0; j < count; ++j)
        if (works[j])
          getBackend().wait(works[j]);
      fail("group: member " + std::to_string(i) + " was not posted");
      return nullptr;
    }
  return getBackend().group(works, count);
}

FuserStatus fuser_wait(FuserWork *work) {
  // The failed post recorded why.
  if (!work)
    return FUSER_FAILED;
  return getBackend().wait(work);
}

//--- Streams ---------------------------------------------------------------//

FuserStream *fuser_get_current_stream(void) {
  return getBackend().getCurrentStream();
}

void fuser_set_current_stream(FuserStream *stream) {
  getBackend().setCurrentStream(stream);
}

FuserStream *fuser_stream_from_pool(int64_t index) {
  return getBackend().getPoolStream(index);
}

void fuser_synchronize_stream(FuserStream *stream) {
  getBackend().synchronizeStream(stream);
}

FuserStream *fuser_wrap_stream(void *nativeStream) {
  return getBackend().wrapStream(nativeStream);
}

FuserStatus fuser_synchronize(void) { return getBackend().synchronize(); }

//--- Graphs ----------------------------------------------------------------//

FuserStatus fuser_graph_begin_capture(void) {
  return getBackend().beginCapture();
}

FuserGraph *fuser_graph_end_capture(void) { return getBackend().endCapture(); }

FuserStatus fuser_graph_launch(FuserGraph *graph) {
  if (!graph)
    return fail("graph_launch: no graph (a capture that failed gives none)");
  if (graph->owner != &getBackend())
    return fail("graph_launch: the graph was captured on another backend than "
                "the current one");
  return getBackend().launchGraph(*graph);
}

void fuser_graph_destroy(FuserGraph *graph) {
  if (graph)
    graph->owner->destroyGraph(graph);
}

//--- Timers ----------------------------------------------------------------//

FuserTimer *fuser_timer_create(void) { return getBackend().createTimer(); }

static FuserStatus noTimer(const char *what) {
  return fail(std::string(what) + ": no timer (fuser_timer_create failed)");
}

FuserStatus fuser_timer_start(FuserTimer *timer) {
  if (!timer)
    return noTimer("timer_start");
  timer->started = timer->stopped = false;
  if (timer->recordStart())
    return FUSER_FAILED;
  timer->started = true;
  return FUSER_OK;
}

FuserStatus fuser_timer_stop(FuserTimer *timer) {
  if (!timer)
    return noTimer("timer_stop");
  if (!timer->started)
    return fail("timer_stop: the timer was not started");
  if (timer->recordStop())
    return FUSER_FAILED;
  timer->stopped = true;
  return FUSER_OK;
}

FuserStatus fuser_timer_elapsed_us(FuserTimer *timer, double *microseconds) {
  if (!timer)
    return noTimer("timer_elapsed_us");
  if (!timer->stopped)
    return fail("timer_elapsed_us: the timer was not started and then "
                "stopped");
  return timer->measureMicroseconds(*microseconds);
}

void fuser_timer_destroy(FuserTimer *timer) { delete timer; }

//--- Buffers and library calls ---------------------------------------------//

void *fuser_allocate(int64_t bytes, FuserMemory memory, int32_t zeroed) {
  if (bytes < 0) {
    fail("cannot allocate " + std::to_string(bytes) + " bytes");
    return nullptr;
  }
  return getBackend().allocate(bytes, memory, zeroed != 0);
}

void fuser_deallocate(void *memory) {
  if (memory)
    getBackend().deallocate(memory);
}

void *fuser_cached_buffer(const char *name, int64_t bytes, FuserMemory memory) {
  if (bytes < 0) {
    fail(std::string("cached buffer '") + name + "' cannot hold " +
         std::to_string(bytes) + " bytes");
    return nullptr;
  }
  return getBackend().getCachedBuffer(name, bytes, memory);
}

int64_t fuser_cached_buffer_count(void) {
  return getBackend().getCachedBufferCount();
}

int64_t fuser_device_allocation_count(void) {
  return getBackend().getDeviceAllocationCount();
}

int64_t fuser_device_memory_peak_bytes(void) {
  return getBackend().getDevicePeakBytes();
}

int32_t fuser_device_index(void) { return getBackend().getDeviceIndex(); }

const char *fuser_device_name(void) {
  return getBackend().getDeviceName().c_str();
}

FuserStatus fuser_copy(const FuserBuffer *source, const FuserBuffer *target) {
  if (source->dtype != target->dtype || source->rank != target->rank ||
      !std::equal(source->sizes, source->sizes + source->rank, target->sizes))
    return fail("copy: source " + describe(*source) + " and target " +
                describe(*target) + " differ in shape or element type");
  return getBackend().copy(*source, *target);
}

FuserStatus fuser_matmul(const FuserBuffer *lhs, const FuserBuffer *rhs,
                         const FuserBuffer *out, int32_t accumulate,
                         FuserActivation activation) {
  int64_t rank = lhs->rank;
  if (!sameDType("matmul", {lhs, rhs, out}) ||
      !checkActivation("matmul", activation, lhs->dtype))
    return FUSER_FAILED;
  // A matrix rhs is shared by every batch entry.
  bool sharedRhs = rhs->rank == 2;
  int64_t rhsRank = rhs->rank;
  bool shapesFit = rank >= 2 && (sharedRhs || rhsRank == rank) &&
                   out->rank == rank;
  for (int64_t dim = 0; shapesFit && dim < rank - 2; ++dim)
    shapesFit = (sharedRhs || lhs->sizes[dim] == rhs->sizes[dim]) &&
                lhs->sizes[dim] == out->sizes[dim];
  if (!shapesFit || rhs->sizes[rhsRank - 2] != lhs->sizes[rank - 1] ||
      out->sizes[rank - 2] != lhs->sizes[rank - 2] ||
      out->sizes[rank - 1] != rhs->sizes[rhsRank - 1])
    return fail("matmul: shapes " + describe(*lhs) + " x " + describe(*rhs) +
                " -> " + describe(*out) + " do not fit");
  return getBackend().matmul(*lhs, *rhs, *out, accumulate != 0, activation);
}

FuserStatus fuser_linear(const FuserBuffer *input, const FuserBuffer *weight,
                         const FuserBuffer *bias, const FuserBuffer *out,
                         int32_t accumulate, FuserActivation activation) {
  if (!sameDType("linear", {input, weight, bias, out}) ||
      !checkActivation("linear", activation, input->dtype))
    return FUSER_FAILED;
  int64_t rank = input->rank;
  bool vector = weight->rank == 1;
  int64_t k = rank >= 1 ? input->sizes[rank - 1] : 0;
  int64_t n = vector ? 1 : weight->sizes[0];
  bool shapesFit = rank >= 1 && (weight->rank == 1 || weight->rank == 2) &&
                   weight->sizes[weight->rank - 1] == k &&
                   out->rank == (vector ? rank - 1 : rank);
  for (int64_t dim = 0; shapesFit && dim < rank - 1; ++dim)
    shapesFit = out->sizes[dim] == input->sizes[dim];
  if (shapesFit && !vector)
    shapesFit = out->sizes[rank - 1] == n;
  if (shapesFit && bias)
    shapesFit = vector ? bias->rank == 0
                       : bias->rank == 1 && bias->sizes[0] == n;
  if (!shapesFit)
    return fail("linear: shapes " + describe(*input) + ", weight " +
                describe(*weight) +
                (bias ? ", bias " + describe(*bias) : std::string()) +
                " -> " + describe(*out) + " do not fit");
  return getBackend().linear(*input, *weight, bias, *out, accumulate != 0,
                             activation);
}

FuserStatus fuser_reduce_blocks(const FuserBuffer *input,
                                const FuserBuffer *out, FuserReduction kind) {
  if (input->rank < 1 || input->sizes[0] < 1)
    return fail("reduce_blocks: input " + describe(*input) +
                " has no leading dim of blocks to reduce");
  if (!checkBuffers("reduce_blocks", *input, *out, input->sizes[0], 1))
    return FUSER_FAILED;
  return getBackend().reduceBlocks(*input, *out, kind);
}

FuserStatus fuser_sdpa_forward(const FuserBuffer *query, const FuserBuffer *key,
                               const FuserBuffer *value, const FuserBuffer *out,
                               const FuserBuffer *logsumexp, double scale,
                               int32_t causal, double dropoutProbability,
                               int64_t seed, int64_t batchOffset,
                               int64_t headOffset) {
  if (!checkAttention("sdpa_forward", *query, *key, *value, *out, *logsumexp,
                      {}, scale, dropoutProbability))
    return FUSER_FAILED;
  return getBackend().sdpaForward(*query, *key, *value, *out, *logsumexp,
                                  {scale, causal != 0, dropoutProbability,
                                   seed, batchOffset, headOffset});
}

FuserStatus fuser_sdpa_backward(
    const FuserBuffer *query, const FuserBuffer *key, const FuserBuffer *value,
    const FuserBuffer *out, const FuserBuffer *gradOut,
    const FuserBuffer *logsumexp, const FuserBuffer *gradQuery,
    const FuserBuffer *gradKey, const FuserBuffer *gradValue, double scale,
    int32_t causal, double dropoutProbability, int64_t seed,
    int64_t batchOffset, int64_t headOffset) {
  if (!checkAttention("sdpa_backward", *query, *key, *value, *out, *logsumexp,
                      {{out, gradOut},
                       {query, gradQuery},
                       {key, gradKey},
                       {value, gradValue}},
                      scale, dropoutProbability))
    return FUSER_FAILED;
  return getBackend().sdpaBackward(*query, *key, *value, *out, *gradOut,
                                   *logsumexp, *gradQuery, *gradKey,
                                   *gradValue,
                                   {scale, causal != 0, dropoutProbability,
                                    seed, batchOffset, headOffset});
}

//--- GPU kernels -----------------------------------------------------------//

FuserStatus fuser_launch_kernel(const char *image, const char *kernel,
                                void **function, int64_t gridX, int64_t gridY,
                                int64_t gridZ, int64_t blockX, int64_t blockY,
                                int64_t blockZ, void **parameters) {
  if (!image || !kernel || !function)
    return fail("launch_kernel: the image, the kernel's name and its "
                "function slot must not be null");
  const int64_t grid[] = {gridX, gridY, gridZ};
  const int64_t block[] = {blockX, blockY, blockZ};
  if (!checkLaunchSizes(kernel, grid, block))
    return FUSER_FAILED;
  return getBackend().launchKernel(image, kernel, function, grid, block,
                                   parameters);
}

//--- CUDA IPC --------------------------------------------------------------//

FuserIpcHandles *fuser_ipc_share(FuserTeam *team, const FuserBuffer *buffer) {
  if (!checkMember("ipc_share", *team) ||
      !checkBuffers("ipc_share", *buffer, *buffer, 1, 1))
    return nullptr;
  return getBackend().ipcShare(*team, *buffer);
}

void *fuser_ipc_peer_pointer(FuserIpcHandles *handles, int64_t peer) {
  return getBackend().ipcPeerPointer(*handles, peer);
}

FuserStatus fuser_ipc_signal(FuserIpcHandles *handles, int64_t peer) {
  return getBackend().ipcSignal(*handles, peer);
}

FuserStatus fuser_ipc_wait(FuserIpcHandles *handles, int64_t peer) {
  return getBackend().ipcWait(*handles, peer);
}

} // extern "C"
