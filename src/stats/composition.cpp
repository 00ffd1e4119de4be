#include "src/stats/composition.hpp"

#include <algorithm>
#include <cmath>
#include <vector>


namespace hpc {

const Composition& standard_composition() {
  static const Composition kRobinson = {0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295,
                                        0.07377, 0.02199, 0.05142, 0.09019, 0.05744, 0.02243, 0.03856,
                                        0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441};
  return kRobinson;
}

Composition composition_of(SeqView s) {
  Composition c{};
  uint32_t n = 0;
  for (uint32_t i = 0; i < s.length; ++i)
    if (s.data[i] < kTrueAminoAcids) {
      c[s.data[i]] += 1;
      ++n;
    }
  if (n > 0)
    for (double& f : c) f /= n;
  return c;
}

double ungapped_lambda(const ScoreMatrix& m, const Composition& row, const Composition& col) {
  double expected = 0, row_sum = 0, col_sum = 0;
  int max_score = 0;
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    row_sum += row[i];
    col_sum += col[i];
    for (int j = 0; j < kTrueAminoAcids; ++j) {
      if (row[i] == 0 || col[j] == 0) continue;
      expected += row[i] * col[j] * m.score[i][j];
      max_score = std::max(max_score, m.score[i][j]);
    }
  }
  if (max_score <= 0 || expected >= 0 || row_sum <= 0 || col_sum <= 0) return -1;
  // phi(l) = sum p q e^{l s} / (row_sum col_sum) - 1 is convex, phi(0) = 0, phi'(0) < 0: its
  // positive root is bracketed by doubling, then bisected to machine precision. The 400 cells
  // are summed per score value first (a matrix has ~16), so a step costs ~16 exps, not 400:
  // search's regress-qcomp solves this for every sample pair of every query.
  int min_score = 0;
  for (int i = 0; i < kTrueAminoAcids; ++i)
    for (int j = 0; j < kTrueAminoAcids; ++j) min_score = std::min(min_score, m.score[i][j]);
  std::vector<double> weight(size_t(std::max(max_score, 0) - min_score + 1), 0.0);
  for (int i = 0; i < kTrueAminoAcids; ++i)
    for (int j = 0; j < kTrueAminoAcids; ++j)
      if (m.score[i][j] <= max_score) weight[size_t(m.score[i][j] - min_score)] += row[i] * col[j];
  auto phi = [&](double l) {
    double s = 0;
    for (size_t k = 0; k < weight.size(); ++k)
      if (weight[k] != 0) s += weight[k] * std::exp(l * double(int(k) + min_score));
    return s / (row_sum * col_sum) - 1;
  };
  double lo = 0, hi = 0.5;
  while (phi(hi) < 0) {
    lo = hi;
    hi *= 2;
  }
  for (int k = 0; k < 200 && hi - lo > 1e-15 * hi; ++k) {
    const double mid = 0.5 * (lo + hi);
    (phi(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double composition_lambda_ratio(const ScoreMatrix& m, double standard, const Composition& query,
                                const Composition& subject) {
  const double pair = ungapped_lambda(m, query, subject);
  // BLAST: a lambda that does not exist (expected score >= 0) takes the lower bound.
  const double ratio = pair > 0 ? pair / standard : 0.5;
  return std::clamp(ratio, 0.5, 1.0);
}

double rescaled_alignment_score(GapCosts gaps, double ratio, const Alignment& aln) {
  // score = substitutions - gap costs, so the substitutions follow from the CIGAR's gaps.
  const CigarStats c = cigar_stats(aln.cigar);
  const double gap_cost = double(c.gap_opens) * gaps.open + double(c.length - c.matches - c.mismatches) * gaps.extend;
  return ratio * (aln.score + gap_cost) - gap_cost;
}

}  // namespace hpc
