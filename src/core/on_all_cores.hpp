#pragma once
// Work that one core would take too long on (whole-database copies, CRCs, chunk inflation,
// millions of result rows), split over the job's cores with plain threads.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

#include "src/core/cpu_budget.hpp"

namespace hpc {

// The cores to use: the job's CPUs (src/core/cpu_budget.hpp), at most 16. Asked once, since
// it reads files and some callers come by the million.
inline size_t usable_cores() {
  static const size_t n = size_t(std::min(16, usable_cpus().cpus));
  return n;
}

// Every CPU of the job, without usable_cores()'s cap: for a merge, whose reads, sorts and
// deflates are independent parts (a screen's final merge on a 2-GPU host of 32 cores used 16).
inline size_t all_usable_cores() {
  static const size_t n = size_t(std::max(1, usable_cpus().cpus));
  return n;
}

// Each part's exception, so that once all parts have ended the lowest failed part's is
// rethrown on the caller's thread (one that escaped a thread would end the process).
class PartFailures {
 public:
  explicit PartFailures(size_t parts) : failed_(parts) {}
  template <class Part>
  void run(Part& part, size_t k) {
    try {
      part(k);
    } catch (...) {
      failed_[k] = std::current_exception();
    }
  }
  void rethrow_lowest() const {
    for (const auto& e : failed_)
      if (e) std::rethrow_exception(e);
  }

 private:
  std::vector<std::exception_ptr> failed_;
};

// Runs part(k) for every k < parts, each on its own thread (part 0 on the calling one); then
// rethrows the lowest failed part's exception, if any (PartFailures).
template <class Part>
void run_parts(size_t parts, Part part) {
  PartFailures failures(parts);
  const auto guarded = [&](size_t k) { failures.run(part, k); };
  std::vector<std::thread> pool;
  for (size_t k = 1; k < parts; ++k) pool.emplace_back(guarded, k);
  if (parts > 0) guarded(size_t(0));
  for (auto& t : pool) t.join();
  failures.rethrow_lowest();
}

// Runs range(begin, end) over [0, n) cut into `parts` near-equal consecutive ranges.
template <class Range>
void run_ranges(size_t n, size_t parts, Range range) {
  parts = std::max<size_t>(1, std::min(parts, n));
  run_parts(parts, [&](size_t k) { range(n * k / parts, n * (k + 1) / parts); });
}

}  // namespace hpc
