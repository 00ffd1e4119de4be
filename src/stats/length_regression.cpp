#include "src/stats/length_regression.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>

namespace hpc {
namespace {
constexpr double kEulerGamma = 0.57721566490153286;
const double kGumbelScale = M_PI / std::sqrt(6.0);  // 1/beta of a unit-variance Gumbel
constexpr double kBinsPerLn = 10.0;                 // bin = round(10 ln n)
constexpr int kBins = 201;
constexpr uint32_t kShortest = 10;     // shorter subjects are not fitted
constexpr int kMinBins = 5;            // bins of 2+ scores a fit needs
constexpr double kLowZ = -3.0;         // step 3's lower bound on z
constexpr double kMinTrimZ = 3.0;      // fewer scores than this z needs: no fit
constexpr double kMinKept = 50;        // subjects left after step 3
constexpr double kUngappedToGapped = 0.7;

int bin_of(uint32_t n) { return std::min(kBins - 1, int(kBinsPerLn * std::log(double(n)) + 0.5)); }

struct Bins {
  std::array<double, kBins> count{}, sum{}, sum2{}, var{};
  void add(int b, double s, double sign) { count[b] += sign, sum[b] += sign * s, sum2[b] += sign * s * s; }
};

struct Line {
  double rho = 0, mu = 0, mean_var = 0;  // mean = rho x + mu over x = bin + 1/2; pooled residual variance
  double rho2 = 0, mu2 = 0;              // residual variance of a bin's scores, summed, vs x
  double mean_x = 0, var_x = 0;
  bool ok = false;
};

// The regression of the bins' means on x, weighted by count / variance (variances floored
// at var_floor); with its pooled residual variance and that variance's own regression on x.
Line fit_bins(Bins& h, double var_floor) {
  Line l;
  double nw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  int used_bins = 0;
  for (int j = 0; j < kBins - 1; ++j) {
    const double c = h.count[j];
    if (c <= 1) continue;
    h.var[j] = std::max(var_floor, (h.sum2[j] / c - (h.sum[j] / c) * (h.sum[j] / c)) / (c - 1));
    const double x = j + 0.5, w = 1 / h.var[j];
    nw += c * w, sx += c * x * w, sy += h.sum[j] * w, sxx += c * x * x * w, sxy += x * h.sum[j] * w;
    ++used_bins;
  }
  const double det = nw * sxx - sx * sx;
  if (used_bins < kMinBins || !(det > 0.001)) return l;
  l.rho = (nw * sxy - sx * sy) / det;
  l.mu = (sxx * sy - sx * sxy) / det;
  double n = 0, mx = 0, mxx = 0, ss = 0, xss = 0;
  for (int j = 0; j < kBins; ++j) {
    const double c = h.count[j];
    if (c <= 1) continue;
    const double x = j + 0.5, u = l.rho * x + l.mu;
    const double y2 = h.sum2[j] - 2 * h.sum[j] * u + c * u * u;  // the bin's residual sum of squares
    n += c, mx += c * x, mxx += c * x * x, ss += y2, xss += x * y2;
  }
  l.mean_x = mx / n;
  l.var_x = mxx / n - l.mean_x * l.mean_x;
  l.mean_var = ss / n;
  l.rho2 = (xss / n - l.mean_x * l.mean_var) / l.var_x;
  l.mu2 = l.mean_var - l.rho2 * l.mean_x;
  l.ok = l.mean_var > 0.01;
  return l;
}

// Step 4: drops the bins whose residual variance departs most from its regression on x.
void drop_odd_bins(Bins& h, const Line& l, uint32_t longest) {
  // The smallest variance the regression may predict (FASTA's var_cutoff).
  double at;
  if (l.rho2 < 0)
    at = l.rho2 * kBinsPerLn * std::log(double(longest)) + l.mu2 > 0 ? longest : std::exp((-1 - l.mu2 / l.rho2) / kBinsPerLn);
  else
    at = l.rho2 != 0 ? std::exp((1 - l.mu2 / l.rho2) / kBinsPerLn) : kShortest;
  at = std::max<double>(at, 2 * kShortest);
  const double floor = l.rho2 * kBinsPerLn * std::log(at) + l.mu2;
  std::array<double, kBins> departure{};
  double mean = 0;
  int bins = 0;
  for (int j = 0; j < kBins - 1; ++j) {
    const double c = h.count[j];
    if (c <= 1) continue;
    const double x = j + 0.5, u = l.rho * x + l.mu;
    const double v = std::max(floor, l.rho2 * x + l.mu2);
    const double d = (h.sum2[j] - 2 * u * h.sum[j] + c * u * u) - v * c;
    departure[j] = d * d / (c - 1);
    mean += departure[j];
    ++bins;
  }
  if (bins == 0) return;
  const double bound = 3 * std::sqrt(mean / bins);
  for (int j = 0; j < kBins - 1; ++j)
    if (h.count[j] > 1 && std::sqrt(departure[j]) > bound) h.count[j] = h.sum[j] = h.sum2[j] = 0;
}

}  // namespace

double LengthRegression::z(double score, double n) const {
  return (score - (intercept + slope * std::log(n))) / sd;
}

double LengthRegression::evalue(double score, double n, double subjects) const {
  // P(Z > z) = 1 - exp(-exp(-(pi/sqrt6) z - gamma)); expm1 keeps the small tail exact.
  const double x = -kGumbelScale * z(score, n) - kEulerGamma;
  return subjects * -std::expm1(-std::exp(x));
}

double LengthRegression::log_evalue(double score, double n, double subjects) const {
  const double x = -kGumbelScale * z(score, n) - kEulerGamma;
  // Far in the tail P = 1 - exp(-e^x) is e^x to double precision (and exp(x) may underflow).
  return std::log(subjects) + (x < -40 ? x : std::log(-std::expm1(-std::exp(x))));
}

bool LengthRegression::evalue_within(double score, double n, double log_n, double subjects,
                                     double max_evalue) const {
  return EvalueWithin(*this, subjects, max_evalue)(score, n, log_n);
}

EvalueWithin::EvalueWithin(const LengthRegression& fit, double subjects, double max_evalue)
    : fit_(&fit), subjects_(subjects), max_evalue_(max_evalue) {
  const double p = max_evalue / subjects;
  if (p > 0 && p <= 0.9) {
    // P = 1 - exp(-e^x) rises with x: P <= p where x <= ln(-ln(1 - p)).
    bounded_ = true;
    x_at_ = std::log(-std::log1p(-p));
  }
}

bool EvalueWithin::operator()(double score, double n, double log_n) const {
  if (bounded_) {
    // A margin of 1e-9 in x is over 2e-10 of P there (dP/dx = e^x exp(-e^x)), far above the
    // rounding of either side; near the boundary evalue() decides.
    const LengthRegression& f = *fit_;
    const double x = -kGumbelScale * ((score - (f.intercept + f.slope * log_n)) / f.sd) - kEulerGamma;
    if (x < x_at_ - 1e-9) return true;
    if (x > x_at_ + 1e-9) return false;
  }
  return fit_->evalue(score, n, subjects_) <= max_evalue_;
}

double LengthRegression::score_for_evalue(double max_evalue, double n, double subjects) const {
  const double p = max_evalue / subjects;
  if (p >= 1) return -1e300;  // every score
  const double z_at = -(std::log(-std::log1p(-p)) + kEulerGamma) / kGumbelScale;
  return intercept + slope * std::log(n) + sd * z_at;
}

LengthKey length_key(uint32_t n) {
  return {n, n >= kShortest ? bin_of(n) : 0, std::log(double(std::max<uint32_t>(1, n)))};
}

LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<uint32_t>& lengths,
                                       const HighScoreCap* cap) {
  std::vector<LengthKey> keys(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) keys[i] = length_key(lengths[i]);
  return fit_length_regression(scores, keys, cap);
}

LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<LengthKey>& keys,
                                       const HighScoreCap* cap) {
  const double total = double(scores.size());
  if (total < 2) return {};
  const double trim_z = (std::log(total) - kEulerGamma) / kGumbelScale;  // the best of N unrelated
  if (trim_z < kMinTrimZ) return {};
  double cap_score = INT_MAX;
  if (cap) {
    double mean_length = 0;
    for (const LengthKey& k : keys) mean_length += k.length;
    mean_length /= total;
    const double space = total * cap->ungapped_K * double(cap->query_length) * mean_length;
    cap_score = std::floor(-std::log(0.01 / space) / (cap->ungapped_lambda * kUngappedToGapped) + 0.5);
  }
  Bins h;
  int32_t lowest = INT_MAX, highest = INT_MIN;
  uint32_t longest = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (keys[i].length < kShortest) {
      lowest = std::min(lowest, 0);
      continue;
    }
    lowest = std::min(lowest, scores[i]), highest = std::max(highest, scores[i]);
    longest = std::max(longest, keys[i].length);
    h.add(keys[i].bin, std::min<double>(scores[i], cap_score), 1);
  }
  if (highest == INT_MIN || highest - lowest < 10) return {};
  Line l = fit_bins(h, 0.1);
  if (!l.ok) return {};
  double kept = total;
  const double spread = std::sqrt(l.mean_var);
  for (size_t i = 0; i < scores.size(); ++i) {
    const LengthKey& k = keys[i];
    const double z = k.length < kShortest || scores[i] <= 0 ? -5 : (scores[i] - l.rho * (kBinsPerLn * k.log_length) - l.mu) / spread;
    if (z >= kLowZ && z <= trim_z) continue;
    kept -= 1;
    if (k.length >= kShortest && scores[i] > 0) h.add(k.bin, std::min<double>(scores[i], cap_score), -1);
  }
  if (kept < kMinKept) return {};
  l = fit_bins(h, 1.0);
  if (!l.ok) return {};
  drop_odd_bins(h, l, longest);
  l = fit_bins(h, 0.1);
  if (!l.ok) return {};
  LengthRegression r;
  r.intercept = l.mu;
  r.slope = l.rho * kBinsPerLn;
  r.sd = std::sqrt(l.mean_var);
  double used = 0;
  for (double c : h.count) used += c > 1 ? c : 0;
  r.used = uint32_t(used);
  r.ok = true;
  return r;
}

}  // namespace hpc
