#pragma once
// Gumbel (type I extreme value) distribution: density, survival, and maximum-likelihood
// fits to complete and left-censored samples.
//
//   P(S > x) = 1 - exp(-exp(-lambda (x - mu)))
//
// Fitting follows Lawless (1982) as Easel's esl_gumbel_FitComplete / FitCensored do:
// Newton-Raphson on the ML equation for lambda (Lawless 4.1.6, or 4.2.2 with censoring),
// a bisection fallback when Newton does not converge in 100 steps, then mu in closed form
// (4.1.5 / 4.2.3). Scores are shifted by their mean before the exponentials so that
// exp(-lambda x) neither overflows nor underflows for large scores (Easel's noted weakness).
//
// Degenerate samples never yield silent NaNs: the result carries a status, and mu/lambda
// are 0 whenever status != Converged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hpc {

enum class GumbelStatus {
  Converged = 0,        // Newton-Raphson (or the bisection fallback) found the ML lambda
  TooFewSamples = 1,    // fewer than kMinGumbelSamples observed scores
  ZeroVariance = 2,     // every observed score equal: lambda is unbounded
  NonFinite = 3,        // a NaN or infinite score in the sample
  NoConvergence = 4,    // neither Newton-Raphson nor bisection found a root
};
const char* to_string(GumbelStatus s);

constexpr size_t kMinGumbelSamples = 10;

struct GumbelFit {
  double mu = 0;
  double lambda = 0;
  GumbelStatus status = GumbelStatus::NoConvergence;
  bool used_bisection = false;  // Newton-Raphson failed and bisection found the root
  int iterations = 0;
  size_t observed = 0;          // scores used as exact values
  size_t censored = 0;          // scores known only to lie below censor_point
  double censor_point = 0;      // meaningful when censored > 0
  bool converged() const { return status == GumbelStatus::Converged; }
};

// Where to censor a sample (left censoring: scores below the point count only as "below").
// Default: the median. The lower half of a permuted-score sample is the least Gumbel-like
// part (scores pile up on a few small integers near the local-alignment floor of 0), while
// P-values are read in the upper tail; censoring the lower half fits the tail that matters,
// at a small cost in precision (with N = 1000 the standard error of lambda grows from ~2.5%
// to ~3.5%). `none` gives the complete-data fit.
struct CensorSpec {
  enum class Kind { None, Quantile, Score };
  Kind kind = Kind::Quantile;
  double value = 0.5;
  // "none", "median", "quantile:F" (0 <= F < 1), "score:X". Throws hpc::Error otherwise.
  static CensorSpec parse(const std::string& text);
  std::string describe() const;  // round-trips through parse()
};

GumbelFit fit_gumbel_complete(const std::vector<double>& x);
// `observed` are the exact scores (all >= phi), `censored` the count of scores < phi.
GumbelFit fit_gumbel_censored(const std::vector<double>& observed, size_t censored, double phi);
// Applies `spec` to a full sample: censor point phi (the quantile's score value, or the
// given score); scores >= phi are observed, the others censored. With Kind::None, or when
// nothing falls below phi, this is the complete fit. When every score is an integer (alignment
// scores), the censored scores are taken to lie below ceil(phi) - 1/2 (continuity correction).
GumbelFit fit_gumbel(const std::vector<double>& sample, const CensorSpec& spec);
// The same for integer scores (alignment scores; the continuity correction applies), counted
// instead of sorted: the fit's sums run over the distinct scores.
GumbelFit fit_gumbel(const std::vector<int32_t>& sample, const CensorSpec& spec);

double gumbel_pdf(double x, double mu, double lambda);
double gumbel_cdf(double x, double mu, double lambda);
// P(S > x), accurate in the far tail (-expm1 instead of 1 - exp).
double gumbel_survival(double x, double mu, double lambda);
// log P(S > x), finite even where the survival underflows to 0.
double gumbel_log_survival(double x, double mu, double lambda);

}  // namespace hpc
