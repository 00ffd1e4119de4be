#pragma once
// A fixed pool of worker threads, created once per backend and reused for every tile.
// run(n, fn) calls fn(0..n-1) spread over the workers and the calling thread, and
// returns when all calls are done; the first exception thrown by fn is rethrown.
// Concurrent run() calls are served one after the other.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hpc {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);  // total threads, the caller included (>= 1)
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return int(workers_.size()) + 1; }
  void run(size_t n, const std::function<void(size_t)>& fn);

 private:
  void worker_loop();
  void drain();  // takes items of the current job until none are left

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one job at a time, whoever calls
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t job_size_ = 0, next_item_ = 0, items_done_ = 0;
  unsigned long generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace hpc
