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
#include <type_traits>

#include "kernels/cpu/sw_simd_isa.hpp"

namespace hpc::sw_detail {
namespace {

// The gap steps' subtraction: local floors at 0, the end scores saturate (functors rather than
// lambdas: a captureless lambda's function-pointer conversion falls outside the ISA's target
// pragma and returns its vectors under another ABI).
struct FloorSub {
  template <class R, class V>
  static R apply(R a, R b, const V*) { return V::subs_floor0(a, b); }
};
struct SaturatingSub {
  template <class R, class V>
  static R apply(R a, R b, const V*) { return V::subs(a, b); }
};

// One query row over a block of C columns: H from the diagonal, F and E, then E and F for the
// next cell and row through Sub; seen(c, h) takes each cell's H. state: the row's H(i, j0) and
// the E entering column j0 + 1 (both left at the block's last column); diag_next: H(i - 1, j0),
// left at H(i, j0).
template <class V, int C, class Sub, class Seen>
__attribute__((always_inline)) inline void sweep_row(const V& v, const typename V::Reg* p, typename V::Reg& diag_next,
                                                     typename V::Reg* state, typename V::Reg* f, typename V::Reg* up,
                                                     Seen&& seen) {
  using R = typename V::Reg;
  R diag = diag_next;
  R h = state[0];
  R e = state[1];
  diag_next = h;
#pragma GCC unroll 8
  for (int c = 0; c < C; ++c) {
    h = v.max(v.max(v.add_score(diag, p[c]), f[c]), e);
    seen(c, h);
    diag = up[c];
    up[c] = h;
    const R h_open = Sub::apply(h, v.open_extend, &v);
    e = v.max(Sub::apply(e, v.extend, &v), h_open);
    f[c] = v.max(Sub::apply(f[c], v.extend, &v), h_open);
  }
  state[0] = h;
  state[1] = e;
}

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
    for (int i = 0; i < m; ++i)
      sweep_row<V, C, FloorSub>(v, profile + query[i] * C, diag_next, row_state + 2 * i, f, up,
                                [&](int, const R& h) { best = v.max(best, h); });
  }
  v.store_best(best_out, best);
}

// Global and semiglobal scores in signed 16-bit lanes (V = the Words traits), the recurrence
// above without the floor at 0: the border is H(0, j) = -(open + j ext) and H(i, 0) alike
// (global) or 0 (semiglobal), E and F start from it. Lane l's target has lane_len[l] columns
// (0: an empty lane); its score is H(m, lane_len[l]) (global) or the best of 0 (the border cell
// (0, n): nothing aligned), the last row up to column n and column n on every row (semiglobal),
// each read where that column passes by a compare against the lanes' lengths. The caller sends
// only pairs whose values stay inside 16 bits (sw_end_scores_fit); padding columns may
// saturate, but they lie right of every column read.
template <class V, int C, bool kSemi>
void group_end_scores_generic(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                              const int16_t* lane_len, void* work, int32_t* out) {
  using R = typename V::Reg;
  const V v(t);
  const int open = t.gap_open_extend - t.gap_extend, ext = t.gap_extend, oe = t.gap_open_extend;
  const auto border = [&](int k) { return kSemi || k == 0 ? 0 : -(open + k * ext); };
  R* row_state = static_cast<R*>(work);  // per query row i: H(i + 1, j0), E(i + 1, j0 + 1)
  for (int i = 0; i < m; ++i) {
    row_state[2 * i] = V::splat(border(i + 1));
    row_state[2 * i + 1] = V::splat(border(i + 1) - oe);
  }
  const R lens = V::load_lanes(lane_len);
  const R low = V::splat(-32768);
  R score = kSemi ? V::splat(0) : low;  // semiglobal: the border cell (0, n)
  R profile[kAlphabetSize * C];
  for (int j0 = 0; j0 < ncols; j0 += C) {
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) v.build_profile(t, columns + size_t(j0 + c) * V::kLanes, profile + c, C);
    R f[C], up[C], ends[C];  // F(i + 1, j0 + c + 1), H(i, j0 + c + 1); lanes whose last column is j0 + c + 1
    bool any_end = false;
#pragma GCC unroll 8
    for (int c = 0; c < C; ++c) {
      up[c] = V::splat(border(j0 + c + 1));
      f[c] = V::splat(border(j0 + c + 1) - oe);
      ends[c] = V::eq(lens, V::splat(j0 + c + 1));
      any_end |= V::any(ends[c]);
    }
    R diag_next = V::splat(border(j0));
    // One row; `last`: the query's last row, `column_ends`: a lane's last column in this block.
    const auto row = [&](int i, auto last, auto column_ends) {
      sweep_row<V, C, SaturatingSub>(v, profile + query[i] * C, diag_next, row_state + 2 * i, f, up,
                                     [&](int c, const R& h) {
                        if (decltype(column_ends)::value) score = v.max(score, V::select(ends[c], h, low));
                        if (decltype(last)::value) {
                          if (kSemi)  // the last row, columns 1..n of each lane
                            score = v.max(score, V::select(V::gt(lens, V::splat(j0 + c)), h, low));
                          else
                            score = V::select(ends[c], h, score);
                        }
                      });
    };
    using No = std::false_type;
    using Yes = std::true_type;
    if (kSemi && any_end)
      for (int i = 0; i + 1 < m; ++i) row(i, No{}, Yes{});
    else
      for (int i = 0; i + 1 < m; ++i) row(i, No{}, No{});
    if (m > 0) {
      if (kSemi && any_end) row(m - 1, Yes{}, Yes{});
      else row(m - 1, Yes{}, No{});
    }
  }
  v.store_best(out, score);
}

// An ISA's end-score entry point (sw_simd_isa.hpp's EndKernel) over its Words traits.
template <class V>
void group_end_scores(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                      const int16_t* lane_len, bool semi, void* work, int32_t* out) {
  (semi ? group_end_scores_generic<V, kColumnsPerPass, true> : group_end_scores_generic<V, kColumnsPerPass, false>)(
      t, query, m, columns, ncols, lane_len, work, out);
}

}  // namespace
}  // namespace hpc::sw_detail
