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

// The sample after shifting by its observed mean (mu is shift-equivariant, lambda invariant).
struct ShiftedSample {
  std::vector<double> y;  // observed scores minus shift
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
  double c = -lambda * *std::min_element(s.y.begin(), s.y.end());
  if (s.z > 0) c = std::max(c, -lambda * s.phi);
  double a = 0, b = 0, cc = 0;
  for (double y : s.y) {
    const double w = std::exp(-lambda * y - c);
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
  for (double y : s.y) var += (y - s.mean) * (y - s.mean);
  var /= double(s.y.size() - 1);
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
  fit.mu = s.shift - (log_a - std::log(double(s.y.size()))) / lambda;
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

GumbelFit fit_gumbel_censored(const std::vector<double>& observed, size_t censored, double phi) {
  GumbelFit fit;
  fit.observed = observed.size();
  fit.censored = censored;
  fit.censor_point = phi;
  for (double x : observed)
    if (!std::isfinite(x)) {
      fit.status = GumbelStatus::NonFinite;
      return fit;
    }
  if (censored > 0 && !std::isfinite(phi)) {
    fit.status = GumbelStatus::NonFinite;
    return fit;
  }
  if (observed.size() < kMinGumbelSamples) {
    fit.status = GumbelStatus::TooFewSamples;
    return fit;
  }
  const auto [lo, hi] = std::minmax_element(observed.begin(), observed.end());
  if (*lo == *hi) {
    fit.status = GumbelStatus::ZeroVariance;
    return fit;
  }
  if (censored > 0 && *lo < phi)
    throw Error("internal: censored Gumbel fit given an observed score below the censor point");
  ShiftedSample s;
  double sum = 0;
  for (double x : observed) sum += x;
  s.shift = sum / double(observed.size());
  s.y.reserve(observed.size());
  for (double x : observed) s.y.push_back(x - s.shift);
  for (double y : s.y) s.mean += y;
  s.mean /= double(s.y.size());
  s.z = double(censored);
  s.phi = phi - s.shift;
  return fit_shifted(s, fit);
}

GumbelFit fit_gumbel_complete(const std::vector<double>& x) { return fit_gumbel_censored(x, 0, 0); }

GumbelFit fit_gumbel(const std::vector<double>& sample, const CensorSpec& spec) {
  if (spec.kind == CensorSpec::Kind::None) return fit_gumbel_complete(sample);
  for (double x : sample)
    if (!std::isfinite(x)) return fit_gumbel_complete(sample);  // flags NonFinite
  double phi = spec.value;
  if (spec.kind == CensorSpec::Kind::Quantile) {
    if (sample.empty()) return fit_gumbel_complete(sample);
    std::vector<double> sorted(sample);
    const size_t k = std::min(sorted.size() - 1, size_t(spec.value * double(sorted.size())));
    std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end());
    phi = sorted[k];
  }
  std::vector<double> observed;
  bool integral = true;
  for (double x : sample) {
    if (x >= phi) observed.push_back(x);
    integral = integral && x == std::floor(x);
  }
  const size_t censored = sample.size() - observed.size();
  if (censored == 0) return fit_gumbel_complete(sample);
  // Continuity correction for integer scores (alignment scores): an integer k stands for the
  // continuous interval [k - 1/2, k + 1/2), so the censored scores (< phi) lie below phi - 1/2.
  // Without it, the tie mass at phi pulls lambda up by ~10% for lambda ~ 0.27.
  const double boundary = integral ? std::ceil(phi) - 0.5 : phi;
  return fit_gumbel_censored(observed, censored, boundary);
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
