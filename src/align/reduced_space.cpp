#include "src/align/reduced_space.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "src/align/traceback_walk.hpp"
#include "src/core/error.hpp"

// The recurrences, border values, tie decisions and 4-bit cell codes below are those of
// src/align/reference.cpp, written out again because that file keeps them private; the
// unit tests compare this aligner's CIGARs with reference_align's on many pairs, ties included.

namespace hpc {
namespace {

using Score = int64_t;
constexpr Score kNegInf = std::numeric_limits<Score>::min() / 4;

using namespace traceback;

// DP state of one row: H and F for columns 0..cols (E lives within a row only).
struct RowState {
  std::vector<Score> H, F;
  size_t bytes() const { return (H.size() + F.size()) * sizeof(Score); }
  RowState truncated(uint32_t cols) const {
    return {std::vector<Score>(H.begin(), H.begin() + cols + 1), std::vector<Score>(F.begin(), F.begin() + cols + 1)};
  }
};

class Band {  // 4-bit cells of rows 1..rows (relative), columns 1..cols
 public:
  Band(uint32_t rows, uint32_t cols) : cols_(cols), bits_((uint64_t(rows) * cols + 1) / 2, 0) {}
  void set(uint32_t r, uint32_t j, uint8_t v) {
    const uint64_t k = uint64_t(r - 1) * cols_ + (j - 1);
    bits_[k >> 1] |= uint8_t(v << ((k & 1) * 4));
  }
  uint8_t get(uint32_t r, uint32_t j) const {
    const uint64_t k = uint64_t(r - 1) * cols_ + (j - 1);
    return (bits_[k >> 1] >> ((k & 1) * 4)) & 0xF;
  }
  uint64_t bytes() const { return bits_.size(); }

 private:
  uint64_t cols_;
  std::vector<uint8_t> bits_;
};

class Aligner {
 public:
  Aligner(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g, uint64_t budget,
          ReducedSpaceStats& st)
      : mode_(mode), q_(q), t_(t), mat_(m), g_(g), budget_(budget), stats_(st) {}

  Alignment run() {
    if (g_.open < 0 || g_.extend < 0) throw Error("gap costs must be non-negative");
    const uint32_t m = q_.length, n = t_.length;
    // Pass 1: score and end cell (tie rule 1), as reference.cpp's find_end.
    Score best = 0;
    uint32_t ei = 0, ej = 0;
    if (mode_ == AlignMode::Global) best = border(m == 0 ? n : m), ei = m, ej = n;
    if (mode_ == AlignMode::SemiGlobal) ej = m == 0 ? 0 : n;
    RowState s = top_row(n);
    for (uint32_t i = 1; i <= m; ++i)
      step(s, i, n, [&](uint32_t j, Score h, uint8_t) {
        if (mode_ == AlignMode::Local && h > best) best = h, ei = i, ej = j;
        if (mode_ == AlignMode::Global && i == m && j == n) best = h;
        if (mode_ == AlignMode::SemiGlobal && (i == m || j == n) && h > best) best = h, ei = i, ej = j;
      });
    Alignment a;
    if (best > std::numeric_limits<int32_t>::max() || best < std::numeric_limits<int32_t>::min())
      throw Error("alignment score " + std::to_string(best) + " does not fit in 32 bits");
    a.score = int32_t(best);
    if (mode_ == AlignMode::Local && best == 0) return a;

    // Pass 2: the walk back through bands of the prefix rectangle [1..ei] x [1..ej].
    stats_.recomputed_cells = 0;
    Walk w;
    w.i = ei, w.j = ej;
    if (ei > 0 && ej > 0) trace(top_row(ej), 0, ei, w, budget_, 0);
    w.finish(mode_, 1, 1, ei, ej, a);
    return a;
  }

 private:
  Score border(uint64_t k) const {
    if (k == 0 || mode_ != AlignMode::Global) return 0;
    return -(Score(g_.open) + Score(k) * g_.extend);
  }
  RowState top_row(uint32_t cols) const {
    RowState s{std::vector<Score>(size_t(cols) + 1), std::vector<Score>(size_t(cols) + 1, kNegInf)};
    for (uint32_t j = 0; j <= cols; ++j) s.H[j] = border(j);
    return s;
  }

  // Turns the state of row i-1 into that of row i over columns 1..cols, calling
  // visit(j, H, 4-bit cell) for each cell: reference.cpp's sweep and cell coding.
  template <class Visit>
  void step(RowState& s, uint32_t i, uint32_t cols, Visit&& visit) {
    const bool local = mode_ == AlignMode::Local;
    const Score ext = g_.extend, open_ext = Score(g_.open) + g_.extend;
    const auto& row = mat_.score[q_.data[i - 1]];
    Score diag = s.H[0];
    s.H[0] = border(i);
    Score E = kNegInf;
    for (uint32_t j = 1; j <= cols; ++j) {
      const Score up = s.H[j];
      const Score e_open = s.H[j - 1] - open_ext, e_ext = E - ext;
      const bool eo = e_open >= e_ext;
      E = eo ? e_open : e_ext;
      const Score f_open = up - open_ext, f_ext = s.F[j] - ext;
      const bool fo = f_open >= f_ext;
      const Score F = fo ? f_open : f_ext;
      s.F[j] = F;
      const Score d = diag + row[t_.data[j - 1]];
      Score h = std::max(d, std::max(E, F));
      if (local && h < 0) h = 0;
      const uint8_t src = local && h == 0 ? kZero : h == d ? kDiag : h == F ? kUp : kLeft;
      visit(j, h, uint8_t(src | (eo ? kEOpenBit : 0) | (fo ? kFOpenBit : 0)));
      diag = up;
      s.H[j] = h;
    }
    stats_.recomputed_cells += cols;
  }

  // Walks back through rows (lo, hi], given the state of row `lo`; returns when the walk
  // leaves the band upwards (or ends). Only columns <= the walk's column matter: the walk
  // never moves right, and those cells do not depend on the columns beyond.
  void trace(const RowState& top, uint32_t lo, uint32_t hi, Walk& w, uint64_t budget, int depth) {
    stats_.depth = std::max(stats_.depth, depth);
    const uint32_t cols = w.j, rows = hi - lo;
    if (traceback_cells_fit(rows, cols, budget) || rows == 1) {
      Band band(rows, cols);
      stats_.peak_bytes = std::max(stats_.peak_bytes, held_ + band.bytes());
      RowState s = top.truncated(cols);
      for (uint32_t r = 1; r <= rows; ++r) step(s, lo + r, cols, [&](uint32_t j, Score, uint8_t c) { band.set(r, j, c); });
      walk(band, lo, w);
      return;
    }
    // Checkpoints: the state at the top of each sub-band, using at most half the budget.
    const uint64_t row_bytes = (uint64_t(cols) + 1) * 2 * sizeof(Score);
    const uint32_t parts = uint32_t(std::clamp<uint64_t>(budget / 2 / row_bytes, 2, rows));
    std::vector<uint32_t> edge(parts + 1);
    for (uint32_t k = 0; k <= parts; ++k) edge[k] = lo + uint32_t(uint64_t(rows) * k / parts);
    std::vector<RowState> checkpoint(parts);
    checkpoint[0] = top.truncated(cols);
    RowState s = checkpoint[0];
    for (uint32_t k = 1; k < parts; ++k) {
      for (uint32_t r = edge[k - 1] + 1; r <= edge[k]; ++r) step(s, r, cols, [](uint32_t, Score, uint8_t) {});
      checkpoint[k] = s;
    }
    const uint64_t used = parts * row_bytes;
    held_ += used;
    for (uint32_t k = parts; k-- > 0 && w.active(lo);)
      if (w.i > edge[k]) trace(checkpoint[k], edge[k], edge[k + 1], w, budget > used ? budget - used : 0, depth + 1);
    held_ -= used;
  }

  static bool traceback_cells_fit(uint32_t rows, uint32_t cols, uint64_t budget) {
    return traceback_bytes(rows, cols) <= budget;
  }

  // The walk (tie rules 2 and 3) through a band's cells.
  void walk(const Band& band, uint32_t lo, Walk& w) const {
    while (w.active(lo)) w.step(band.get(w.i - lo, w.j), q_.data, t_.data);
  }


  AlignMode mode_;
  SeqView q_, t_;
  const ScoreMatrix& mat_;
  GapCosts g_;
  uint64_t budget_;
  ReducedSpaceStats& stats_;
  uint64_t held_ = 0;  // checkpoint bytes held by the enclosing levels
};

}  // namespace

Alignment reduced_space_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g,
                              uint64_t budget_bytes, ReducedSpaceStats* stats) {
  ReducedSpaceStats local_stats;
  ReducedSpaceStats& st = stats ? *stats : local_stats;
  st = {};
  return Aligner(mode, q, t, m, g, budget_bytes, st).run();
}

}  // namespace hpc
