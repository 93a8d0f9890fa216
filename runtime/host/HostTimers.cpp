//===- HostTimers.cpp - timers of the host backend on the steady clock ---===//
//
// The host backend runs work as it is issued, so the time between two
// points of its (only) stream is the host's time between the two calls.
//
//===----------------------------------------------------------------------===//

#include "HostBackend.h"

#include <chrono>

using fuser::runtime::host::HostBackend;

namespace {
struct HostTimer final : FuserTimer {
  std::chrono::steady_clock::time_point startTime, stopTime;

  FuserStatus recordStart() override {
    startTime = std::chrono::steady_clock::now();
    return FUSER_OK;
  }
  FuserStatus recordStop() override {
    stopTime = std::chrono::steady_clock::now();
    return FUSER_OK;
  }
  FuserStatus measureMicroseconds(double &microseconds) override {
    microseconds =
        std::chrono::duration<double, std::micro>(stopTime - startTime).count();
    return FUSER_OK;
  }
};
} // namespace

FuserTimer *HostBackend::createTimer() { return new HostTimer(); }
