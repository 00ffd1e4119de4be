#pragma once
// The strip recurrence, written in the compiler's vector extensions and included by one file
// per ISA. Gotoh over strips of kLanes query rows: on step k lane r holds cell (i0+r+1, k-r),
// so the lanes run along one anti-diagonal of the strip; a lane's up neighbour is the lane
// before it one step earlier and its diagonal neighbour the same lane two steps earlier. Every
// cell is computed once, exactly, with reference.cpp's values (in int32): no lazy-F correction,
// so each cell's H, E, F and the comparisons the tie rule makes are at hand in the lane.
#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "kernels/cpu/strip_align_isa.hpp"
#include "src/align/traceback_walk.hpp"
#include "src/core/alphabet.hpp"

// The vectors never cross a function boundary out of this file's anonymous namespace, so the
// baseline build's note that 256-bit arguments change the ABI does not apply.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace hpc::strip_detail {
namespace {

static_assert(kLanes == 8, "shift_in's shuffle mask is written for 8 lanes");
typedef int32_t V __attribute__((vector_size(4 * kLanes)));

constexpr int kCodes = 32;                   // a score table row: target codes masked to 0..31
constexpr int kPadCode = kAlphabetSize;      // scores 0: columns before and after the target

inline V splat(int32_t x) { return V{} + x; }
inline V vmax(V a, V b) { return a > b ? a : b; }
inline V lane_index() { return V{0, 1, 2, 3, 4, 5, 6, 7}; }
// Lane 0 takes `first`, lane r the old lane r-1.
inline V shift_in(V v, int32_t first) { return __builtin_shuffle(v, splat(first), V{8, 0, 1, 2, 3, 4, 5, 6}); }

int32_t border_value(Border b, uint64_t k, GapCosts g) {
  if (k == 0 || b == Border::Zero) return 0;
  if (b == Border::Anchored) return kNegInf;
  return -(g.open + int32_t(k) * g.extend);
}

// One step's cells, lane by lane. valid: the lane is a cell of the matrix.
struct Step {
  uint32_t k;
  V j, h, d, e, f;
  V eo, fo;  // E / F came from opening (ties go to opening)
  V valid;
};

// Runs the pass, calling visit.begin_strip(i0, rows), visit.cell(step) for every step and
// visit.end_strip() after each strip.
template <class Visit>
void sweep(const Pass& p, Visit& visit) {
  const uint32_t m = p.m, n = p.n;
  const int32_t ext = p.g.extend, open_ext = p.g.open + p.g.extend;
  // Row state of the strip above (its last row), padded so lane 0 may read past column n.
  std::vector<int32_t> H(size_t(n) + kLanes + 1, 0), F(size_t(n) + kLanes + 1, kNegInf);
  if (p.top_h) {
    std::copy(p.top_h, p.top_h + n + 1, H.begin());
    std::copy(p.top_f, p.top_f + n + 1, F.begin());
  } else {
    for (uint32_t j = 0; j <= n; ++j) H[j] = border_value(p.border, j, p.g);
  }
  alignas(32) int32_t table[kLanes][kCodes];
  const V lanes = lane_index();
  for (uint32_t i0 = 0; i0 < m; i0 += kLanes) {
    const uint32_t rows = std::min<uint32_t>(kLanes, m - i0);
    V row_border = splat(kNegInf);
    for (uint32_t r = 0; r < uint32_t(kLanes); ++r) {
      for (int c = 0; c < kCodes; ++c)
        table[r][c] = r < rows && c < kAlphabetSize ? p.mat->score[p.q[i0 + r]][c] : 0;
      if (r < rows) row_border[r] = border_value(p.border, p.row0 + i0 + r + 1, p.g);
    }
    const V lane_ok = lanes < int32_t(rows);
    visit.begin_strip(i0, rows);
    // Outputs of the previous step: columns <= 0 hold H(i,0) and E = -inf.
    V h_prev = row_border, e_prev = splat(kNegInf), f_prev = splat(kNegInf), up_prev = splat(0);
    up_prev[0] = H[0];
    V codes = splat(kPadCode);
    const uint32_t steps = n + rows - 1;
    for (uint32_t k = 1; k <= steps; ++k) {
      const V j = splat(int32_t(k)) - lanes;
      const V up = shift_in(h_prev, H[k]), f_up = shift_in(f_prev, F[k]);
      codes = shift_in(codes, k <= n ? p.t[k - 1] : kPadCode);
      const V index = (codes & (kCodes - 1)) + lanes * kCodes;  // table[r][code of lane r]
#if HPCALIGN_STRIP_GATHER  // the AVX2 file: one gather
      const V score = V(_mm256_i32gather_epi32(&table[0][0], __m256i(index), 4));
#else
      V score;
      for (int r = 0; r < kLanes; ++r) score[r] = (&table[0][0])[index[r]];
#endif
      const V e_open = h_prev - open_ext, e_ext = e_prev - ext;
      const V e = e_open >= e_ext ? e_open : e_ext;
      const V f_open = up - open_ext, f_ext = f_up - ext;
      const V f = f_open >= f_ext ? f_open : f_ext;
      const V d = up_prev + score;
      V h = vmax(d, vmax(e, f));
      if (p.clamp_zero) h = vmax(h, splat(0));
      const V started = j > 0;
      visit.cell(Step{k, j, h, d, e, f, e_open >= e_ext, f_open >= f_ext, started & (j <= int32_t(n)) & lane_ok});
      h_prev = started ? h : row_border;
      e_prev = started ? e : splat(kNegInf);
      f_prev = f;
      up_prev = up;
      if (k >= rows) {  // the strip's last row becomes the row above (read before written)
        const uint32_t jl = k - (rows - 1);
        if (jl <= n) H[jl] = h[rows - 1], F[jl] = f[rows - 1];
      }
    }
    H[0] = border_value(p.border, p.row0 + i0 + rows, p.g);
    visit.end_strip();
  }
  visit.last_row(H.data(), F.data());
}

// Visitors that need no row state at the end.
struct NoLastRow {
  void last_row(const int32_t*, const int32_t*) {}
};

// Tie rule 1: per lane (one row, columns rising) the first strict maximum; the lanes in
// row order; the strips in row order.
struct EndVisit : NoLastRow {
  AlignMode mode;
  uint32_t m, n;
  EndCell best;
  uint32_t i0 = 0, rows = 0;
  V lane_best{}, lane_j{}, in_last_row{};
  void begin_strip(uint32_t first, uint32_t count) {
    i0 = first, rows = count;
    lane_best = splat(std::numeric_limits<int32_t>::min()), lane_j = splat(0);
    in_last_row = lane_index() == int32_t(m - 1 - i0);
  }
  void cell(const Step& s) {
    V eligible = s.valid;
    if (mode == AlignMode::SemiGlobal) eligible &= (s.j == int32_t(n)) | in_last_row;
    if (mode == AlignMode::Global) eligible &= (s.j == int32_t(n)) & in_last_row;
    const V better = eligible & (s.h > lane_best);
    lane_best = better ? s.h : lane_best;
    lane_j = better ? s.j : lane_j;
  }
  void end_strip() {
    for (uint32_t r = 0; r < rows; ++r) {
      if (lane_j[r] == 0) continue;  // no eligible cell in this row
      if (mode == AlignMode::Global) best.score = lane_best[r];
      else if (lane_best[r] > best.score) best = {lane_best[r], i0 + r + 1, uint32_t(lane_j[r])};
    }
  }
};

EndCell end_cell_impl(AlignMode mode, const Pass& p) {
  EndVisit v{{}, mode, p.m, p.n, {}};
  const uint32_t m = p.m, n = p.n;
  if (mode == AlignMode::Global) v.best = {border_value(Border::Charged, m == 0 ? n : m, p.g), m, n};
  if (mode == AlignMode::SemiGlobal) v.best = {0, 0, m == 0 ? 0 : n};
  sweep(p, v);
  return v.best;
}

struct StartVisit : NoLastRow {
  int32_t score;
  uint32_t max_a = 1, max_b = 1;
  uint32_t i0 = 0, rows = 0;
  V hit_row{}, hit_col{};
  void begin_strip(uint32_t first, uint32_t count) { i0 = first, rows = count, hit_row = splat(0); }
  void cell(const Step& s) {
    const V hit = s.valid & (s.d == score);
    hit_row |= hit;
    hit_col = vmax(hit_col, hit ? s.j : splat(0));
  }
  void end_strip() {
    for (uint32_t r = 0; r < rows; ++r)
      if (hit_row[r]) max_a = std::max(max_a, i0 + r + 1);
  }
};

std::pair<uint32_t, uint32_t> start_bounds_impl(const Pass& p, int32_t score) {
  StartVisit v{{}, score};
  sweep(p, v);
  for (int r = 0; r < kLanes; ++r) v.max_b = std::max(v.max_b, uint32_t(v.hit_col[r]));
  return {v.max_a, v.max_b};
}

struct FillVisit : NoLastRow {
  const Pass& p;
  uint32_t* words;
  int32_t end_h = 0;
  uint32_t i0 = 0, rows = 0;
  uint64_t base = 0;
  void begin_strip(uint32_t first, uint32_t count) {
    i0 = first, rows = count, base = uint64_t(first / kLanes) * (p.n + kLanes - 1);
  }
  void cell(const Step& s) {
    // The cell codes the walk reads (src/align/traceback_walk.hpp).
    using namespace traceback;
    V src = s.h == s.d ? splat(kDiag) : s.h == s.f ? splat(kUp) : splat(kLeft);
    if (p.clamp_zero) src = s.h == 0 ? splat(kZero) : src;
    const V code = (src | (s.eo & kEOpenBit) | (s.fo & kFOpenBit)) << (lane_index() * 4);
    uint32_t word = 0;
    for (int r = 0; r < kLanes; ++r) word |= uint32_t(code[r]);
    words[base + s.k - 1] = word;
    if (i0 + rows == p.m && s.k == p.n + rows - 1) end_h = s.h[rows - 1];
  }
  void end_strip() {}
};

int32_t fill_impl(const Pass& p, uint32_t* words) {
  FillVisit v{{}, p, words};
  sweep(p, v);
  return v.end_h;
}

// Only the state of the last row, copied out.
struct AdvanceVisit {
  uint32_t n;
  int32_t *h, *f;
  void begin_strip(uint32_t, uint32_t) {}
  void cell(const Step&) {}
  void end_strip() {}
  void last_row(const int32_t* H, const int32_t* F) {
    std::copy(H, H + n + 1, h);
    std::copy(F, F + n + 1, f);
  }
};

void advance_impl(const Pass& p, int32_t* h, int32_t* f) {
  AdvanceVisit v{p.n, h, f};
  sweep(p, v);
}

}  // namespace
}  // namespace hpc::strip_detail

#pragma GCC diagnostic pop
