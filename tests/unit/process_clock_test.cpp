#include "src/core/process_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace hpc {
namespace {

// The fine clock follows /proc's reading (10 ms steps) and the steady clock between readings:
// it never goes back, and a 20 ms sleep shows as at least 20 ms (not 10, as a /proc step may).
// No upper bound on the sleep: a loaded machine may oversleep by any amount.
TEST(ProcessClock, FineSecondsFollowTheProcessClockAtSteadyResolution) {
  const double coarse = process_seconds();
  ASSERT_GE(coarse, 0.0);
  const double a = process_seconds_fine();
  EXPECT_NEAR(a, coarse, 0.05);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double b = process_seconds_fine();
  EXPECT_GE(b - a, 0.020);
  EXPECT_NEAR(process_seconds_fine(), process_seconds(), 0.05);
  EXPECT_GE(process_seconds_fine(), b);
}

}  // namespace
}  // namespace hpc
