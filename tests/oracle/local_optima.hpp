#pragma once
// When are a local alignment's coordinates the same for every program? When the optimal
// score is reached at one cell only (the end is forced) and, on both sequences reversed,
// again at one cell only (the start is forced). Then every optimal alignment runs from that
// start to that end, whatever tie rule a program follows; otherwise programs may differ.
// A plain Gotoh pass written here (independent of src/align) counts those cells.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc::test {

struct OptimalCells {
  int32_t score = 0;  // the Smith-Waterman score
  uint32_t cells = 0; // cells whose H equals it
};

// q_at(i), t_at(j): the residue the pass reads at 0-based step i (j), so one pass serves
// both directions.
template <class QAt, class TAt>
OptimalCells count_optimal_cells(uint32_t m, uint32_t n, QAt q_at, TAt t_at, const ScoreMatrix& mat, GapCosts g) {
  const int32_t open_ext = g.open + g.extend, ext = g.extend, minus_inf = -(1 << 28);
  std::vector<int32_t> H(n + 1, 0), F(n + 1, minus_inf);
  OptimalCells best;
  for (uint32_t i = 0; i < m; ++i) {
    int32_t diag = 0, E = minus_inf;  // H(i-1, j-1) and E(i, j-1); column 0 is 0
    const uint8_t a = q_at(i);
    for (uint32_t j = 1; j <= n; ++j) {
      E = std::max(E - ext, H[j - 1] - open_ext);
      F[j] = std::max(F[j] - ext, H[j] - open_ext);
      const int32_t h = std::max({0, diag + mat(a, t_at(j - 1)), E, F[j]});
      diag = H[j];
      H[j] = h;
      if (h > best.score) best = {h, 1};
      else if (h == best.score && h > 0) ++best.cells;
    }
  }
  return best;
}

// True when every optimal local alignment of q and t has the same start and end on both.
inline bool local_coordinates_unique(SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  const OptimalCells ends = count_optimal_cells(
      q.length, t.length, [&](uint32_t i) { return q.data[i]; }, [&](uint32_t j) { return t.data[j]; }, mat, g);
  if (ends.cells != 1) return false;
  const OptimalCells starts = count_optimal_cells(
      q.length, t.length, [&](uint32_t i) { return q.data[q.length - 1 - i]; },
      [&](uint32_t j) { return t.data[t.length - 1 - j]; }, mat, g);
  return starts.cells == 1;
}

}  // namespace hpc::test
