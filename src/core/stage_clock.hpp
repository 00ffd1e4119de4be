#pragma once
// Stage times on stderr when HPCALIGN_CUDA_TIMING is set (a tuning aid, off otherwise):
// mark(stage) books the time since the previous mark (or restart) to `stage`; a stage
// marked again accumulates, so one clock can sum the stages of many tiles.
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "src/core/tuning.hpp"

namespace hpc {

// Seconds since t0 (the workloads' --verbose timings).
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Seconds since this process started (Linux /proc, 10 ms resolution; -1 where unknown):
// --verbose uses it to show start-up before the first stage and, against the wall time,
// the exit after the last one.
inline double process_seconds() {
  double uptime = -1;
  if (std::FILE* f = std::fopen("/proc/uptime", "r")) {
    if (std::fscanf(f, "%lf", &uptime) != 1) uptime = -1;
    std::fclose(f);
  }
  char buf[1024] = {0};
  if (std::FILE* f = std::fopen("/proc/self/stat", "r")) {
    buf[std::fread(buf, 1, sizeof buf - 1, f)] = 0;
    std::fclose(f);
  }
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  if (uptime < 0 || !p) return -1;
  unsigned long long start = 0;  // field 22, the 20th after the name
  if (std::sscanf(p + 2, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                  &start) != 1)
    return -1;
  return uptime - double(start) / double(sysconf(_SC_CLK_TCK));
}

// Each stage's wall time, and beside it the CPU time of the thread that marks it (all of the
// stage's CPU where its work runs on that thread, e.g. a one-thread pool: the rest of a busy
// host's wall is waiting, for the GPU or for a core).
class StageClock {
 public:
  bool on() const { return on_; }
  void restart() {
    last_ = std::chrono::steady_clock::now();
    last_cpu_ = thread_cpu_ms();
  }
  void mark(const char* stage) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    const double cpu = thread_cpu_ms();
    last_ = now;
    const double cpu_ms = cpu - last_cpu_;
    last_cpu_ = cpu;
    for (Stage& s : stages_)
      if (s.name == stage) {
        s.ms += ms, s.cpu_ms += cpu_ms;
        return;
      }
    stages_.push_back({stage, ms, cpu_ms});
  }
  void report(const char* what) const {
    if (!on_) return;
    std::string line;
    for (const Stage& s : stages_)
      line += s.name + " " + std::to_string(s.ms) + " ms (cpu " + std::to_string(s.cpu_ms) + ")  ";
    std::fprintf(stderr, "%s: %s\n", what, line.c_str());
  }

 private:
  struct Stage {
    std::string name;
    double ms, cpu_ms;
  };
  static double thread_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
  }
  bool on_ = tuning_flag(Tunable::kCudaTiming);
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  double last_cpu_ = on_ ? thread_cpu_ms() : 0;
  std::vector<Stage> stages_;
};

}  // namespace hpc
