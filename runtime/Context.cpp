//===- Context.cpp - process context, errors and timeouts ----------------===//

#include "Backend.h"
#include "Internal.h"
#include "Topology.h"
#include "World.h"
#include "host/HostBackend.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

using namespace fuser::runtime;

namespace {
/// The least time MPI_Init is given unless FUSER_STARTUP_TIMEOUT_S says
/// otherwise: a job's ranks start within seconds on an idle machine but
/// may take far longer on a loaded one or a large cluster, where a bound
/// meant for one communication would end a healthy job.
constexpr double kStartupSeconds = 60.0;

struct Context {
  bool initialized = false;
  /// Whether fuser_init started MPI (and so finalizes it).
  bool startedMpi = false;
  double timeoutSeconds = 60.0;
  /// MPI_Init's bound: FUSER_STARTUP_TIMEOUT_S, or the larger of
  /// FUSER_TIMEOUT_S and kStartupSeconds.
  double startupSeconds = kStartupSeconds;
  std::string lastError;
  /// Whether a compiled program returned early since the last
  /// fuser_take_failure.
  bool programFailed = false;
  host::HostBackend hostBackend;
  /// Started on first use.
  std::unique_ptr<Backend> cudaBackend;
  Backend *current = &hostBackend;
};

Context &getContext() {
  static Context context;
  return context;
}

/// This process's rank as the launcher gives it, before MPI can say.
const char *launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char *rank = std::getenv(name))
      return rank;
  return "?";
}

/// Runs `start` (MPI_Init and what every rank learns from the others at
/// start), bounded like every other wait on the other ranks. MPI_Init waits
/// for every rank of the job to join; where one died before joining and the
/// launcher lets the job go on (mpirun --enable-recovery), it never returns.
/// A thread blocked in MPI cannot be given an error to return, so past the
/// bound the process ends with a message naming the problem.
template <typename Start> FuserStatus startWithin(double seconds, Start start) {
  std::mutex mutex;
  std::condition_variable joined;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (joined.wait_for(lock, std::chrono::duration<double>(seconds),
                        [&] { return done; }))
      return;
    std::fprintf(stderr,
                 "fuser: rank %s: MPI_Init did not complete within %g s "
                 "(FUSER_STARTUP_TIMEOUT_S): a rank of the job failed or never "
                 "started\n",
                 launcherRank(), seconds);
    std::fflush(stderr);
    std::_Exit(1);
  });
  FuserStatus status = start();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  joined.notify_one();
  watchdog.join();
  return status;
}
} // namespace

FuserStatus fuser::runtime::fail(std::string message) {
  getContext().lastError = std::move(message);
  return FUSER_FAILED;
}

namespace {
/// Reads the environment variable `name`, when set, into `seconds`; false
/// (the error set) when it is not a positive number.
bool readSeconds(const char *name, double &seconds) {
  const char *text = std::getenv(name);
  if (!text)
    return true;
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value > 0)) {
    fail(std::string(name) + " must be a positive number of seconds, got '" +
         text + "'");
    return false;
  }
  seconds = value;
  return true;
}
} // namespace

double fuser::runtime::getTimeoutSeconds() {
  return getContext().timeoutSeconds;
}

std::string fuser::runtime::describeTimeout() {
  char text[64];
  std::snprintf(text, sizeof(text), "%g s (FUSER_TIMEOUT_S)",
                getTimeoutSeconds());
  return text;
}

Backend &fuser::runtime::getBackend() { return *getContext().current; }

Backend *fuser::runtime::getCudaBackend() {
  Context &context = getContext();
  if (!context.cudaBackend)
    context.cudaBackend = createCudaBackend();
  return context.cudaBackend.get();
}

extern "C" {

FuserStatus fuser_init(int *argc, char ***argv) {
  Context &context = getContext();
  if (context.initialized)
    return FUSER_OK;
  // Read first: they bound MPI_Init.
  if (!readSeconds("FUSER_TIMEOUT_S", context.timeoutSeconds))
    return FUSER_FAILED;
  context.startupSeconds = std::max(context.timeoutSeconds, kStartupSeconds);
  if (!readSeconds("FUSER_STARTUP_TIMEOUT_S", context.startupSeconds))
    return FUSER_FAILED;
  FuserStatus started = startWithin(context.startupSeconds, [&] {
    int running = 0;
    MPI_Initialized(&running);
    if (!running) {
      if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return fail("MPI_Init failed");
      context.startedMpi = true;
    }
    // Failures are reported as messages, not by MPI aborting on its own.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    // Every rank reads the same topology and fails alike: they end MPI
    // together rather than leave the launcher to report ranks that quit.
    FuserStatus learnt = learnTopology();
    if (learnt != FUSER_OK && context.startedMpi) {
      MPI_Finalize();
      context.startedMpi = false;
    }
    return learnt;
  });
  if (started != FUSER_OK)
    return started;
  context.initialized = true;
  return FUSER_OK;
}

FuserStatus fuser_init_with_bootstrap(const FuserBootstrap *bootstrap) {
  Context &context = getContext();
  if (context.initialized)
    return FUSER_OK;
  if (!readSeconds("FUSER_TIMEOUT_S", context.timeoutSeconds))
    return FUSER_FAILED;
  if (!bootstrap || !bootstrap->set || !bootstrap->get ||
      bootstrap->worldSize < 1 || bootstrap->rank < 0 ||
      bootstrap->rank >= bootstrap->worldSize)
    return fail("fuser_init_with_bootstrap: a bootstrap gives a rank below "
                "a positive world size, and the store's set and get");
  startStoreWorld(*bootstrap);
  if (FuserStatus learnt = learnTopology()) {
    stopStoreWorld();
    return learnt;
  }
  context.initialized = true;
  return FUSER_OK;
}

void fuser_finalize(void) {
  Context &context = getContext();
  if (!context.initialized)
    return;
  // Device work and communicators first: they use the teams and buffers.
  if (context.cudaBackend)
    context.cudaBackend->release();
  context.cudaBackend.reset();
  context.hostBackend.release();
  context.current = &context.hostBackend;
  releaseTeams();
  leaveStoreWorld();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (context.startedMpi && !finalized)
    MPI_Finalize();
  context.initialized = false;
}

FuserStatus fuser_use_backend(FuserBackend backend) {
  Context &context = getContext();
  switch (backend) {
  case FUSER_BACKEND_HOST:
    context.current = &context.hostBackend;
    return FUSER_OK;
  case FUSER_BACKEND_CUDA:
    if (Backend *cuda = getCudaBackend()) {
      context.current = cuda;
      return FUSER_OK;
    }
    return FUSER_FAILED;
  }
  return fail("unknown backend " + std::to_string(static_cast<int>(backend)));
}

FuserBackend fuser_current_backend(void) {
  Context &context = getContext();
  return context.current == &context.hostBackend ? FUSER_BACKEND_HOST
                                                 : FUSER_BACKEND_CUDA;
}

int32_t fuser_backend_available(FuserBackend backend) {
  if (backend == FUSER_BACKEND_HOST)
    return 1;
  if (backend != FUSER_BACKEND_CUDA)
    return 0;
  // Asking must not change the last error a caller may still read.
  std::string error = getContext().lastError;
  bool available = getCudaBackend() != nullptr;
  getContext().lastError = error;
  return available;
}

int64_t fuser_rank(void) { return getWorldRank(); }

int64_t fuser_world_size(void) { return getWorldSize(); }

const char *fuser_last_error(void) { return getContext().lastError.c_str(); }

void fuser_fail(const char *message) {
  std::fprintf(stderr, "fuser: rank %lld: %s\n",
               static_cast<long long>(fuser_rank()), message);
  std::fflush(stderr);
  // Without MPI, the other ranks' waits on the store end on their own.
  int running = 0;
  MPI_Initialized(&running);
  if (running)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void fuser_note_failure(void) { getContext().programFailed = true; }

FuserStatus fuser_take_failure(void) {
  Context &context = getContext();
  bool failed = context.programFailed;
  context.programFailed = false;
  return failed ? FUSER_FAILED : FUSER_OK;
}

void fuser_check(FuserStatus status) {
  if (status != FUSER_OK)
    fuser_fail(fuser_last_error());
}

void *fuser_checked(void *pointer) {
  if (!pointer)
    fuser_fail(fuser_last_error());
  return pointer;
}

FuserStatus fuser_check_argument_shape(const char *program, int64_t argument,
                                       int64_t rank, const int64_t *actual,
                                       const int64_t *expected) {
  if (std::equal(actual, actual + rank, expected))
    return FUSER_OK;
  auto shape = [&](const int64_t *sizes) {
    std::string text = "[";
    for (int64_t dim = 0; dim < rank; ++dim)
      text += (dim ? ", " : "") + std::to_string(sizes[dim]);
    return text + "]";
  };
  return fail(std::string(program) + ": argument #" + std::to_string(argument) +
              " has shape " + shape(actual) + " but the program takes " +
              shape(expected));
}

FuserStatus fuser_expect_world_size(int64_t expected) {
  int64_t actual = fuser_world_size();
  if (actual == expected)
    return FUSER_OK;
  return fail("the program runs on " + std::to_string(expected) +
              " ranks but the world has " + std::to_string(actual) +
              " (start it with mpirun -np " + std::to_string(expected) + ")");
}

} // extern "C"
