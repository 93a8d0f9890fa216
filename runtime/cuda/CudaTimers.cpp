//===- CudaTimers.cpp - device time between two points of a stream -------===//
//
// Two CUDA events recorded on the current stream: their elapsed time is
// the device's, so asynchronous work counts when it runs, not when the host
// issues it. Reading it waits for the stop, bounded like fuser_synchronize.
//
//===----------------------------------------------------------------------===//

#include "CudaBackend.h"
#include "../Internal.h"

using namespace fuser::runtime;
using namespace fuser::runtime::cuda;

namespace {
struct CudaTimer final : FuserTimer {
  CudaBackend &backend;
  cudaEvent_t startEvent = nullptr, stopEvent = nullptr;

  explicit CudaTimer(CudaBackend &backend) : backend(backend) {}
  ~CudaTimer() override {
    for (cudaEvent_t event : {startEvent, stopEvent})
      if (event)
        cudaEventDestroy(event);
  }

  FuserStatus recordStart() override {
    return checkCuda(cudaEventRecord(startEvent, backend.getStream()),
                     "timer_start", "cudaEventRecord");
  }
  FuserStatus recordStop() override {
    return checkCuda(cudaEventRecord(stopEvent, backend.getStream()),
                     "timer_stop", "cudaEventRecord");
  }
  FuserStatus measureMicroseconds(double &microseconds) override {
    const char *op = "timer_elapsed_us";
    cudaEvent_t stop = stopEvent;
    float milliseconds = 0;
    if (backend.awaitCompletion([stop] { return cudaEventQuery(stop); }, op,
                                "cudaEventQuery") ||
        checkCuda(cudaEventElapsedTime(&milliseconds, startEvent, stopEvent),
                  op, "cudaEventElapsedTime"))
      return FUSER_FAILED;
    microseconds = milliseconds * 1e3;
    return FUSER_OK;
  }
};
} // namespace

FuserTimer *CudaBackend::createTimer() {
  auto timer = std::make_unique<CudaTimer>(*this);
  // Timing events (the backend's own events are created without timing).
  for (cudaEvent_t *event : {&timer->startEvent, &timer->stopEvent})
    if (checkCuda(cudaEventCreateWithFlags(event, cudaEventDefault),
                  "timer_create", "cudaEventCreateWithFlags"))
      return nullptr;
  return timer.release();
}
