#include "src/stats/gumbel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "src/core/error.hpp"

namespace hpc {
namespace {

constexpr int kMaxNewton = 100;
constexpr int kMaxBisection = 200;
constexpr double kPi = 3.14159265358979323846;

// A sample as its distinct values, ascending, with their multiplicities. Alignment scores
// are integers with a few dozen distinct values in a thousand permutations, so every sum of
// the fit runs over the tally: a pss run fits one Gumbel per pair, and with one exponential
// per score the host fits took longer than the GPU's alignments (86 x 2,771 pairs x 1,000
// permutations: 1.2 s on 16 cores against 1.5 s of score kernels, H100). The sums are the
// same; only the rounding of adding equal terms one by one is gone.
struct Tally {
  std::vector<double> value;
  std::vector<double> count;
  size_t total = 0;
};

// Tally of a sample of finite values (sorted copy, equal values merged).
Tally tally_of(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  Tally t;
  for (double v : x) {
    if (t.value.empty() || t.value.back() != v) {
      t.value.push_back(v);
      t.count.push_back(0);
    }
    t.count.back() += 1;
  }
  t.total = x.size();
  return t;
}

// The observed part after shifting by its mean (mu is shift-equivariant, lambda invariant).
struct ShiftedSample {
  std::vector<double> y;  // distinct observed scores minus shift, ascending
  std::vector<double> n;  // their multiplicities
  double total = 0;       // observed count
  double shift = 0;
  double z = 0;           // censored count
  double phi = 0;         // censor point minus shift
  double mean = 0;        // mean of y (0 up to rounding)
};

// Lawless 4.2.2 (4.1.6 when z == 0) and its derivative in lambda:
//   f(l)  = 1/l - mean(y) + B/A,  f'(l) = (B/A)^2 - C/A - 1/l^2
//   A = sum e^(-l y) + z e^(-l phi), B = sum y e^(-l y) + z phi e^(-l phi), C likewise y^2.
// Weights are scaled by e^(-c), c the largest exponent, so nothing overflows; the ratios do
// not depend on the scale. Returns log A as well (for mu).
struct Lawless {
  double f, df, log_a;
};
Lawless lawless422(const ShiftedSample& s, double lambda) {
  double c = -lambda * s.y.front();  // y ascends: the largest exponent
  if (s.z > 0) c = std::max(c, -lambda * s.phi);
  double a = 0, b = 0, cc = 0;
  for (size_t j = 0; j < s.y.size(); ++j) {
    const double y = s.y[j], w = s.n[j] * std::exp(-lambda * y - c);
    a += w;
    b += y * w;
    cc += y * y * w;
  }
  if (s.z > 0) {
    const double w = s.z * std::exp(-lambda * s.phi - c);
    a += w;
    b += s.phi * w;
    cc += s.phi * s.phi * w;
  }
  const double r = b / a;
  return {1.0 / lambda - s.mean + r, r * r - cc / a - 1.0 / (lambda * lambda), c + std::log(a)};
}

GumbelFit fit_shifted(const ShiftedSample& s, GumbelFit fit) {
  double var = 0;
  for (size_t j = 0; j < s.y.size(); ++j) var += s.n[j] * (s.y[j] - s.mean) * (s.y[j] - s.mean);
  var /= s.total - 1;
  const double guess = kPi / std::sqrt(6.0 * var);  // method of moments (Evans et al.)
  // |f| is in score units; converge to a tiny fraction of the scale 1/lambda.
  auto done = [](const Lawless& l, double lambda) { return std::fabs(l.f) * lambda < 1e-10; };

  double lambda = guess;
  bool ok = false;
  for (int i = 0; i < kMaxNewton && !ok; ++i) {
    const Lawless l = lawless422(s, lambda);
    fit.iterations = i + 1;
    if (done(l, lambda)) {
      ok = true;
      break;
    }
    lambda -= l.f / l.df;
    if (!(lambda > 0) || !std::isfinite(lambda)) lambda = guess * 1e-3;
  }
  if (!ok) {
    // f decreases in lambda: +inf at 0+, negative right of the root. Bracket, then bisect.
    fit.used_bisection = true;
    double left = 0, right = guess;
    while (lawless422(s, right).f > 0) {
      left = right;
      right *= 2;
      if (right > 1e6 * guess) return fit;  // NoConvergence
    }
    for (int i = 0; i < kMaxBisection && !ok; ++i) {
      lambda = 0.5 * (left + right);
      const Lawless l = lawless422(s, lambda);
      ++fit.iterations;
      if (done(l, lambda) || right - left < 1e-14 * right) ok = true;
      else if (l.f > 0) left = lambda;
      else right = lambda;
    }
    if (!ok) return fit;
  }
  // Lawless 4.2.3: mu = -(1/lambda) log(A / n_observed).
  const double log_a = lawless422(s, lambda).log_a;
  fit.lambda = lambda;
  fit.mu = s.shift - (log_a - std::log(s.total)) / lambda;
  fit.status = (std::isfinite(fit.mu) && std::isfinite(fit.lambda)) ? GumbelStatus::Converged
                                                                    : GumbelStatus::NoConvergence;
  if (!fit.converged()) fit.mu = fit.lambda = 0;
  return fit;
}

}  // namespace

const char* to_string(GumbelStatus s) {
  switch (s) {
    case GumbelStatus::Converged: return "converged";
    case GumbelStatus::TooFewSamples: return "too few samples";
    case GumbelStatus::ZeroVariance: return "all scores equal";
    case GumbelStatus::NonFinite: return "non-finite score";
    case GumbelStatus::NoConvergence: return "no convergence";
  }
  return "?";
}

namespace {

// The censored fit of an observed tally (every value >= phi) and `censored` scores < phi.
GumbelFit fit_observed(const Tally& obs, size_t censored, double phi) {
  GumbelFit fit;
  fit.observed = obs.total;
  fit.censored = censored;
  fit.censor_point = phi;
  if (censored > 0 && !std::isfinite(phi)) {
    fit.status = GumbelStatus::NonFinite;
    return fit;
  }
  if (obs.total < kMinGumbelSamples) {
    fit.status = GumbelStatus::TooFewSamples;
    return fit;
  }
  if (obs.value.size() == 1) {
    fit.status = GumbelStatus::ZeroVariance;
    return fit;
  }
  if (censored > 0 && obs.value.front() < phi)
    throw Error("internal: censored Gumbel fit given an observed score below the censor point");
  ShiftedSample s;
  s.total = double(obs.total);
  double sum = 0;
  for (size_t j = 0; j < obs.value.size(); ++j) sum += obs.count[j] * obs.value[j];
  s.shift = sum / s.total;
  s.n = obs.count;
  s.y.reserve(obs.value.size());
  for (double x : obs.value) s.y.push_back(x - s.shift);
  for (size_t j = 0; j < s.y.size(); ++j) s.mean += s.n[j] * s.y[j];
  s.mean /= s.total;
  s.z = double(censored);
  s.phi = phi - s.shift;
  return fit_shifted(s, fit);
}

bool all_finite(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

GumbelFit non_finite(size_t observed) {
  GumbelFit fit;
  fit.observed = observed;
  fit.status = GumbelStatus::NonFinite;
  return fit;
}

// fit_gumbel on the tally of a whole (finite) sample; `integral`: every score an integer.
GumbelFit fit_sample(const Tally& all, const CensorSpec& spec, bool integral) {
  if (spec.kind == CensorSpec::Kind::None || all.total == 0) return fit_observed(all, 0, 0);
  double phi = spec.value;
  if (spec.kind == CensorSpec::Kind::Quantile) {  // the k-th smallest score (0-based)
    const size_t k = std::min(all.total - 1, size_t(spec.value * double(all.total)));
    size_t below = 0, j = 0;
    while (below + size_t(all.count[j]) <= k) below += size_t(all.count[j++]);
    phi = all.value[j];
  }
  Tally obs;
  for (size_t j = 0; j < all.value.size(); ++j)
    if (all.value[j] >= phi) {
      obs.value.push_back(all.value[j]);
      obs.count.push_back(all.count[j]);
      obs.total += size_t(all.count[j]);
    }
  const size_t censored = all.total - obs.total;
  if (censored == 0) return fit_observed(all, 0, 0);
  // Continuity correction for integer scores (alignment scores): an integer k stands for the
  // continuous interval [k - 1/2, k + 1/2), so the censored scores (< phi) lie below phi - 1/2.
  // Without it, the tie mass at phi pulls lambda up by ~10% for lambda ~ 0.27.
  const double boundary = integral ? std::ceil(phi) - 0.5 : phi;
  return fit_observed(obs, censored, boundary);
}

}  // namespace

GumbelFit fit_gumbel_censored(const std::vector<double>& observed, size_t censored, double phi) {
  if (!all_finite(observed)) {
    GumbelFit fit = non_finite(observed.size());
    fit.censored = censored;
    fit.censor_point = phi;
    return fit;
  }
  return fit_observed(tally_of(observed), censored, phi);
}

GumbelFit fit_gumbel_complete(const std::vector<double>& x) { return fit_gumbel_censored(x, 0, 0); }

GumbelFit fit_gumbel(const std::vector<double>& sample, const CensorSpec& spec) {
  if (!all_finite(sample)) return non_finite(sample.size());
  const bool integral =
      std::all_of(sample.begin(), sample.end(), [](double x) { return x == std::floor(x); });
  return fit_sample(tally_of(sample), spec, integral);
}

GumbelFit fit_gumbel(const std::vector<int32_t>& sample, const CensorSpec& spec) {
  Tally t;
  t.total = sample.size();
  if (!sample.empty()) {
    const auto [lo, hi] = std::minmax_element(sample.begin(), sample.end());
    const int64_t range = int64_t(*hi) - int64_t(*lo) + 1;
    if (range > int64_t(4 * sample.size() + 1024))  // sparse: sort instead of counting
      return fit_sample(tally_of(std::vector<double>(sample.begin(), sample.end())), spec, true);
    std::vector<uint32_t> hist(size_t(range), 0);
    for (int32_t x : sample) ++hist[size_t(int64_t(x) - *lo)];
    for (size_t v = 0; v < hist.size(); ++v)
      if (hist[v]) {
        t.value.push_back(double(int64_t(*lo) + int64_t(v)));
        t.count.push_back(double(hist[v]));
      }
  }
  return fit_sample(t, spec, true);
}

CensorSpec CensorSpec::parse(const std::string& text) {
  CensorSpec c;
  auto number = [&](const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      throw Error("--censor: '" + text + "' is not none, median, quantile:F or score:X");
    return v;
  };
  if (text == "none") {
    c.kind = Kind::None;
    c.value = 0;
  } else if (text == "median") {
    c.kind = Kind::Quantile;
    c.value = 0.5;
  } else if (text.rfind("quantile:", 0) == 0) {
    c.kind = Kind::Quantile;
    c.value = number(text.substr(9));
    if (!(c.value >= 0 && c.value < 1)) throw Error("--censor quantile must lie in [0, 1): " + text);
  } else if (text.rfind("score:", 0) == 0) {
    c.kind = Kind::Score;
    c.value = number(text.substr(6));
  } else {
    number("");  // throws the usage message
  }
  return c;
}

std::string CensorSpec::describe() const {
  std::ostringstream os;
  os.precision(17);
  if (kind == Kind::None) return "none";
  if (kind == Kind::Quantile && value == 0.5) return "median";
  os << (kind == Kind::Quantile ? "quantile:" : "score:") << value;
  return os.str();
}

double gumbel_pdf(double x, double mu, double lambda) {
  const double y = lambda * (x - mu);
  return lambda * std::exp(-y - std::exp(-y));
}
double gumbel_cdf(double x, double mu, double lambda) { return std::exp(-std::exp(-lambda * (x - mu))); }
double gumbel_survival(double x, double mu, double lambda) { return -std::expm1(-std::exp(-lambda * (x - mu))); }
double gumbel_log_survival(double x, double mu, double lambda) {
  const double t = std::exp(-lambda * (x - mu));  // expected count above x
  // For small t, log(1 - e^-t) = log(t) + log1p(-t/2 + ...): use log(t) directly when e^-t
  // is indistinguishable from 1 - t, so the far tail stays finite.
  if (t < 1e-8) return -lambda * (x - mu) + std::log1p(-0.5 * t);
  return std::log(-std::expm1(-t));
}

}  // namespace hpc
