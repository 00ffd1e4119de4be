#include "kernels/cpu/gotoh_scalar.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <vector>

#include "src/align/reference.hpp"

namespace hpc {
namespace {

constexpr int32_t kNegInf = std::numeric_limits<int32_t>::min() / 4;

}  // namespace

// Largest magnitude any H/E/F value (or border) can reach is below (m + n + 2) x the
// largest per-step cost; keep well inside int32 with kNegInf's headroom.
Int32Fit::Int32Fit(const ScoreMatrix& m, GapCosts g)
    : step_(uint64_t(std::max<int64_t>({std::abs(m.max_score()), std::abs(m.min_score()), int64_t(g.open) + g.extend}))) {}

bool gotoh_fits_int32(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) { return Int32Fit(m, g)(q.length, t.length); }

int32_t gotoh_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  if (g.open < 0 || g.extend < 0 || !gotoh_fits_int32(q, t, mat, g)) return reference_score(mode, q, t, mat, g);
  const uint32_t m = q.length, n = t.length;
  const bool global = mode == AlignMode::Global, local = mode == AlignMode::Local;
  const int32_t ext = g.extend, open_ext = g.open + g.extend;
  auto border = [&](uint32_t k) { return global && k > 0 ? -(g.open + int32_t(k) * ext) : 0; };

  std::vector<int32_t> H(size_t(n) + 1), F(size_t(n) + 1, kNegInf);
  for (uint32_t j = 0; j <= n; ++j) H[j] = border(j);
  // End cell rules of reference.cpp's find_end (only the score is needed here).
  int32_t best = global ? border(m == 0 ? n : m) : 0;
  for (uint32_t i = 1; i <= m; ++i) {
    const int* row = mat.score[q.data[i - 1]].data();
    int32_t diag = H[0], E = kNegInf;
    H[0] = border(i);
    for (uint32_t j = 1; j <= n; ++j) {
      const int32_t up = H[j];
      E = std::max(H[j - 1] - open_ext, E - ext);
      F[j] = std::max(up - open_ext, F[j] - ext);
      int32_t h = std::max(diag + row[t.data[j - 1]], std::max(E, F[j]));
      if (local) h = std::max(h, 0);
      diag = up;
      H[j] = h;
      if (local) best = std::max(best, h);
    }
    if (mode == AlignMode::SemiGlobal) best = std::max(best, H[n]);  // last column
  }
  if (m > 0 && mode == AlignMode::SemiGlobal)
    for (uint32_t j = 1; j <= n; ++j) best = std::max(best, H[j]);  // last row
  if (global && m > 0 && n > 0) best = H[n];
  return best;
}

}  // namespace hpc
