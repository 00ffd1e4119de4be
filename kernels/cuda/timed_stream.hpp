#pragma once
// A filter engine's stream (MSV, Viterbi) with the events its host times and waits on. The
// results' copy is waited for asleep on a blocking event first: a copy to pageable memory
// waits spinning, and hmmsearch's 16 workers a GPU need those cores for their host stages.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/cuda_check.hpp"

namespace hpc::cuda {

class TimedStream {
 public:
  explicit TimedStream(int device) : device_(device) {
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&start_));
    CUDA_CHECK(cudaEventCreate(&stop_));
    CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventBlockingSync | cudaEventDisableTiming));
  }
  ~TimedStream() {
    cudaSetDevice(device_);  // no throw from a destructor
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (done_) cudaEventDestroy(done_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  TimedStream(const TimedStream&) = delete;
  TimedStream& operator=(const TimedStream&) = delete;

  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }
  // Around the kernels whose time kernel_seconds() sums.
  void kernels_begin() { CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  void kernels_end() { CUDA_CHECK(cudaEventRecord(stop_, stream_)); }
  // Waits asleep for the stream's work, copies `bytes` from the device, and returns the kernels'
  // time (milliseconds), which kernel_seconds() sums.
  float copy_results(void* host, const void* device_ptr, size_t bytes) {
    CUDA_CHECK(cudaEventRecord(done_, stream_));
    CUDA_CHECK(cudaEventSynchronize(done_));
    CUDA_CHECK(cudaMemcpyAsync(host, device_ptr, bytes, cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    kernel_seconds_ += ms / 1000.0;
    return ms;
  }
  double kernel_seconds() const { return kernel_seconds_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr, done_ = nullptr;
  double kernel_seconds_ = 0;
};

}  // namespace hpc::cuda
