/*===- Runtime.h - C ABI of the Fuser-MLIR runtime -----------------*- C -*-===*
 *
 * What compiled host programs call: the process context (bootstrapped
 * through MPI), teams of ranks, buffers, communications with work handles,
 * library calls and copies. Plain C, no MLIR: the runtime builds alone on
 * machines without LLVM. One ABI, two backends: `host` (host memory, MPI,
 * C++ library calls) and, where the runtime was built with the CUDA
 * toolkit and NCCL, `cuda` (device memory from a caching allocator, CUDA
 * streams, cuBLASLt, NCCL, CUDA IPC). Compiled programs select theirs on
 * entry (fuser_use_backend); see docs/runtime.md.
 *
 * Errors: a call that fails records a message (fuser_last_error) and
 * returns a failure status or null. A compiled program that sees one
 * returns at once (fuser_note_failure): its caller asks fuser_take_failure
 * after each call. fuser_fail prints a message and aborts every rank; the
 * runtime calls it only where going on would be unsafe (a collective that
 * timed out still owns its buffers).
 *
 *===----------------------------------------------------------------------===*/
#ifndef FUSER_RUNTIME_RUNTIME_H
#define FUSER_RUNTIME_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the calls compiled programs make, written into each
 * program library's metadata (its fuser-program format version): a library
 * built for another version is refused when it is loaded, not run with
 * mismatched arguments. Raised with every change to a call's arguments. */
#define FUSER_PROGRAM_ABI_VERSION 6

typedef enum FuserStatus { FUSER_OK = 0, FUSER_FAILED = 1 } FuserStatus;

/* Element types (the tensor element types of fuser programs). */
typedef enum FuserDType {
  FUSER_F32 = 0,
  FUSER_F16 = 1,
  FUSER_BF16 = 2,
  FUSER_F64 = 3,
  FUSER_I64 = 4,
  FUSER_I32 = 5,
  FUSER_I8 = 6,
  FUSER_I1 = 7
} FuserDType;

/* The element type's name in programs and their metadata ("bf16"). The
 * compiler and the runtime both spell names through it. */
static inline const char *fuser_dtype_name(FuserDType dtype) {
  switch (dtype) {
  case FUSER_F32:
    return "f32";
  case FUSER_F16:
    return "f16";
  case FUSER_BF16:
    return "bf16";
  case FUSER_F64:
    return "f64";
  case FUSER_I64:
    return "i64";
  case FUSER_I32:
    return "i32";
  case FUSER_I8:
    return "i8";
  case FUSER_I1:
    return "i1";
  }
  return "?";
}

/* How partial values combine (the values of fuser's ReductionKind). */
typedef enum FuserReduction {
  FUSER_SUM = 0,
  FUSER_PROD = 1,
  FUSER_MAX = 2,
  FUSER_MIN = 3,
  FUSER_AVG = 4
} FuserReduction;

/* What a matrix product applies to each element of its result (the values
 * of fuser's Activation), in its epilogue: gelu with the tanh
 * approximation, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), or
 * max(x, 0). */
typedef enum FuserActivation {
  FUSER_ACTIVATION_NONE = 0,
  FUSER_ACTIVATION_GELU_TANH = 1,
  FUSER_ACTIVATION_RELU = 2
} FuserActivation;

/* Where a buffer lives (the values of hostir's MemoryKind). The host
 * backend keeps every kind in host memory. */
typedef enum FuserMemory {
  FUSER_MEMORY_DEVICE = 0,
  FUSER_MEMORY_HOST = 1,
  /* Device memory of the same size on every rank of a team, shareable
   * through CUDA IPC. */
  FUSER_MEMORY_SYMMETRIC = 2
} FuserMemory;

/* What executes the calls of a program. */
typedef enum FuserBackend {
  FUSER_BACKEND_HOST = 0,
  FUSER_BACKEND_CUDA = 1
} FuserBackend;

/* A strided view of memory: the fields of an MLIR memref descriptor, plus
 * the element type. Element (i0, ..., in) is at
 * aligned + (offset + sum_k i_k * strides[k]) * element size. */
typedef struct FuserBuffer {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t rank;
  const int64_t *sizes;
  const int64_t *strides;
  FuserDType dtype;
} FuserBuffer;

/*--- Context -------------------------------------------------------------*/

/* Starts MPI (unless the caller did) and reads FUSER_TIMEOUT_S, the bound on
 * every wait in seconds (default 60). Safe to call more than once. */
FuserStatus fuser_init(int *argc, char ***argv);
/* Frees cached buffers and communicators and finalizes MPI if fuser_init
 * started it. */
void fuser_finalize(void);

/* A world started without MPI (processes that torchrun launched): this
 * process's rank, the number of ranks, and a key-value store every rank
 * reaches (torch.distributed's TCPStore), through which the ranks exchange
 * what setting up needs (their hosts, NCCL ids, CUDA IPC handles) and what
 * runners agree on. `set` stores `bytes` bytes under `key`; `get` waits up
 * to `timeoutSeconds` for `key` and copies its value, which must have
 * `bytes` bytes, into `value`. Both return FUSER_FAILED (after
 * fuser_set_error) on failure. GPU ranks communicate over NCCL and CUDA
 * IPC as they do under MPI; CPU ranks, whose communications are MPI's,
 * cannot (a team of several is refused). */
typedef struct FuserBootstrap {
  int64_t rank;
  int64_t worldSize;
  void *store;
  FuserStatus (*set)(void *store, const char *key, const void *value,
                     int64_t bytes);
  FuserStatus (*get)(void *store, const char *key, void *value, int64_t bytes,
                     double timeoutSeconds);
} FuserBootstrap;
/* fuser_init for a world started without MPI; the bootstrap's store is used
 * until fuser_finalize. */
FuserStatus fuser_init_with_bootstrap(const FuserBootstrap *bootstrap);
/* Whether the world was started without MPI (fuser_init_with_bootstrap). */
int32_t fuser_world_uses_store(void);
/* Records `message` as the last error (for bootstrap callbacks). */
void fuser_set_error(const char *message);
/* Every rank's `bytes` bytes from `mine`, in rank order, into `all`
 * (worldSize * bytes); `step` names it in a timeout's message. Collective
 * over the world, bounded by FUSER_TIMEOUT_S (`timeoutSeconds` when
 * positive). A timeout under MPI leaves a collective pending: the process
 * aborts with the reason, as going on would be unsafe. */
FuserStatus fuser_world_allgather(const void *mine, int64_t bytes, void *all,
                                  const char *step, double timeoutSeconds);
/* `bytes` bytes at `data` from `root` to every rank. Collective, bounded as
 * fuser_world_allgather. */
FuserStatus fuser_world_broadcast(void *data, int64_t bytes, int64_t root,
                                  const char *step);
/* Makes `backend` execute the calls that follow (the host backend until
 * then). Compiled programs call it on entry. The first use of the CUDA
 * backend is collective over MPI_COMM_WORLD (every rank runs the same
 * program); a start that failed is tried again on the next call. The CUDA backend starts on
 * first use: one GPU per rank, picked by the rank's index among the ranks
 * of its node (an MPI_COMM_TYPE_SHARED split) among the GPUs
 * CUDA_VISIBLE_DEVICES leaves visible. Fails when the runtime was built
 * without it or no GPU can be used. */
FuserStatus fuser_use_backend(FuserBackend backend);
FuserBackend fuser_current_backend(void);
/* Whether `backend` can run here (built in, and for cuda a GPU present). */
int32_t fuser_backend_available(FuserBackend backend);
/* Blocks the host until the work issued so far on the current stream has
 * completed, bounded by FUSER_TIMEOUT_S: a communication that never
 * completes (a peer that failed or never posts) aborts the backend's
 * communicators and fails, naming what it waited for. Immediate on the
 * host backend. */
FuserStatus fuser_synchronize(void);
int64_t fuser_rank(void);
int64_t fuser_world_size(void);
/* The nodes the ranks run on, learnt by fuser_init: ranks that share memory
 * (MPI_COMM_TYPE_SHARED) are one node, or with FUSER_RANKS_PER_NODE=k each
 * k consecutive ranks are a simulated node (each within one host; the CUDA
 * backend then gives NCCL a host id per node, so that it reaches the others
 * over its network transport). Nodes are numbered by their lowest rank;
 * fuser_node_of_rank is -1 for a rank outside the world. CUDA IPC reaches
 * only ranks of one node. */
int64_t fuser_node_count(void);
int64_t fuser_node_of_rank(int64_t rank);
/* The ranks of each node where every node is that many consecutive ranks
 * (the topology fuser-compile --ranks-per-node describes), else 0. */
int64_t fuser_ranks_per_node(void);
/* The message of the last failure of this process. */
const char *fuser_last_error(void);
/* Prints "fuser: rank R: <message>" and aborts all ranks. */
void fuser_fail(const char *message);
/* For callers that cannot go on after a failure (tools, tests): fail
 * (above) with the last error when `status` is a failure, or when
 * `pointer` is null (then returned). */
void fuser_check(FuserStatus status);
void *fuser_checked(void *pointer);
/* Called by a compiled program on the path that returns early because a
 * runtime call failed (the message is fuser_last_error's). */
void fuser_note_failure(void);
/* FUSER_FAILED when a program failed since the last call (its message in
 * fuser_last_error), else FUSER_OK; clears the note. Whoever calls a
 * program's entry point asks after each call: a failed program's results
 * are null descriptors. */
FuserStatus fuser_take_failure(void);
/* Fails unless the world has exactly `expected` ranks, naming both counts:
 * a program compiled for a mesh of N devices needs N ranks. */
FuserStatus fuser_expect_world_size(int64_t expected);
/* Fails unless a program's argument `argument` has the shape the program
 * was compiled for: "<program>: argument #1 has shape [128, 64] but the
 * program takes [256, 64]". Compiled programs check every argument on
 * entry. */
FuserStatus fuser_check_argument_shape(const char *program, int64_t argument,
                                       int64_t rank, const int64_t *actual,
                                       const int64_t *expected);

/*--- Teams -----------------------------------------------------------------*/

typedef struct FuserTeam FuserTeam;

/* The team of `rank` along `axes` of a mesh of `shape` whose device ids
 * (row-major) are `devices` (null: 0 .. N-1): the devices whose coordinates
 * equal the rank's outside `axes`, row-major over `axes`. Its communicator
 * is created on first use and cached. A rank outside the mesh gets the
 * empty team: its index is 0 (so views of blocks stay defined) and every
 * communication on it fails. Null (with an error) for a bad mesh. */
FuserTeam *fuser_team(int64_t rank, const int64_t *shape, int64_t meshRank,
                      const int64_t *devices, const int64_t *axes,
                      int64_t numAxes);
int64_t fuser_team_size(const FuserTeam *team);
/* The executing rank's position in the team. */
int64_t fuser_team_index(const FuserTeam *team);

/*--- Communications ------------------------------------------------------*/

typedef struct FuserWork FuserWork;

/* Each posts a communication on the team and returns its work handle, or
 * null with an error (wrong buffer sizes or types, buffers with gaps).
 * Buffers must be dense. Shapes follow fuser's collectives: allgather and
 * gather concatenate the members' inputs in team order; scatter and
 * reduce_scatter hand member i block i of the (reduced) input. */
FuserWork *fuser_allgather(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output);
FuserWork *fuser_allreduce(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, FuserReduction kind);
FuserWork *fuser_reduce_scatter(FuserTeam *team, const FuserBuffer *input,
                                const FuserBuffer *output,
                                FuserReduction kind);
FuserWork *fuser_reduce(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, FuserReduction kind,
                        int64_t root);
FuserWork *fuser_broadcast(FuserTeam *team, const FuserBuffer *input,
                           const FuserBuffer *output, int64_t root);
FuserWork *fuser_gather(FuserTeam *team, const FuserBuffer *input,
                        const FuserBuffer *output, int64_t root);
FuserWork *fuser_scatter(FuserTeam *team, const FuserBuffer *input,
                         const FuserBuffer *output, int64_t root);
FuserWork *fuser_all_to_all(FuserTeam *team, const FuserBuffer *input,
                            const FuserBuffer *output);
FuserWork *fuser_send(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer);
FuserWork *fuser_recv(FuserTeam *team, const FuserBuffer *buffer,
                      int64_t peer);
/* One handle for a group of sends and receives posted together. */
FuserWork *fuser_group(FuserWork *const *works, int64_t count);
/* Completes the work and frees the handle. Host backend: the host waits,
 * and fails (naming the operation and the team) when the work does not
 * complete within the timeout. CUDA backend: communications run on the
 * stream that was current when they were posted; the current stream waits
 * for them (an event), the host does not block. A null work (a post that
 * failed) fails with the post's error. */
FuserStatus fuser_wait(FuserWork *work);

/*--- Streams --------------------------------------------------------------*/

/* Ordered queues of device work. The host backend runs work in program
 * order, so its streams are handles without effect. On the CUDA backend
 * the pool holds 64 non-blocking streams, each created on first use and
 * kept (larger indices wrap around the pool);
 * synchronize_stream makes the current stream wait for an event recorded
 * on `stream` (the host does not block). */
typedef struct FuserStream FuserStream;
FuserStream *fuser_get_current_stream(void);
void fuser_set_current_stream(FuserStream *stream);
FuserStream *fuser_stream_from_pool(int64_t index);
void fuser_synchronize_stream(FuserStream *stream);
/* The caller's own stream (a cudaStream_t, e.g. PyTorch's current stream)
 * as a stream of the current backend, so that fuser_set_current_stream
 * makes programs run on it. Null (with an error) on the host backend. */
FuserStream *fuser_wrap_stream(void *nativeStream);

/*--- Graphs (CUDA backend only) --------------------------------------------*/

/* One execution of a program captured as a CUDA graph and replayed with one
 * launch, so that the host issues one call instead of every kernel, library
 * call and communication. A graph replays the device work of the execution
 * it captured: on the same buffers (the inputs it was given, the cached
 * buffers, and the buffers it allocated, which the graph keeps), with the
 * same kernels, communications and IPC signals. See docs/runtime.md. */
typedef struct FuserGraph FuserGraph;

/* Starts capturing the work issued on the current stream (stream capture,
 * cudaStreamCaptureModeThreadLocal), after waiting (bounded) for the work
 * issued so far. Streams join the capture by waiting for a captured stream
 * (fuser_synchronize_stream, fuser_wait), as the pipelined loops of
 * programs do; work issued on a stream that has not joined fails. Until
 * fuser_graph_end_capture, device allocations are buffers the graph will
 * own (cudaMalloc'd beside the capture; fuser_deallocate leaves them to
 * the graph), and whatever cannot be replayed fails naming the call: host
 * synchronization (fuser_synchronize, freeing host or symmetric memory),
 * symmetric or host allocations, freeing a buffer allocated before the
 * capture, and what is set up on first use (communicators, IPC shares,
 * cached buffers, cuBLASLt workspaces, kernel modules): run a program once
 * before capturing it. Fails on the host backend, which runs work as it
 * is issued and has nothing to replay. */
FuserStatus fuser_graph_begin_capture(void);
/* Ends the capture and instantiates the graph; null with an error when a
 * call made the capture fail, a stream never rejoined the captured stream,
 * or the graph holds memory allocation nodes. */
FuserGraph *fuser_graph_end_capture(void);
/* Replays the graph on the current stream (cudaGraphLaunch), after the
 * work issued there before, without waiting for it. Each replay writes the
 * same output buffers, which hold the last replay's values. IPC signals
 * and waits are renumbered for each replay, so that replays may follow one
 * another and executions that are not replayed. */
FuserStatus fuser_graph_launch(FuserGraph *graph);
/* Waits (bounded by FUSER_TIMEOUT_S) for the work issued so far, then
 * frees the graph and its buffers. Null is ignored. fuser_finalize frees
 * the graphs still alive (destroy them before, or not at all). */
void fuser_graph_destroy(FuserGraph *graph);

/*--- Timers ----------------------------------------------------------------*/

/* The time between two points of the current stream: CUDA events on the
 * CUDA backend (device time, so that asynchronous work is counted when it
 * runs, not when it is issued), the host's steady clock on the host
 * backend (which runs work as it is issued). A timer belongs to the backend
 * current when it was created; destroy it before fuser_finalize. */
typedef struct FuserTimer FuserTimer;
FuserTimer *fuser_timer_create(void);
/* Mark the start and the stop on the current stream; neither waits. */
FuserStatus fuser_timer_start(FuserTimer *timer);
FuserStatus fuser_timer_stop(FuserTimer *timer);
/* Microseconds from start to stop, once the work before the stop has
 * completed: the host waits, bounded by FUSER_TIMEOUT_S. Fails unless the
 * timer was started and then stopped. */
FuserStatus fuser_timer_elapsed_us(FuserTimer *timer, double *microseconds);
void fuser_timer_destroy(FuserTimer *timer);

/*--- Buffers and library calls --------------------------------------------*/

/* Memory of `bytes` of the given kind (zeroed when asked), aligned for any
 * element and for 16-byte vector accesses. The CUDA backend serves device
 * memory from a stream-ordered pool (allocation and release are ordered on
 * the current stream) and symmetric memory from buffers it keeps for
 * reuse, so that a steady-state execution calls no cudaMalloc/cudaFree. */
void *fuser_allocate(int64_t bytes, FuserMemory memory, int32_t zeroed);
void fuser_deallocate(void *memory);
/* The buffer named `name` of `bytes`, allocated on first use and kept
 * until fuser_finalize; asking again with another size fails. */
void *fuser_cached_buffer(const char *name, int64_t bytes, FuserMemory memory);
/* Number of cached buffers of the current backend. */
int64_t fuser_cached_buffer_count(void);
/* How many times the current backend obtained memory from the device
 * (cudaMalloc, or growth of the caching allocator's pool); 0 on the host
 * backend. Steady-state executions leave it unchanged. */
int64_t fuser_device_allocation_count(void);
/* The most bytes of device memory the current backend held at once in
 * live buffers (the program's, its caller's and the cached ones, the
 * libraries' workspaces); 0 on the host backend. A buffer counts from its
 * allocation to its release, as PyTorch's max_memory_allocated counts. */
int64_t fuser_device_memory_peak_bytes(void);
/* The CUDA device ordinal of the GPU the current backend runs on (the one
 * fuser_use_backend picked for this rank), or -1 on the host backend: a
 * caller handing the runtime its own device memory checks it is there. */
int32_t fuser_device_index(void);
/* The model of the device the current backend computes on: the GPU's name
 * as CUDA gives it ("NVIDIA H200"), or "cpu" on the host backend. What a
 * calibration of the machine (fuser-calibrate) is keyed by. */
const char *fuser_device_name(void);

/* An element as a double and back (f16 and bf16 rounded to nearest even),
 * for hosts that fill or read buffers of any element type. */
double fuser_load_element(const void *address, FuserDType dtype);
void fuser_store_element(void *address, FuserDType dtype, double value);
/* Bytes of one element. */
int64_t fuser_element_size(FuserDType dtype);

/* Copies between buffers of the same shape and element type, any strides.
 * On the CUDA backend: asynchronous on the current stream through the copy
 * engine, between any memory the rank can address (device, host, a peer's
 * buffer opened through IPC); the innermost dim must be contiguous on both
 * sides (a transposing copy is a kernel's work, and fails). */
FuserStatus fuser_copy(const FuserBuffer *source, const FuserBuffer *target);
/* out[..., i, j] = sum_k lhs[..., i, k] * rhs[..., k, j], batch dims
 * matched, or a matrix rhs [k, j] shared by every batch entry; accumulates
 * in f32 (f64 for f64). With `accumulate` nonzero the product is added to
 * what out holds (out += ...), as a ring reduce-scatter adds the partial
 * blocks it received to the rank's own. `activation` applies to each
 * element last: out = activation(lhs x rhs (+ out)), computed before the
 * result is rounded to out's element type. Activations need a
 * floating-point element type. */
FuserStatus fuser_matmul(const FuserBuffer *lhs, const FuserBuffer *rhs,
                         const FuserBuffer *out, int32_t accumulate,
                         FuserActivation activation);
/* out[..., n] = sum_k input[..., k] * weight[n, k] + bias[n] (bias may be
 * null; a weight of rank 1 gives out[...] = sum_k input[..., k] * weight[k]
 * + bias); `accumulate` and `activation` as for fuser_matmul (the
 * activation applies after the bias). */
FuserStatus fuser_linear(const FuserBuffer *input, const FuserBuffer *weight,
                         const FuserBuffer *bias, const FuserBuffer *out,
                         int32_t accumulate, FuserActivation activation);
/* out = the reduction over the leading dim of input [n, ...] (what a ring
 * reduce_scatter does with the partial blocks it received): out holds one
 * block's elements; both dense, one element type; sums accumulate in f32
 * for 16-bit floats. */
FuserStatus fuser_reduce_blocks(const FuserBuffer *input,
                                const FuserBuffer *out, FuserReduction kind);

/* Fused scaled dot-product attention, as PyTorch's
 * scaled_dot_product_attention: query [b, h, sq, d], key and value
 * [b, h, skv, d], out [b, h, sq, d], any strides, one floating-point
 * element type. S = scale * query key^T; with `causal` nonzero query i sees
 * keys j <= i (the top-left diagonal); P = softmax(S) per row, and
 * logsumexp (f32 [b, h, sq]) = log sum_j exp(S_ij) over the keys it sees,
 * before dropout. With dropoutProbability p > 0 each P_ij is kept, scaled
 * by 1 / (1 - p), or dropped; out = P V. Accumulates in f32 (f64 for f64).
 * The host backend drops P_ij where the compiler's
 * `fuser.uniform low = 0.0, high = 1.0, seed = seed` over the global
 * [B, H, SQ, SKV] tensor draws below p at (batchOffset + b,
 * headOffset + h, i, j): the offsets say where a rank's piece of the batch
 * and heads starts, so that sharded ranks drop what the unsharded run
 * drops. The CUDA backend (cuDNN's fused attention, f16 and bf16) draws
 * its mask from cuDNN's Philox generator instead, seeded from the seed and
 * the offsets: the same for equal arguments, another for each piece, but
 * not the host's. */
FuserStatus fuser_sdpa_forward(const FuserBuffer *query, const FuserBuffer *key,
                               const FuserBuffer *value, const FuserBuffer *out,
                               const FuserBuffer *logsumexp, double scale,
                               int32_t causal, double dropoutProbability,
                               int64_t seed, int64_t batchOffset,
                               int64_t headOffset);
/* The gradients of fuser_sdpa_forward for the upstream gradient gradOut
 * (out's shape): gradQuery, gradKey and gradValue have the shapes of
 * query, key and value. `out` and `logsumexp` are what the forward call
 * returned; scale, causal, the dropout and the offsets must be the ones it
 * was given (the mask is drawn again). */
FuserStatus fuser_sdpa_backward(
    const FuserBuffer *query, const FuserBuffer *key, const FuserBuffer *value,
    const FuserBuffer *out, const FuserBuffer *gradOut,
    const FuserBuffer *logsumexp, const FuserBuffer *gradQuery,
    const FuserBuffer *gradKey, const FuserBuffer *gradValue, double scale,
    int32_t causal, double dropoutProbability, int64_t seed,
    int64_t batchOffset, int64_t headOffset);

/*--- GPU kernels (CUDA backend only) ---------------------------------------*/

/* Launches `kernel`, an entry of the module `image` the program embeds
 * (PTX text, NUL-terminated; the driver also takes a cubin or a
 * fatbinary), asynchronously on the current stream: a grid of
 * gridX x gridY x gridZ blocks of blockX x blockY x blockZ threads.
 * Every size is positive; a grid has at most 2^31 - 1 x 65535 x 65535
 * blocks, a block at most 1024 x 1024 x 64 threads and 1024 in all.
 * `parameters` holds one pointer per kernel parameter to its value, as
 * cuLaunchKernel takes them (compiled programs pass each memref as one
 * pointer to its first element, indices as i64, scalars as themselves).
 * `*function` is the program's cache slot for the kernel, null before its
 * first launch: the first launch loads the image (once per process,
 * whichever kernel of it comes first; thread-safe), looks the kernel up
 * and stores it there, so that later launches only launch.
 * fuser_finalize unloads the modules and clears the slots it filled (the
 * program must stay loaded until then). Fails naming the kernel: an image
 * that does not load (with the JIT compiler's error log), a kernel the
 * image does not have, sizes out of bounds, a launch the driver refuses,
 * and on the host backend (a GPU kernel cannot run on CPU ranks). Errors
 * of the kernel's execution surface at a later synchronization. */
FuserStatus fuser_launch_kernel(const char *image, const char *kernel,
                                void **function, int64_t gridX, int64_t gridY,
                                int64_t gridZ, int64_t blockX, int64_t blockY,
                                int64_t blockZ, void **parameters);

/*--- CUDA IPC (CUDA backend only) -----------------------------------------*/

/* A buffer's IPC handles exchanged across a team, with one semaphore per
 * ordered pair of members. */
typedef struct FuserIpcHandles FuserIpcHandles;

/* Collective over `team`: exports the buffer (which must be symmetric or
 * cached memory) and a semaphore array, and opens every peer's. Done once
 * per buffer and team: asking again returns the same handles, without
 * exporting or opening anything, for as long as the buffer lives. */
FuserIpcHandles *fuser_ipc_share(FuserTeam *team, const FuserBuffer *buffer);
/* The address in this process of team member `peer`'s buffer (the aligned
 * pointer of its descriptor). */
void *fuser_ipc_peer_pointer(FuserIpcHandles *handles, int64_t peer);
/* Stream-ordered on the current stream, no host synchronization: signal
 * tells member `peer` that this rank's data is ready (or that it is done
 * reading); wait makes the current stream wait for the next signal of
 * `peer` (signals count: the n-th wait completes after the n-th signal). */
FuserStatus fuser_ipc_signal(FuserIpcHandles *handles, int64_t peer);
FuserStatus fuser_ipc_wait(FuserIpcHandles *handles, int64_t peer);

#ifdef __cplusplus
}
#endif

#endif /* FUSER_RUNTIME_RUNTIME_H */
