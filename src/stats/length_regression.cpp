#include "src/stats/length_regression.hpp"

#include <cmath>

namespace hpc {
namespace {
constexpr double kTrimZ = 5.0;       // FASTA's outlier bound on z
constexpr int kMaxRounds = 10;
constexpr double kEulerGamma = 0.57721566490153286;
const double kGumbelScale = M_PI / std::sqrt(6.0);  // 1/beta of a unit-variance Gumbel
}  // namespace

double LengthRegression::z(double score, double n) const {
  return (score - (intercept + slope * std::log(n))) / sd;
}

double LengthRegression::evalue(double score, double n, double subjects) const {
  // P(Z > z) = 1 - exp(-exp(-(pi/sqrt6) z - gamma)); expm1 keeps the small tail exact.
  const double x = -kGumbelScale * z(score, n) - kEulerGamma;
  return subjects * -std::expm1(-std::exp(x));
}

double LengthRegression::score_for_evalue(double max_evalue, double n, double subjects) const {
  const double p = max_evalue / subjects;
  if (p >= 1) return -1e300;  // every score
  const double z_at = -(std::log(-std::log1p(-p)) + kEulerGamma) / kGumbelScale;
  return intercept + slope * std::log(n) + sd * z_at;
}

LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<uint32_t>& lengths) {
  LengthRegression r;
  std::vector<char> keep(scores.size(), 1);
  std::vector<double> ln(scores.size());  // ln(n) of each subject, once (every round uses it)
  for (size_t i = 0; i < scores.size(); ++i) ln[i] = std::log(double(lengths[i]));
  for (int round = 0; round < kMaxRounds; ++round) {
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      if (!keep[i]) continue;
      const double x = ln[i], y = scores[i];
      n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    if (n < LengthRegression::kMinSubjects) return LengthRegression{};
    const double det = n * sxx - sx * sx;
    r.slope = det > 1e-12 * n * n ? (n * sxy - sx * sy) / det : 0.0;  // one length only: no slope
    r.intercept = (sy - r.slope * sx) / n;
    double ss = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      if (!keep[i]) continue;
      const double e = scores[i] - (r.intercept + r.slope * ln[i]);
      ss += e * e;
    }
    r.sd = std::sqrt(ss / std::max(1.0, n - 2));
    r.used = uint32_t(n);
    r.ok = r.sd > 0;
    if (!r.ok) return LengthRegression{};
    bool changed = false;
    for (size_t i = 0; i < scores.size(); ++i) {
      const char k = (scores[i] - (r.intercept + r.slope * ln[i])) / r.sd <= kTrimZ;  // r.z(score, n)
      changed |= k != keep[i];
      keep[i] = k;
    }
    if (!changed) break;
  }
  return r;
}

}  // namespace hpc
