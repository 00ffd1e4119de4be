#include "kernels/cpu/thread_pool.hpp"

#include <algorithm>

namespace hpc {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(threads, 1); ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (job_ && next_item_ < job_size_) {
    const size_t item = next_item_++;
    const std::function<void(size_t)>* job = job_;
    lock.unlock();
    try {
      (*job)(item);
    } catch (...) {
      std::lock_guard<std::mutex> error_lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    lock.lock();
    if (++items_done_ == job_size_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  unsigned long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    drain();
  }
}

void ThreadPool::run(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  std::lock_guard<std::mutex> one_job(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    job_size_ = n;
    next_item_ = items_done_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return items_done_ == job_size_; });
    job_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace hpc
