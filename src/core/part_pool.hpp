#pragma once
// Threads kept for a loop that runs parts round after round (the final merge: two rounds a
// segment, hundreds of segments), where run_parts (src/core/on_all_cores.hpp) started and
// joined its threads every round, on the merging thread's critical path.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "src/core/on_all_cores.hpp"

namespace hpc {

class PartPool {
 public:
  // Rounds run on `width` threads: the caller's and width - 1 of the pool's own.
  explicit PartPool(size_t width) {
    for (size_t k = 1; k < width; ++k) threads_.emplace_back([this, k] { loop(k); });
  }
  ~PartPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }
  PartPool(const PartPool&) = delete;
  PartPool& operator=(const PartPool&) = delete;

  // As run_parts(parts, part): part(k) for every k < parts, thread t taking parts t, t + width,
  // ...; once all have ended, the lowest failed part's exception, if any, is rethrown here.
  template <class Part>
  void run(size_t parts, Part&& part) {
    PartFailures failures(parts);
    const size_t width = threads_.size() + 1;
    const std::function<void(size_t)> stride = [&](size_t t) {
      for (size_t k = t; k < parts; k += width) failures.run(part, k);
    };
    if (parts > 1 && width > 1) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        job_ = &stride, left_ = threads_.size(), ++round_;
      }
      start_.notify_all();
      stride(0);
      std::unique_lock<std::mutex> lock(mu_);
      done_.wait(lock, [&] { return left_ == 0; });
      job_ = nullptr;
    } else {  // one part, or no threads of its own: all on the caller's
      stride(0);
    }
    failures.rethrow_lowest();
  }

 private:
  void loop(size_t t) {
    for (uint64_t seen = 0;;) {
      const std::function<void(size_t)>* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        start_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_, job = job_;
      }
      (*job)(t);
      std::lock_guard<std::mutex> lock(mu_);
      if (--left_ == 0) done_.notify_one();
    }
  }

  std::mutex mu_;
  std::condition_variable start_, done_;
  const std::function<void(size_t)>* job_ = nullptr;  // the round's, until every thread is done
  size_t left_ = 0;                                   // threads still in the round
  uint64_t round_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hpc
