#pragma once
// The inter-sequence Smith-Waterman recurrence, generic over a vector-traits type V.
// Included only by the per-ISA translation units (sw_simd_avx2.cpp, sw_simd_sse2.cpp)
// after they have selected their instruction set; it has internal linkage so that no
// ISA-specific instantiation can be picked by the linker for another translation unit.
//
// V (constructed from the tables) provides: Reg, kLanes, zero(), add_score(h, p)
// (H + substitution score, saturating), subs_floor0(a, b) (saturating subtract that
// never goes below 0), max, open_extend / extend (gap costs as vectors),
// build_profile(tables, codes, out, stride) and store_best(int32_t*, Reg).
//
// Cells are kept >= 0 everywhere (E and F included): a negative E or F can never win
// against the local-mode floor of 0, so clamping them changes no H value, and it lets
// the max with 0 disappear from H.
#include "kernels/cpu/sw_simd_isa.hpp"

namespace hpc::sw_detail {
namespace {

template <class V, int C>
void group_scores_generic(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns,
                          int ncols, void* work, int32_t* best_out) {
  using R = typename V::Reg;
  const V v(t);
  R* row_state = static_cast<R*>(work);  // per query row i: H(i, j0-1), E(i, j0)
  const R zero = v.zero();
  for (int i = 0; i < 2 * m; ++i) row_state[i] = zero;

  R best = zero;
  R profile[kAlphabetSize * C];  // profile[a * C + c]: scores of letter a vs column j0 + c
  for (int j0 = 0; j0 < ncols; j0 += C) {
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) v.build_profile(t, columns + size_t(j0 + c) * V::kLanes, profile + c, C);

    R f[C], up[C];  // F(i, j0+c) and H(i-1, j0+c)
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) f[c] = up[c] = zero;
    R diag_next = zero;  // H(i-1, j0-1): row 0 is the zero boundary
    for (int i = 0; i < m; ++i) {
      const R* p = profile + query[i] * C;
      R diag = diag_next;
      R h = row_state[2 * i];
      R e = row_state[2 * i + 1];
      diag_next = h;
#pragma GCC unroll 8
      for (int c = 0; c < C; ++c) {
        h = v.max(v.max(v.add_score(diag, p[c]), f[c]), e);
        best = v.max(best, h);
        diag = up[c];
        up[c] = h;
        const R h_open = v.subs_floor0(h, v.open_extend);
        e = v.max(v.subs_floor0(e, v.extend), h_open);
        f[c] = v.max(v.subs_floor0(f[c], v.extend), h_open);
      }
      row_state[2 * i] = h;
      row_state[2 * i + 1] = e;
    }
  }
  v.store_best(best_out, best);
}

}  // namespace
}  // namespace hpc::sw_detail
