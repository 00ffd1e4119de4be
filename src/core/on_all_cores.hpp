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

// Runs part(k) for every k < parts, each on its own thread (part 0 on the calling one). Once
// all have ended, the exception of the lowest failed part, if any, is rethrown here (one that
// escaped a thread would end the process).
template <class Part>
void run_parts(size_t parts, Part part) {
  std::vector<std::exception_ptr> failed(parts);
  const auto guarded = [&](size_t k) {
    try {
      part(k);
    } catch (...) {
      failed[k] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (size_t k = 1; k < parts; ++k) pool.emplace_back(guarded, k);
  if (parts > 0) guarded(size_t(0));
  for (auto& t : pool) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

// Runs range(begin, end) over [0, n) cut into `parts` near-equal consecutive ranges.
template <class Range>
void run_ranges(size_t n, size_t parts, Range range) {
  parts = std::max<size_t>(1, std::min(parts, n));
  run_parts(parts, [&](size_t k) { range(n * k / parts, n * (k + 1) / parts); });
}

}  // namespace hpc
