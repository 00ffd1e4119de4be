#include "src/align/reference.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "src/align/traceback_walk.hpp"
#include "src/core/error.hpp"

// Three passes, all row by row with O(n) working memory except the last:
//   1. score pass over the whole matrix: score and end cell (tie rule 1);
//   2. local mode only: an anchored pass backwards from the end cell finds the
//      smallest row and column where an alignment of that score can start;
//   3. a traceback pass over the rectangle that must contain the path, storing
//      4 bits per cell, then the walk back (tie rules 2 and 3).
// Restricting pass 3 to a rectangle gives the same path as the full matrix: on the
// path the rectangle's values equal the full ones (the path's own prefix lies inside),
// and off the path they can only be lower, so no tie is decided differently.
// Arithmetic is int64 throughout; results that do not fit int32 throw.

namespace hpc {
namespace {

using Score = int64_t;
constexpr Score kNegInf = std::numeric_limits<Score>::min() / 4;  // room to subtract without wrapping

// How the row-0 and column-0 cells are set.
enum class Border {
  Zero,      // local and semiglobal: H = 0 (free start anywhere / free leading overhang)
  Charged,   // global: H(0,j) = -(open + j*extend), H(i,0) likewise, H(0,0) = 0
  Anchored,  // internal: the alignment must start at cell (1,1); other border cells -inf
};

Score border_value(Border b, uint64_t k, GapCosts g) {
  if (k == 0) return 0;
  switch (b) {
    case Border::Zero: return 0;
    case Border::Charged: return -(Score(g.open) + Score(k) * g.extend);
    case Border::Anchored: return kNegInf;
  }
  return 0;
}

// Everything the recurrences know about one cell, handed to a visitor.
struct Cell {
  uint32_t i, j;
  Score h, diag, e, f;
  bool e_open, f_open;  // E / F came from opening (ties go to opening)
};

// Gotoh over q (rows) x t (columns), calling visit(cell) for every cell i, j >= 1.
template <class Visit>
void sweep(const uint8_t* q, uint32_t m, const uint8_t* t, uint32_t n, const ScoreMatrix& mat,
           GapCosts g, bool clamp_zero, Border border, Visit&& visit) {
  const Score ext = g.extend, open_ext = Score(g.open) + g.extend;
  std::vector<Score> H(size_t(n) + 1), F(size_t(n) + 1, kNegInf);
  for (uint32_t j = 0; j <= n; ++j) H[j] = border_value(border, j, g);
  for (uint32_t i = 1; i <= m; ++i) {
    const auto& row = mat.score[q[i - 1]];
    Score diag = H[0];  // H(i-1, j-1)
    H[0] = border_value(border, i, g);
    Score E = kNegInf;
    for (uint32_t j = 1; j <= n; ++j) {
      const Score up = H[j];
      const Score e_open = H[j - 1] - open_ext, e_ext = E - ext;
      const bool eo = e_open >= e_ext;
      E = eo ? e_open : e_ext;
      const Score f_open = up - open_ext, f_ext = F[j] - ext;
      const bool fo = f_open >= f_ext;
      F[j] = fo ? f_open : f_ext;
      const Score d = diag + row[t[j - 1]];
      Score h = std::max(d, std::max(E, F[j]));
      if (clamp_zero && h < 0) h = 0;
      visit(Cell{i, j, h, d, E, F[j], eo, fo});
      diag = up;
      H[j] = h;
    }
  }
}

struct EndCell {
  Score score = 0;
  uint32_t i = 0, j = 0;
};

void check_gaps(GapCosts g) {
  if (g.open < 0 || g.extend < 0)
    throw Error("gap costs must be non-negative (got open " + std::to_string(g.open) +
                ", extend " + std::to_string(g.extend) + ")");
}

int32_t to_int32(Score s) {
  if (s > std::numeric_limits<int32_t>::max() || s < std::numeric_limits<int32_t>::min())
    throw Error("alignment score " + std::to_string(s) + " does not fit in 32 bits");
  return static_cast<int32_t>(s);
}

// Pass 1: score and end cell. Scanning row-major with a strict '>' keeps the
// smallest i, then the smallest j, among equal scores (tie rule 1).
EndCell find_end(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  check_gaps(g);
  const uint32_t m = q.length, n = t.length;
  EndCell best;
  switch (mode) {
    case AlignMode::Local:
      sweep(q.data, m, t.data, n, mat, g, true, Border::Zero, [&](const Cell& c) {
        if (c.h > best.score) best = {c.h, c.i, c.j};
      });
      break;
    case AlignMode::Global:
      best = {border_value(Border::Charged, m == 0 ? n : m, g), m, n};  // right when m or n is 0
      sweep(q.data, m, t.data, n, mat, g, false, Border::Charged, [&](const Cell& c) {
        if (c.i == m && c.j == n) best.score = c.h;
      });
      break;
    case AlignMode::SemiGlobal:
      // Border cells of the last row/column count too (H = 0: nothing aligned);
      // (0, n) comes first in scan order, or (0, 0) when the query is empty.
      best = {0, 0, m == 0 ? 0 : n};
      sweep(q.data, m, t.data, n, mat, g, false, Border::Zero, [&](const Cell& c) {
        if ((c.i == m || c.j == n) && c.h > best.score) best = {c.h, c.i, c.j};
      });
      break;
  }
  return best;
}

// Pass 2 (local): align the reversed prefixes q[1..iend], t[1..jend] anchored at the
// end cell; every pair (i, j) where an alignment of the full score can start gives
// a bound. Returns the smallest such i and j (1-based).
std::pair<uint32_t, uint32_t> local_start_bounds(SeqView q, SeqView t, const ScoreMatrix& mat,
                                                 GapCosts g, const EndCell& end) {
  std::vector<uint8_t> rq(q.data, q.data + end.i), rt(t.data, t.data + end.j);
  std::reverse(rq.begin(), rq.end());
  std::reverse(rt.begin(), rt.end());
  uint32_t max_a = 1, max_b = 1;  // at least the end pair itself
  sweep(rq.data(), end.i, rt.data(), end.j, mat, g, false, Border::Anchored, [&](const Cell& c) {
    if (c.diag == end.score) {
      max_a = std::max(max_a, c.i);
      max_b = std::max(max_b, c.j);
    }
  });
  return {end.i - max_a + 1, end.j - max_b + 1};
}

// 4 bits per cell: bits 0-1 where H came from, bit 2 E opened, bit 3 F opened.
using namespace traceback;

class NibbleMatrix {
 public:
  NibbleMatrix(uint32_t rows, uint32_t cols) : cols_(cols) {
    const uint64_t cells = uint64_t(rows) * cols;
    try {
      bits_.assign((cells + 1) / 2, 0);
    } catch (const std::bad_alloc&) {
      throw Error("traceback matrix of " + std::to_string(rows) + " x " + std::to_string(cols) +
                  " cells (" + std::to_string((cells + 1) / 2 >> 20) + " MiB) does not fit in memory");
    }
  }
  // i, j are 1-based.
  void set(uint32_t i, uint32_t j, uint8_t v) {
    const uint64_t k = uint64_t(i - 1) * cols_ + (j - 1);
    bits_[k >> 1] |= uint8_t(v << ((k & 1) * 4));
  }
  uint8_t get(uint32_t i, uint32_t j) const {
    const uint64_t k = uint64_t(i - 1) * cols_ + (j - 1);
    return (bits_[k >> 1] >> ((k & 1) * 4)) & 0xF;
  }

 private:
  uint64_t cols_;
  std::vector<uint8_t> bits_;
};


}  // namespace

int32_t reference_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) {
  return to_int32(find_end(mode, q, t, m, g).score);
}

Alignment reference_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  const EndCell end = find_end(mode, q, t, mat, g);
  Alignment a;
  a.score = to_int32(end.score);
  if (mode == AlignMode::Local && end.score == 0) return a;  // nothing aligned

  // Rectangle [i0..end.i] x [j0..end.j]: cells beyond the end cell never matter.
  uint32_t i0 = 1, j0 = 1;
  if (mode == AlignMode::Local) std::tie(i0, j0) = local_start_bounds(q, t, mat, g, end);
  const uint32_t rows = end.i - (i0 - 1), cols = end.j - (j0 - 1);  // i0 <= end.i + 1
  const bool local = mode == AlignMode::Local;
  NibbleMatrix tb(rows, cols);
  Score end_h = end.score;
  sweep(q.data + i0 - 1, rows, t.data + j0 - 1, cols, mat, g, local,
        mode == AlignMode::Global ? Border::Charged : Border::Zero, [&](const Cell& c) {
          uint8_t src = local && c.h == 0 ? kZero : c.h == c.diag ? kDiag : c.h == c.f ? kUp : kLeft;
          tb.set(c.i, c.j, uint8_t(src | (c.e_open ? kEOpenBit : 0) | (c.f_open ? kFOpenBit : 0)));
          if (c.i == rows && c.j == cols) end_h = c.h;
        });
  if (end_h != end.score) throw Error("internal error: traceback pass disagrees with score pass");

  // Walk back in rectangle coordinates (row 0 / column 0 are the rectangle's border).
  Walk w;
  w.i = rows, w.j = cols;
  while (w.active(0)) w.step(tb.get(w.i, w.j), q.data + i0 - 1, t.data + j0 - 1);
  w.finish(mode, i0, j0, end.i, end.j, a);
  return a;
}

int32_t rescore_cigar(const Alignment& a, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  const CigarStats st = cigar_stats(a.cigar);  // throws on a malformed CIGAR
  auto check_span = [&](uint32_t start, uint32_t stop, uint32_t span, uint32_t len, const char* who) {
    const bool ok = span == 0 ? (start == 0 && stop == 0)
                              : (start >= 1 && stop >= start && stop - start + 1 == span && stop <= len);
    if (!ok)
      throw Error(std::string("CIGAR ") + a.cigar + " does not fit the " + who + ": span " +
                  std::to_string(span) + ", coordinates " + std::to_string(start) + ".." +
                  std::to_string(stop) + ", length " + std::to_string(len));
  };
  check_span(a.qstart, a.qend, st.query_span, q.length, "query");
  check_span(a.tstart, a.tend, st.target_span, t.length, "target");

  Score score = 0;
  uint32_t qi = a.qstart ? a.qstart - 1 : 0, tj = a.tstart ? a.tstart - 1 : 0;  // 0-based cursors
  char prev = 0;
  uint64_t run = 0;
  for (char c : a.cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + uint64_t(c - '0');
      continue;
    }
    if (c == 'I' || c == 'D') {
      if (c != prev) score -= g.open;  // a new gap; "2I3I" is one gap of 5
      score -= Score(run) * g.extend;
      (c == 'I' ? qi : tj) += uint32_t(run);
    } else {
      for (uint64_t k = 0; k < run; ++k, ++qi, ++tj) {
        const bool same = q.data[qi] == t.data[tj];
        if (same != (c == '='))
          throw Error("CIGAR " + a.cigar + " says '" + c + "' at query " + std::to_string(qi + 1) +
                      ", target " + std::to_string(tj + 1) + " but the residues " +
                      (same ? "are identical" : "differ"));
        score += mat(q.data[qi], t.data[tj]);
      }
    }
    prev = c;
    run = 0;
  }
  return to_int32(score);
}

}  // namespace hpc
