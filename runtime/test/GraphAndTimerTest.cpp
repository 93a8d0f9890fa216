//===- GraphAndTimerTest.cpp - graphs and timers on the host backend ------===//
//
// The host backend refuses to capture graphs (it runs work as it is
// issued) and times on the steady clock; the order of timer calls is
// checked for every backend. Graph replay itself is a GPU test
// (CudaGraphTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

void expectError(const std::string &expected) {
  EXPECT_NE(std::string(fuser_last_error()).find(expected), std::string::npos)
      << fuser_last_error();
}

TEST(Graphs, TheHostBackendRefusesToCapture) {
  ASSERT_EQ(fuser_current_backend(), FUSER_BACKEND_HOST);
  EXPECT_EQ(fuser_graph_begin_capture(), FUSER_FAILED);
  expectError("graph_begin_capture: CUDA graphs need the CUDA backend; the "
              "host backend (CPU ranks) runs every call as it is issued");
  EXPECT_EQ(fuser_graph_end_capture(), nullptr);
  expectError("graph_end_capture: CUDA graphs need the CUDA backend");
  // What a failed capture gives is no graph to replay.
  EXPECT_EQ(fuser_graph_launch(nullptr), FUSER_FAILED);
  expectError("graph_launch: no graph");
  fuser_graph_destroy(nullptr);
}

TEST(Timers, TheHostBackendTimesOnTheSteadyClock) {
  FuserTimer *timer = fuser_timer_create();
  ASSERT_NE(timer, nullptr) << fuser_last_error();
  ASSERT_EQ(fuser_timer_start(timer), FUSER_OK) << fuser_last_error();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_EQ(fuser_timer_stop(timer), FUSER_OK) << fuser_last_error();
  double microseconds = 0;
  ASSERT_EQ(fuser_timer_elapsed_us(timer, &microseconds), FUSER_OK)
      << fuser_last_error();
  EXPECT_GE(microseconds, 2000);
  EXPECT_LT(microseconds, 2e6);
  fuser_timer_destroy(timer);
}

TEST(Timers, CallsOutOfOrderAreReported) {
  FuserTimer *timer = fuser_timer_create();
  ASSERT_NE(timer, nullptr) << fuser_last_error();
  double microseconds = 0;
  EXPECT_EQ(fuser_timer_stop(timer), FUSER_FAILED);
  expectError("timer_stop: the timer was not started");
  EXPECT_EQ(fuser_timer_elapsed_us(timer, &microseconds), FUSER_FAILED);
  expectError("timer_elapsed_us: the timer was not started and then stopped");
  // A new start forgets the previous stop.
  ASSERT_EQ(fuser_timer_start(timer), FUSER_OK);
  ASSERT_EQ(fuser_timer_stop(timer), FUSER_OK);
  ASSERT_EQ(fuser_timer_start(timer), FUSER_OK);
  EXPECT_EQ(fuser_timer_elapsed_us(timer, &microseconds), FUSER_FAILED);
  fuser_timer_destroy(timer);
  EXPECT_EQ(fuser_timer_start(nullptr), FUSER_FAILED);
  expectError("timer_start: no timer");
}

} // namespace
