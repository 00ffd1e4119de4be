#pragma once
// HPCALIGN_CUDA_TIMING's GPU side: spans of a stream's work between two events, recorded
// without a sync (a sync after each kernel would change how the workers' kernels overlap,
// which is what the timeline is for). At the end every span is printed with its start and
// end in ms after the device's first span of the process, so the spans of all workers on a
// device line up; then the sums per kind.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hpc::cuda {

class GpuTimeline {
 public:
  GpuTimeline(bool on, int device) : on_(on), device_(device), id_(next_id()) {}
  GpuTimeline(const GpuTimeline&) = delete;
  GpuTimeline& operator=(const GpuTimeline&) = delete;
  ~GpuTimeline() {
    for (Span& s : spans_) cudaEventDestroy(s.begin), cudaEventDestroy(s.end);
  }

  void begin(const char* what, cudaStream_t stream) {
    if (!on_) return;
    Span s{what, nullptr, nullptr};
    reference();
    cudaEventCreate(&s.begin);
    cudaEventCreate(&s.end);
    cudaEventRecord(s.begin, stream);
    spans_.push_back(s);
  }
  void end(cudaStream_t stream) {
    if (on_ && !spans_.empty()) cudaEventRecord(spans_.back().end, stream);
  }

  // "gpu span d<device>.<timeline> <what> <start ms> <end ms>" per span (bench/gpu_timeline.py
  // reads them), then the sums per kind.
  void report() const {
    if (!on_ || spans_.empty()) return;
    const std::string who = "d" + std::to_string(device_) + "." + std::to_string(id_);
    std::map<std::string, double> sums;
    std::string lines;
    for (const Span& s : spans_) {
      float t0 = 0, t1 = 0;
      cudaEventSynchronize(s.end);
      cudaEventElapsedTime(&t0, reference(), s.begin);
      cudaEventElapsedTime(&t1, reference(), s.end);
      sums[s.what] += t1 - t0;
      char line[160];
      std::snprintf(line, sizeof line, "gpu span %s %s %.3f %.3f\n", who.c_str(), s.what, t0, t1);
      lines += line;
    }
    std::string sum;
    for (const auto& [what, ms] : sums) sum += what + " " + std::to_string(ms) + " ms  ";
    std::fprintf(stderr, "%s%s gpu (summed): %s\n", lines.c_str(), who.c_str(), sum.c_str());
  }

 private:
  struct Span {
    const char* what;
    cudaEvent_t begin, end;
  };
  // The device's reference event, recorded at its first span.
  cudaEvent_t reference() const {
    static std::mutex mutex;
    static std::map<int, cudaEvent_t> refs;
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, fresh] = refs.try_emplace(device_, nullptr);
    if (fresh) {
      cudaEventCreate(&it->second);
      cudaEventRecord(it->second, nullptr);
    }
    return it->second;
  }

  static int next_id() {
    static std::atomic<int> next{0};
    return next++;
  }

  bool on_;
  int device_, id_;
  std::vector<Span> spans_;
};

}  // namespace hpc::cuda
