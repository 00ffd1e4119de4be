#pragma once
// process_seconds() at the steady clock's resolution, for the start-up's stamps
// (HPCALIGN_CUDA_TIMING), which are milliseconds apart where /proc counts in 10 ms steps.
#include <chrono>
#include <utility>

#include "src/core/stage_clock.hpp"

namespace hpc {

// The /proc reading taken once, then the steady clock's time since.
inline double process_seconds_fine() {
  static const std::pair<std::chrono::steady_clock::time_point, double> anchor{std::chrono::steady_clock::now(),
                                                                              process_seconds()};
  return anchor.second + seconds_since(anchor.first);
}

}  // namespace hpc
