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

namespace {

// sum_ij p_i q_j e^(l s_ij), and its derivative in l, from the cells' weights per score value
// (weight[k] for score low + k, `size` of them): with x = e^l, x^s by repeated products, one exp a step.
struct PhiAndSlope {
  double phi, slope;
};
PhiAndSlope phi_and_slope(const double* weight, int size, int low, double l) {
  const double x = std::exp(l), inverse = 1 / x;
  double sum = weight[size_t(-low)], slope = 0, power = 1;
  for (int s = 1; s - low < size; ++s) {
    power *= x;
    sum += weight[size_t(s - low)] * power;
    slope += s * weight[size_t(s - low)] * power;
  }
  power = 1;
  for (int s = -1; s >= low; --s) {
    power *= inverse;
    sum += weight[size_t(s - low)] * power;
    slope += s * weight[size_t(s - low)] * power;
  }
  return {sum - 1, slope};
}

}  // namespace

double composition_lambda_ratio(const ScoreMatrix& m, double standard, const Composition& query,
                                const Composition& subject) {
  return CompositionRatio(m, standard)(query, subject);
}

CompositionRatio::CompositionRatio(const ScoreMatrix& m, double standard) : standard_(standard) {
  for (int i = 0; i < kTrueAminoAcids; ++i)
    for (int j = 0; j < kTrueAminoAcids; ++j) {
      score_[i][j] = m.score[i][j];
      low_ = std::min(low_, m.score[i][j]);
      high_ = std::max(high_, m.score[i][j]);
    }
}

double CompositionRatio::root_ratio(const double* weight, int size, double expected, int present_high,
                                    double row_sum, double col_sum) const {
  // ungapped_lambda's root, solved only where the clamp leaves it: phi is convex, so
  // phi(standard) <= 0 puts the root at or above the standard lambda (ratio 1) and
  // phi(standard / 2) >= 0 at or below half of it (0.5); between them Newton's steps from
  // standard descend onto it.
  // BLAST: a lambda that does not exist (expected score >= 0) takes the lower bound.
  if (present_high <= 0 || expected >= 0 || row_sum <= 0 || col_sum <= 0) return 0.5;
  const double standard = standard_;
  if (phi_and_slope(weight, size, low_, standard).phi <= 0) return 1.0;
  if (phi_and_slope(weight, size, low_, 0.5 * standard).phi >= 0) return 0.5;
  double l = standard;
  for (int k = 0; k < 100; ++k) {
    const PhiAndSlope p = phi_and_slope(weight, size, low_, l);
    const double step = p.phi / p.slope;
    if (!(step > 1e-15 * l)) break;  // converged (rounding may turn the step back)
    l -= step;
  }
  return std::clamp(l / standard, 0.5, 1.0);
}

double CompositionRatio::operator()(const Composition& query, const Composition& subject) const {
  // One pass over the cells gathers the expected score, the test's highest score and the
  // weights (each sum in the cells' order), in a buffer on the stack for the usual score ranges.
  const int low = low_, high = high_;
  double row_sum = 0, col_sum = 0;
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    row_sum += query[i];
    col_sum += subject[i];
  }
  const int size = high - low + 1;
  double local[64];
  std::vector<double> heap(size > 64 ? size_t(size) : 0);
  double* weight = size > 64 ? heap.data() : local;
  std::fill(weight, weight + size, 0.0);
  const double norm = 1 / (row_sum * col_sum);
  double expected = 0;
  int present_high = 0;  // ungapped_lambda's test: a positive score between present letters
  for (int i = 0; i < kTrueAminoAcids; ++i)
    for (int j = 0; j < kTrueAminoAcids; ++j) {
      const int score = score_[i][j];
      if (query[i] != 0 && subject[j] != 0) {
        expected += query[i] * subject[j] * score;
        present_high = std::max(present_high, score);
      }
      weight[score - low] += query[i] * subject[j] * norm;
    }
  return root_ratio(weight, size, expected, present_high, row_sum, col_sum);
}

void CompositionRatio::operator()(const Composition& query, const Composition* const* subjects, size_t n,
                                  double* out) const {
  // The highest score in each column j over the query's present letters (and 0): a subject's
  // test score is then the highest of its present letters' columns.
  std::array<int, kTrueAminoAcids> column_high{};
  for (int i = 0; i < kTrueAminoAcids; ++i)
    if (query[i] != 0)
      for (int j = 0; j < kTrueAminoAcids; ++j) column_high[j] = std::max(column_high[j], score_[i][j]);
  constexpr int kVectors = int(kRatioGroup / kRatioLanes);
  static_assert(kRatioGroup % kRatioLanes == 0);
  size_t k = 0;
  for (; k + kRatioGroup <= n; k += kRatioGroup) group_ratios<kVectors>(query, column_high, subjects + k, out + k);
  for (; k < n; ++k) out[k] = (*this)(query, *subjects[k]);
}

template <int V>
void CompositionRatio::group_ratios(const Composition& query, const std::array<int, kTrueAminoAcids>& column_high,
                                    const Composition* const* subjects, double* out) const {
  // operator()'s pass for V x kRatioLanes subjects in vector lanes, each lane's sums in the
  // one-subject order (the same bits), the lanes' chains of 400 dependent adds overlapping. A
  // cell with an absent letter adds a zero here where the one-subject pass skips it for the
  // expected score: no sum changes (none is ever -0, they start at +0).
  constexpr int L = V * int(kRatioLanes);
  const int low = low_, high = high_;
  RatioLanes column[kTrueAminoAcids][V];  // the subjects' fractions of letter j
  for (int j = 0; j < kTrueAminoAcids; ++j)
    for (int l = 0; l < L; ++l) column[j][l / kRatioLanes][l % kRatioLanes] = (*subjects[l])[j];
  double row_sum = 0;
  RatioLanes col_sum[V] = {};
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    row_sum += query[i];
    for (int v = 0; v < V; ++v) col_sum[v] += column[i][v];
  }
  const int size = high - low + 1;
  RatioLanes local[64 * V];
  std::vector<RatioLanes> heap(size > 64 ? size_t(V) * size_t(size) : 0);
  RatioLanes* weight = size > 64 ? heap.data() : local;  // weight[(score - low) * V + v]
  std::fill(weight, weight + size_t(V) * size_t(size), RatioLanes{});
  RatioLanes norm[V], expected[V] = {};
  for (int v = 0; v < V; ++v) norm[v] = 1 / (row_sum * col_sum[v]);
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    const double q = query[i];
    for (int j = 0; j < kTrueAminoAcids; ++j) {
      const int score = score_[i][j];
      RatioLanes* w = weight + size_t(score - low) * V;
      for (int v = 0; v < V; ++v) {
        const RatioLanes p = q * column[j][v];
        expected[v] += p * double(score);
        w[v] += p * norm[v];
      }
    }
  }
  double lane_local[64];
  std::vector<double> lane_heap(size > 64 ? size_t(size) : 0);
  double* lane_weight = size > 64 ? lane_heap.data() : lane_local;
  for (int l = 0; l < L; ++l) {
    const int v = l / int(kRatioLanes), lane = l % int(kRatioLanes);
    int present_high = 0;
    for (int j = 0; j < kTrueAminoAcids; ++j)
      if ((*subjects[l])[j] != 0) present_high = std::max(present_high, column_high[j]);
    for (int s = 0; s < size; ++s) lane_weight[s] = weight[size_t(s) * V + v][lane];
    out[l] = root_ratio(lane_weight, size, expected[v][lane], present_high, row_sum, col_sum[v][lane]);
  }
}

double rescaled_alignment_score(GapCosts gaps, double ratio, const Alignment& aln) {
  return rescaled_alignment_score(gaps, ratio, aln.score, aln.cigar);
}

double rescaled_alignment_score(GapCosts gaps, double ratio, int32_t score, std::string_view cigar) {
  // score = substitutions - gap costs, so the substitutions follow from the CIGAR's gaps.
  const CigarStats c = cigar_stats(cigar);
  const double gap_cost = double(c.gap_opens) * gaps.open + double(c.length - c.matches - c.mismatches) * gaps.extend;
  return ratio * (score + gap_cost) - gap_cost;
}

}  // namespace hpc
