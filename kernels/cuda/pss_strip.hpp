#pragma once
// The per-thread Smith-Waterman of the PSS device path, host/device so the host unit tests
// check the very code the GPU runs (tests/unit/pss_strip_test.cpp).
//
// One thread scores a query profile against one permuted copy of a subject. The copies of a
// subject are interleaved copy-fastest (residue j of a copy at copy[j * stride]) so a warp's
// loads coalesce. The query is processed in strips of R rows held in registers; between
// strips only the last row's H and F per column go through memory (boundary_h/boundary_f,
// same interleaved layout), about 16/R bytes per cell instead of 16 for a row-major H/E.
// Same recurrence, gap convention and exact 32-bit values as src/align/profile_reference.hpp.
#include <cstdint>

#include "src/core/philox.hpp"  // HPC_HD

namespace hpc {

constexpr int kPssStripRows = 16;
constexpr int32_t kPssNegInf = -(1 << 29);

HPC_HD int32_t pss_max(int32_t a, int32_t b) { return a > b ? a : b; }

// Rows i..i+3 of one profile column. On the device one 16-byte load (the column is padded
// to a multiple of R rows and 16-byte aligned): a warp's threads read different columns, so
// fewer, wider loads mean fewer L1 wavefronts per cell.
HPC_HD void pss_load4(const int32_t* col, int32_t (&out)[4]) {
#if defined(__CUDA_ARCH__)
  const int4 v = __ldg(reinterpret_cast<const int4*>(col));
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
#else
  for (int k = 0; k < 4; ++k) out[k] = col[k];
#endif
}

// Rows of each transposed profile column: m rounded up to the strip height.
HPC_HD uint32_t pss_profile_stride(uint32_t m) { return (m + kPssStripRows - 1) / kPssStripRows * kPssStripRows; }

// profile_t: the profile transposed, profile_t[code * row_stride + i] = score of query row i
// against residue `code` (a thread's R rows of one column are consecutive), row_stride =
// pss_profile_stride(m) (padding rows are read, never used). open_extend = open + extend
// (the cost of a gap of length 1). boundary_* need n entries (at stride) and are only
// touched when m > R.
template <int R = kPssStripRows>
HPC_HD int32_t pss_strip_score(const int32_t* profile_t, uint32_t m, uint32_t row_stride, const uint8_t* copy,
                               uint32_t n, uint32_t stride, int32_t open_extend, int32_t extend, int32_t* boundary_h,
                               int32_t* boundary_f) {
  static_assert(R % 4 == 0, "rows are loaded four at a time");
  int32_t best = 0;
  for (uint32_t i0 = 0; i0 < m; i0 += R) {
    const uint32_t rows = m - i0 < uint32_t(R) ? m - i0 : uint32_t(R);
    const bool first = i0 == 0, last = i0 + R >= m;
    int32_t h[R], e[R];
    for (int r = 0; r < R; ++r) h[r] = 0, e[r] = kPssNegInf;
    int32_t diag_top = 0;  // H[i0 - 1][j - 1]
    for (uint32_t j = 0; j < n; ++j) {
      const size_t at = size_t(j) * stride;
      const uint8_t t = copy[at];
      const int32_t* col = profile_t + size_t(t) * row_stride + i0;
      int32_t up = first ? 0 : boundary_h[at];
      int32_t f = first ? kPssNegInf : boundary_f[at];
      int32_t diag = diag_top;
      diag_top = up;
#pragma unroll
      for (int g = 0; g < R; g += 4) {
        int32_t score[4];
        pss_load4(col + g, score);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const int r = g + k;
          if (uint32_t(r) < rows) {
            const int32_t h_left = h[r];
            const int32_t ei = pss_max(e[r] - extend, h_left - open_extend);
            f = pss_max(f - extend, up - open_extend);
            const int32_t cell = pss_max(pss_max(0, diag + score[k]), pss_max(ei, f));
            e[r] = ei;
            diag = h_left;
            h[r] = cell;
            up = cell;
            best = pss_max(best, cell);
          }
        }
      }
      if (!last) {
        boundary_h[at] = up;
        boundary_f[at] = f;
      }
    }
  }
  return best;
}

}  // namespace hpc
