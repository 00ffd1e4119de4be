#pragma once
// Owning device and pinned-host buffers that only grow (tiles reuse them).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.hpp"

namespace hpc::cuda {

// An allocation (`allocate()`: a cudaMalloc or cudaMallocAsync) that, out of memory, is tried
// once more after the device's memory pools gave their freed memory back: stream-ordered frees
// (StreamBuffer's, every worker's) stay in the pool until a synchronization, so an allocation
// could fail while the memory it needs was free but still held (the 57,592-sequence screen with
// alignments split 2 tiles so). The wait for the whole device is paid only then, not a split.
template <class Allocate>
cudaError_t allocate_or_trim(Allocate&& allocate) {
  cudaError_t err = allocate();
  if (err != cudaErrorMemoryAllocation) return err;
  cudaGetLastError();  // not sticky: clear it before trying again
  int device = 0, pools = 0;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) return err;
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && pools &&
      cudaDeviceGetMemPool(&pool, device) == cudaSuccess)
    cudaMemPoolTrimTo(pool, 0);
  return allocate();
}

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  // Ensures room for n elements; old contents are not kept.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    release();
    CUDA_CHECK(allocate_or_trim([&] { return cudaMalloc(&ptr_, n * sizeof(T)); }));
    capacity_ = n;
  }
  void upload(const T* host, size_t n, cudaStream_t s) {
    reserve(n);
    if (n) CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, s));
  }
  // reserve() and upload() for a buffer whose size varies launch by launch: growing, it takes
  // twice its old room (or n), since each cudaFree of the smaller one waits for the whole device,
  // the kernels other workers queued on it included.
  void reserve_growing(size_t n) {
    if (n > capacity_) reserve(std::max(n, 2 * capacity_));
  }
  void upload_growing(const T* host, size_t n, cudaStream_t s) {
    reserve_growing(n);
    upload(host, n, s);
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return capacity_; }
  void release() {
    if (ptr_) cudaFree(ptr_);  // no throw from destructors; a failed free is not actionable
    ptr_ = nullptr;
    capacity_ = 0;
  }

 private:
  T* ptr_ = nullptr;
  size_t capacity_ = 0;
};

// A device buffer used on one stream only, grown in that stream's order (cudaMallocAsync /
// cudaFreeAsync where the device has memory pools): the cudaFree of a smaller buffer waits
// for the whole device, every other worker's queued kernels included; a stream-ordered free
// waits for nothing on the host. Without pools it is DeviceBuffer's cudaMalloc / cudaFree.
template <class T>
class StreamBuffer {
 public:
  StreamBuffer() = default;
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (ptr_) cudaFree(ptr_);  // frees a stream-ordered allocation too, after the device's work
  }
  // The stream every use of the buffer is on; before the first reserve().
  void use_stream(cudaStream_t s, int device) {
    stream_ = s;
    int pools = 0;
    ordered_ = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) == cudaSuccess && pools;
  }
  // Ensures room for n elements; old contents are not kept.
  void reserve(size_t n) {
    if (n <= capacity_) return;
    if (ptr_) {
      if (ordered_)
        CUDA_CHECK(cudaFreeAsync(ptr_, stream_));
      else
        CUDA_CHECK(cudaFree(ptr_));
    }
    ptr_ = nullptr;
    capacity_ = 0;
    CUDA_CHECK(allocate_or_trim([&] {
      return ordered_ ? cudaMallocAsync(reinterpret_cast<void**>(&ptr_), n * sizeof(T), stream_)
                      : cudaMalloc(&ptr_, n * sizeof(T));
    }));
    capacity_ = n;
  }
  void upload(const T* host, size_t n) {
    reserve(n);
    if (n) CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  // For a size that varies launch by launch: growing, twice the old room (or n).
  void reserve_growing(size_t n) {
    if (n > capacity_) reserve(std::max(n, 2 * capacity_));
  }
  void upload_growing(const T* host, size_t n) {
    reserve_growing(n);
    upload(host, n);
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return capacity_; }

 private:
  T* ptr_ = nullptr;
  size_t capacity_ = 0;
  cudaStream_t stream_ = nullptr;
  bool ordered_ = false;
};

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
    for (T* p : kept_) cudaFreeHost(p);
  }
  // keep_old: the smaller buffer stays allocated until this one goes, since cudaFreeHost waits
  // for the whole device, every worker's queued kernels included (for buffers that grow a few
  // times, by doubling).
  void reserve(size_t n, bool keep_old = false) {
    if (n <= capacity_) return;
    if (ptr_ && keep_old)
      kept_.push_back(ptr_);
    else if (ptr_)
      cudaFreeHost(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
    CUDA_CHECK(cudaMallocHost(&ptr_, n * sizeof(T)));
    capacity_ = n;
  }
  T* get() const { return ptr_; }
  size_t capacity() const { return capacity_; }
  T& operator[](size_t i) const { return ptr_[i]; }

 private:
  T* ptr_ = nullptr;
  size_t capacity_ = 0;
  std::vector<T*> kept_;  // reserve(n, true)'s smaller buffers
};

}  // namespace hpc::cuda
