//===- Measurements.cpp - timing the runtime's calls on this machine ------===//

#include "Measurements.h"

#include "BoundedCollectives.h"

#include <algorithm>
#include <random>

using namespace fuser;
using namespace fuser::calibrate;

namespace {
/// The elements of the host block a tensor is filled from, copied into it
/// as often as it takes: random enough for the GEMMs' power draw, cheap to
/// make for gigabytes.
constexpr int64_t kFillElements = int64_t(1) << 22;

std::vector<int64_t> getRowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t dim = shape.size(); dim-- > 1;)
    strides[dim - 1] = strides[dim] * shape[dim];
  return strides;
}

int64_t getElements(const std::vector<int64_t> &shape) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return elements;
}

FuserBuffer describe(void *memory, const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides, FuserDType dtype) {
  return {memory,       memory,         0,    int64_t(shape.size()),
          shape.data(), strides.data(), dtype};
}

/// Copies values in [-1, 1) into the `elements` of `memory`, a block at a
/// time; false with the runtime's error.
bool fillUniform(void *memory, int64_t elements, FuserDType dtype) {
  int64_t block = std::min(elements, kFillElements);
  int64_t elementBytes = fuser_element_size(dtype);
  void *host = fuser_allocate(block * elementBytes, FUSER_MEMORY_HOST, 0);
  if (!host)
    return false;
  std::mt19937_64 generator(0x5eed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int64_t index = 0; index < block; ++index)
    fuser_store_element(static_cast<char *>(host) + index * elementBytes, dtype,
                        uniform(generator));
  bool filled = true;
  for (int64_t start = 0; filled && start < elements; start += block) {
    int64_t size = std::min(block, elements - start), stride = 1;
    FuserBuffer source = {host, host, 0, 1, &size, &stride, dtype};
    FuserBuffer target = {memory, memory, start, 1, &size, &stride, dtype};
    filled = fuser_copy(&source, &target) == FUSER_OK;
  }
  // The copies read the host block until they are done.
  filled = fuser_synchronize() == FUSER_OK && filled;
  fuser_deallocate(host);
  return filled;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// The slowest rank's `seconds`, on every rank.
double slowest(double seconds) {
  double reduced = seconds;
  boundedReduce(&seconds, &reduced, 1, MPI_MAX, "agreeing on a time");
  boundedBroadcast(&reduced, sizeof(reduced), 0, "agreeing on a time");
  return reduced;
}

/// Times what `issue` puts on the current stream, once.
bool timeOnce(const Work &issue, FuserTimer *timer, double &seconds) {
  double microseconds = 0;
  if (fuser_timer_start(timer) != FUSER_OK || !issue() ||
      fuser_timer_stop(timer) != FUSER_OK ||
      fuser_timer_elapsed_us(timer, &microseconds) != FUSER_OK)
    return false;
  seconds = microseconds * 1e-6;
  return true;
}

} // namespace

Tensor::Tensor(std::vector<int64_t> shape, FuserDType dtype, FuserMemory kind)
    : shape(std::move(shape)) {
  strides = getRowMajorStrides(this->shape);
  int64_t elements = getElements(this->shape);
  memory = fuser_allocate(elements * fuser_element_size(dtype), kind, 0);
  descriptor = describe(memory, this->shape, strides, dtype);
  if (memory && !fillUniform(memory, elements, dtype)) {
    fuser_deallocate(memory);
    memory = nullptr;
  }
}

Tensor::~Tensor() {
  if (memory)
    fuser_deallocate(memory);
}

int64_t Tensor::bytes() const {
  return getElements(shape) * fuser_element_size(descriptor.dtype);
}

FuserBuffer Tensor::at(void *address) const {
  return describe(address, shape, strides, descriptor.dtype);
}

double fuser::calibrate::timeWork(const Work &issue, int warmups,
                                  int repetitions) {
  FuserTimer *timer = fuser_timer_create();
  std::vector<double> times;
  bool timed = timer != nullptr;
  // A rank that failed still takes part in every barrier and agreement,
  // so that no rank waits for one that gave up.
  for (int repetition = 0; repetition < warmups + repetitions; ++repetition) {
    timed = timed && fuser_synchronize() == FUSER_OK;
    boundedBarrier("starting a measurement together");
    double once = 0;
    timed = timed && timeOnce(issue, timer, once);
    if (repetition >= warmups)
      times.push_back(once);
  }
  if (timer)
    fuser_timer_destroy(timer);
  exitOnAnyRankError(timed ? "" : fuser_last_error());
  return slowest(median(times));
}

double fuser::calibrate::timeTogether(const Work &first, const Work &second,
                                      int repetitions) {
  Work both = [&] {
    FuserStream *main = fuser_get_current_stream();
    bool issued = true;
    int64_t index = 0;
    for (const Work *work : {&first, &second}) {
      FuserStream *stream = fuser_stream_from_pool(index++);
      fuser_set_current_stream(stream);
      fuser_synchronize_stream(main);
      issued = issued && (*work)();
    }
    fuser_set_current_stream(main);
    for (index = 0; index < 2; ++index)
      fuser_synchronize_stream(fuser_stream_from_pool(index));
    return issued;
  };
  return timeWork(both, /*warmups=*/1, repetitions);
}

Gemm::Gemm(int64_t m, int64_t n, int64_t k, FuserDType dtype)
    : m(m), n(n), k(k), lhs({m, k}, dtype), rhs({k, n}, dtype),
      out({m, n}, dtype) {}

Work Gemm::work(int64_t times) const {
  return [this, times] {
    for (int64_t call = 0; call < times; ++call)
      if (fuser_matmul(&lhs.buffer(), &rhs.buffer(), &out.buffer(),
                       /*accumulate=*/0, FUSER_ACTIVATION_NONE) != FUSER_OK)
        return false;
    return true;
  };
}

Allgather::Allgather(FuserTeam *team, int64_t elements, FuserDType dtype)
    : team(team), input({elements}, dtype),
      output({fuser_team_size(team) * elements}, dtype) {}

double Allgather::receivedBytes() const {
  return double(fuser_team_size(team) - 1) * double(input.bytes());
}

Work Allgather::work() const {
  return [this] {
    return fuser_wait(fuser_allgather(team, &input.buffer(),
                                      &output.buffer())) == FUSER_OK;
  };
}

IpcPull::IpcPull(FuserTeam *team, int64_t elements, FuserDType dtype)
    : team(team), source({elements}, dtype, FUSER_MEMORY_SYMMETRIC),
      target({elements}, dtype) {}

bool IpcPull::share() {
  if (!source.valid() || !target.valid())
    return false;
  handles = fuser_ipc_share(team, &source.buffer());
  return handles != nullptr;
}

Work IpcPull::work() const {
  return [this] {
    int64_t next = (fuser_team_index(team) + 1) % fuser_team_size(team);
    FuserBuffer peer = source.at(fuser_ipc_peer_pointer(handles, next));
    return fuser_copy(&peer, &target.buffer()) == FUSER_OK;
  };
}
