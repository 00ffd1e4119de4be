#pragma once
// Global and semiglobal scores in signed 16-bit lanes (the GPU's packed subject-pair kernel,
// kernels/cuda/sw_kernels.cu; the CPU's inter-sequence kernel, kernels/cpu/sw_simd_kernel.hpp):
// a pair's lane is exact with no overflow check when every value of its real columns stays
// between `floor` and 32767. Along the border a value falls to -(2 open + (m + n) ext) at the
// lowest, E and F take 3 oe + ext more and a substitution (bounded by the callers to +-1,000)
// the rest; the highest is max_score x min(m, n) plus one substitution and oe. Other pairs go
// to the callers' exact 32-bit paths. Columns past a lane's end may leave the range: they lie
// right of every cell the lane's score reads.
#include <algorithm>
#include <cstdint>

#include "src/core/scoring.hpp"

#if defined(__CUDACC__)
#define HPC_HOST_DEVICE __host__ __device__
#else
#define HPC_HOST_DEVICE
#endif

namespace hpc {

struct EndScoreFit {
  AlignMode mode = AlignMode::Local;  // Local: no end-score lanes (local scores)
  uint32_t max_sum = 0, max_min = 0;  // exact when m + n <= max_sum and min(m, n) <= max_min
  HPC_HOST_DEVICE bool fits(uint32_t m, uint32_t n) const {
    return uint64_t(m) + n <= max_sum && (m < n ? m : n) <= max_min;
  }
};

// `floor`: the lowest value a lane may hold (the GPU keeps room below its F sentinel).
inline EndScoreFit end_score_fit(AlignMode mode, int open, int extend, int max_score, int floor) {
  EndScoreFit fit;
  fit.mode = mode;
  const int64_t oe = int64_t(open) + extend;
  const int64_t room = -int64_t(floor) - 1000 - 2 * int64_t(open) - 3 * oe - extend;
  if (room <= 0 || open < 0 || extend < 0) return fit;  // nothing fits: every pair exact in 32 bits
  fit.max_sum = extend > 0 ? uint32_t(std::min<int64_t>(room / extend, UINT32_MAX)) : UINT32_MAX;
  fit.max_min = max_score > 0 ? uint32_t(std::max<int64_t>(0, (32767 - int64_t(max_score) - oe) / max_score))
                              : UINT32_MAX;
  return fit;
}

}  // namespace hpc
