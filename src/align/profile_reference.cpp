#include "src/align/profile_reference.hpp"

#include <algorithm>
#include <limits>

namespace hpc {

int32_t QueryProfile::max_score() const {
  return scores.empty() ? 0 : *std::max_element(scores.begin(), scores.end());
}
int32_t QueryProfile::min_score() const {
  return scores.empty() ? 0 : *std::min_element(scores.begin(), scores.end());
}

QueryProfile QueryProfile::from_matrix(SeqView query, const ScoreMatrix& m) {
  QueryProfile p;
  p.length = query.length;
  p.scores.resize(size_t(query.length) * kAlphabetSize);
  for (uint32_t i = 0; i < query.length; ++i)
    for (int c = 0; c < kAlphabetSize; ++c) p.scores[size_t(i) * kAlphabetSize + c] = m.score[query.data[i]][c];
  return p;
}

int32_t profile_reference_score(const QueryProfile& profile, SeqView target, GapCosts g) {
  // Column-by-column over the target, one row per query position (linear memory).
  const uint32_t m = profile.length;
  const int32_t open_extend = g.open + g.extend;
  std::vector<int32_t> h(m + 1, 0), e(m + 1, std::numeric_limits<int32_t>::min() / 2);
  int32_t best = 0;
  for (uint32_t j = 0; j < target.length; ++j) {
    const uint8_t t = target.data[j];
    int32_t diag = 0;  // H(i-1, j-1)
    int32_t f = std::numeric_limits<int32_t>::min() / 2;
    int32_t up = 0;    // H(i-1, j)
    for (uint32_t i = 1; i <= m; ++i) {
      e[i] = std::max(e[i] - g.extend, h[i] - open_extend);  // gap in the query, from the left
      f = std::max(f - g.extend, up - open_extend);          // gap in the target, from above
      const int32_t cell = std::max({0, diag + profile(i - 1, t), e[i], f});
      diag = h[i];
      h[i] = cell;
      up = cell;
      best = std::max(best, cell);
    }
  }
  return best;
}

}  // namespace hpc
