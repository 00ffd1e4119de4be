#pragma once
// Stage times on stderr when HPCALIGN_CUDA_TIMING is set (a tuning aid, off otherwise):
// mark(stage) books the time since the previous mark (or restart) to `stage`; a stage
// marked again accumulates, so one clock can sum the stages of many tiles.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace hpc {

// Seconds since t0 (the workloads' --verbose timings).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class StageClock {
 public:
  bool on() const { return on_; }
  void restart() { last_ = std::chrono::steady_clock::now(); }
  void mark(const char* stage) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    for (auto& s : stages_)
      if (s.first == stage) return void(s.second += ms);
    stages_.emplace_back(stage, ms);
  }
  void report(const char* what) const {
    if (!on_) return;
    std::string line;
    for (const auto& s : stages_) line += s.first + " " + std::to_string(s.second) + " ms  ";
    std::fprintf(stderr, "%s: %s\n", what, line.c_str());
  }

 private:
  bool on_ = std::getenv("HPCALIGN_CUDA_TIMING") != nullptr;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, double>> stages_;
};

}  // namespace hpc
