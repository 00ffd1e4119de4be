#include "src/stats/finite_size.hpp"

#include <algorithm>
#include <cmath>

namespace hpc {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Expected length left on one sequence of length len after the edge effect of a score-y
// alignment: E[(len - L)^+] with L ~ Normal(a*y + b, var), and P(L < len).
struct EdgeTerm {
  double area_factor, probability;
};
EdgeTerm edge_term(double len, double y, double a, double b, double var) {
  constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;
  const double left = len - (a * y + b);
  const double sd = std::sqrt(var);
  const double z = left / sd;
  const double p = normal_cdf(z);
  return {left * p + sd * kInvSqrt2Pi * std::exp(-0.5 * z * z), p};
}

}  // namespace

double finite_size_evalue(const FiniteSizeParams& p, double y, double m, double n, double db_residues) {
  const double var = std::max(2.0 * p.alpha / p.lambda, p.alpha * y + p.beta);
  const EdgeTerm qi = edge_term(m, y, p.a, p.b, var);
  const EdgeTerm sj = edge_term(n, y, p.a, p.b, var);  // symmetric matrices: same parameters
  const double cov = std::max(2.0 * p.sigma / p.lambda, p.sigma * y + p.tau);
  const double area = qi.area_factor * sj.area_factor + cov * qi.probability * sj.probability;
  return area * p.K * std::exp(-p.lambda * y) * (db_residues / n);
}

}  // namespace hpc
