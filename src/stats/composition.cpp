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
      cell_score_[size_t(i * kTrueAminoAcids + j)] = m.score[i][j];
      low_ = std::min(low_, m.score[i][j]);
      high_ = std::max(high_, m.score[i][j]);
    }
  value_begin_.assign(size_t(high_ - low_ + 2), 0);
  size_t at = 0;
  for (int v = low_; v <= high_; ++v) {
    value_begin_[size_t(v - low_)] = uint16_t(at);
    for (int c = 0; c < kCells; ++c)
      if (cell_score_[size_t(c)] == v) by_score_[at++] = uint16_t(c);
  }
  value_begin_.back() = uint16_t(at);
}

namespace {

// Whether sum_c term[c], added one by one in c's order from 0, is >= 0; decided from eight
// interleaved partial sums where they are far from 0 (any order's sum lies within 399 units
// of rounding of the absolute sum from the exact one: 1e-12 of it is a wide margin), else by
// that order's own sum. The one chain of 400 dependent adds was most of a ratio's time.
bool sum_is_nonnegative(const double* term, int n) {
  double part[8] = {}, magnitude[8] = {};
  int c = 0;
  for (; c + 8 <= n; c += 8)
    for (int k = 0; k < 8; ++k) part[k] += term[c + k], magnitude[k] += std::fabs(term[c + k]);
  for (; c < n; ++c) part[0] += term[c], magnitude[0] += std::fabs(term[c]);
  double sum = 0, total = 0;
  for (int k = 0; k < 8; ++k) sum += part[k], total += magnitude[k];
  if (sum > 1e-12 * total) return true;
  if (sum < -1e-12 * total) return false;
  double ordered = 0;
  for (c = 0; c < n; ++c) ordered += term[c];
  return ordered >= 0;
}

}  // namespace

double CompositionRatio::operator()(const Composition& query, const Composition& subject) const {
  // ungapped_lambda's root, solved only where the clamp leaves it: phi is convex, so
  // phi(standard) <= 0 puts the root at or above the standard lambda (ratio 1) and
  // phi(standard / 2) >= 0 at or below half of it (0.5); between them Newton's steps from
  // standard descend onto it. The expected score and the weights per score value are the sums
  // of the cells in row-major order (each weight its own cells', gathered per value), so bit
  // for bit those of one pass over the cells; in a buffer on the stack for the usual score ranges.
  const double standard = standard_;
  const int low = low_, high = high_;
  double row_sum = 0, col_sum = 0;
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    row_sum += query[i];
    col_sum += subject[i];
  }
  double product[kCells], term[kCells];
  for (int i = 0; i < kTrueAminoAcids; ++i)
    for (int j = 0; j < kTrueAminoAcids; ++j) product[i * kTrueAminoAcids + j] = query[i] * subject[j];
  // Cells of an absent letter add nothing to the expected score (their terms are zeros).
  for (int c = 0; c < kCells; ++c) term[c] = product[c] * cell_score_[size_t(c)];
  int present_high = 0;  // ungapped_lambda's test: a positive score between present letters
  for (int i = 0; i < kTrueAminoAcids; ++i) {
    if (query[i] == 0) continue;
    for (int j = 0; j < kTrueAminoAcids; ++j)
      if (subject[j] != 0) present_high = std::max(present_high, score_[i][j]);
  }
  // BLAST: a lambda that does not exist (expected score >= 0) takes the lower bound.
  if (present_high <= 0 || row_sum <= 0 || col_sum <= 0 || sum_is_nonnegative(term, kCells)) return 0.5;
  const int size = high - low + 1;
  double local[64];
  std::vector<double> heap(size > 64 ? size_t(size) : 0);
  double* weight = size > 64 ? heap.data() : local;
  const double norm = 1 / (row_sum * col_sum);
  for (int v = 0; v < size; ++v) {
    double w = 0;
    for (uint16_t k = value_begin_[size_t(v)]; k < value_begin_[size_t(v) + 1]; ++k) w += product[by_score_[k]] * norm;
    weight[v] = w;
  }
  if (phi_and_slope(weight, size, low, standard).phi <= 0) return 1.0;
  if (phi_and_slope(weight, size, low, 0.5 * standard).phi >= 0) return 0.5;
  double l = standard;
  for (int k = 0; k < 100; ++k) {
    const PhiAndSlope p = phi_and_slope(weight, size, low, l);
    const double step = p.phi / p.slope;
    if (!(step > 1e-15 * l)) break;  // converged (rounding may turn the step back)
    l -= step;
  }
  return std::clamp(l / standard, 0.5, 1.0);
}

double rescaled_alignment_score(GapCosts gaps, double ratio, const Alignment& aln) {
  // score = substitutions - gap costs, so the substitutions follow from the CIGAR's gaps.
  const CigarStats c = cigar_stats(aln.cigar);
  const double gap_cost = double(c.gap_opens) * gaps.open + double(c.length - c.matches - c.mismatches) * gaps.extend;
  return ratio * (aln.score + gap_cost) - gap_cost;
}

}  // namespace hpc
