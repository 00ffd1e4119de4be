#pragma once
// Threads kept for a loop of independent items run again and again on a loaded host (a search
// worker's calibration: its fits, its selection and its terms, three loops a tile, eight
// workers of 16 threads each on 16 cores). run_ranges (src/core/on_all_cores.hpp) starts a
// thread per range and waits for the last of them: a range whose thread the host schedules
// late holds the whole loop. Here the items are cut into small chunks that whichever thread is
// running takes next, the caller's included, and the caller waits for the chunks, not for the
// threads: one that wakes late finds none left and sleeps again. The final merge keeps one for
// its rounds too (two a segment, hundreds of segments), where run_parts would start and join
// its threads every round on the merging thread's critical path.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "src/core/on_all_cores.hpp"

namespace hpc {

class ChunkPool {
 public:
  // Loops run on up to `width` threads: the caller's and width - 1 of the pool's own.
  explicit ChunkPool(size_t width) {
    for (size_t k = 1; k < width; ++k) threads_.emplace_back([this] { loop(); });
  }
  ~ChunkPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;

  size_t width() const { return threads_.size() + 1; }

  // range(begin, end) over [0, n) in consecutive chunks of about n / (4 x width) items, each
  // chunk once, on whichever thread takes it; returns once every chunk has ended, rethrowing
  // the lowest failed chunk's exception, if any. Each item's result must not depend on which
  // thread runs it or on the chunks (as with run_ranges). One caller at a time (a worker's own pool).
  template <class Range>
  void run(size_t n, Range&& range) {
    if (n == 0) return;
    const size_t chunk = std::max<size_t>(1, n / (4 * width()));
    auto job = std::make_shared<Job>(n, chunk, [&range](size_t b, size_t e) { range(b, e); });
    if (job->chunks > 1 && !threads_.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        job_ = job;
        ++round_;
      }
      start_.notify_all();
    }
    job->work();
    {
      std::unique_lock<std::mutex> lock(job->mu);
      job->all_done.wait(lock, [&] { return job->done.load() == job->chunks; });
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (job_ == job) job_.reset();
    }
    for (const auto& e : job->failed)
      if (e) std::rethrow_exception(e);
  }

  // As run_parts(parts, part): part(k) for every k < parts, each on whichever thread takes it;
  // every part runs even where another fails, and once all have ended the lowest failed part's
  // exception, if any, is rethrown here.
  template <class Part>
  void run_parts(size_t parts, Part&& part) {
    PartFailures failures(parts);
    run(parts, [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) failures.run(part, k);
    });
    failures.rethrow_lowest();
  }

 private:
  struct Job {
    Job(size_t n_, size_t chunk_, std::function<void(size_t, size_t)> range_)
        : n(n_), chunk(chunk_), chunks((n_ + chunk_ - 1) / chunk_), range(std::move(range_)), failed(chunks) {}
    // Takes chunks until none is left; a thread that comes after the last one calls nothing.
    void work() {
      for (;;) {
        const size_t c = next.fetch_add(1);
        if (c >= chunks) return;
        try {
          range(c * chunk, std::min(n, (c + 1) * chunk));
        } catch (...) {
          failed[c] = std::current_exception();
        }
        if (done.fetch_add(1) + 1 == chunks) {
          std::lock_guard<std::mutex> lock(mu);
          all_done.notify_all();
        }
      }
    }
    const size_t n, chunk, chunks;
    const std::function<void(size_t, size_t)> range;
    std::vector<std::exception_ptr> failed;  // per chunk
    std::atomic<size_t> next{0}, done{0};
    std::mutex mu;
    std::condition_variable all_done;
  };

  void loop() {
    for (uint64_t seen = 0;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        start_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
        job = job_;
      }
      if (job) job->work();
    }
  }

  std::mutex mu_;
  std::condition_variable start_;
  std::shared_ptr<Job> job_;  // the latest loop's, while its caller runs it
  uint64_t round_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hpc
