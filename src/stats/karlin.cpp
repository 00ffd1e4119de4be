#include "src/stats/karlin.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

namespace hpc {
namespace {

constexpr int kUngapped = -1;  // the matrix's ungapped row (gap costs "infinite")

struct Row {
  const char* matrix;
  int open, extend;
  double lambda, K, H;
  double alpha, beta;       // mean alignment length: alpha * S + beta (Altschul et al. 2001)
  double alpha_v, sigma;    // Spouge's variance and covariance slopes of that length
};

// NCBI BLAST's blast_stat.c tables (published values; its C column is not used here).
constexpr Row kTable[] = {
    {"BLOSUM45", kUngapped, kUngapped, 0.2291, 0.0924, 0.2514, 0.9113, -5.7, 9.611060, 9.611060},
    {"BLOSUM45", 13, 3, 0.207, 0.049, 0.14, 1.5, -22, 35.855900, 35.963900},
    {"BLOSUM45", 12, 3, 0.199, 0.039, 0.11, 1.8, -34, 45.693600, 45.851700},
    {"BLOSUM45", 11, 3, 0.190, 0.031, 0.095, 2.0, -38, 62.874100, 63.103700},
    {"BLOSUM45", 10, 3, 0.179, 0.023, 0.075, 2.4, -51, 88.286800, 88.639100},
    {"BLOSUM45", 16, 2, 0.210, 0.051, 0.14, 1.5, -24, 36.279800, 36.452400},
    {"BLOSUM45", 15, 2, 0.203, 0.041, 0.12, 1.7, -31, 44.825700, 45.060400},
    {"BLOSUM45", 14, 2, 0.195, 0.032, 0.10, 1.9, -36, 60.736200, 61.102300},
    {"BLOSUM45", 13, 2, 0.185, 0.024, 0.084, 2.2, -45, 85.148100, 85.689400},
    {"BLOSUM45", 12, 2, 0.171, 0.016, 0.061, 2.8, -65, 127.758000, 128.582000},
    {"BLOSUM45", 19, 1, 0.205, 0.040, 0.11, 1.9, -43, 53.071400, 53.828200},
    {"BLOSUM45", 18, 1, 0.198, 0.032, 0.10, 2.0, -43, 72.342400, 73.403900},
    {"BLOSUM45", 17, 1, 0.189, 0.024, 0.079, 2.4, -57, 103.055000, 104.721000},
    {"BLOSUM45", 16, 1, 0.176, 0.016, 0.063, 2.8, -67, 170.100000, 173.003000},
    {"BLOSUM50", kUngapped, kUngapped, 0.2318, 0.112, 0.3362, 0.6895, -4.0, 5.388310, 5.388310},
    {"BLOSUM50", 13, 3, 0.212, 0.063, 0.19, 1.1, -16, 18.113800, 18.202800},
    {"BLOSUM50", 12, 3, 0.206, 0.055, 0.17, 1.2, -18, 22.654600, 22.777700},
    {"BLOSUM50", 11, 3, 0.197, 0.042, 0.14, 1.4, -25, 29.861100, 30.045700},
    {"BLOSUM50", 10, 3, 0.186, 0.031, 0.11, 1.7, -34, 42.393800, 42.674000},
    {"BLOSUM50", 9, 3, 0.172, 0.022, 0.082, 2.1, -48, 66.069600, 66.516400},
    {"BLOSUM50", 16, 2, 0.215, 0.066, 0.20, 1.05, -15, 17.951800, 18.092100},
    {"BLOSUM50", 15, 2, 0.210, 0.058, 0.17, 1.2, -20, 21.940100, 22.141800},
    {"BLOSUM50", 14, 2, 0.202, 0.045, 0.14, 1.4, -27, 28.681200, 28.961900},
    {"BLOSUM50", 13, 2, 0.193, 0.035, 0.12, 1.6, -32, 42.059500, 42.471600},
    {"BLOSUM50", 12, 2, 0.181, 0.025, 0.095, 1.9, -41, 63.747600, 64.397300},
    {"BLOSUM50", 19, 1, 0.212, 0.057, 0.18, 1.2, -21, 26.311200, 26.923300},
    {"BLOSUM50", 18, 1, 0.207, 0.050, 0.15, 1.4, -28, 34.903700, 35.734800},
    {"BLOSUM50", 17, 1, 0.198, 0.037, 0.12, 1.6, -33, 48.895800, 50.148600},
    {"BLOSUM50", 16, 1, 0.186, 0.025, 0.10, 1.9, -42, 76.469100, 78.443000},
    {"BLOSUM50", 15, 1, 0.171, 0.015, 0.063, 2.7, -76, 140.053000, 144.160000},
    {"BLOSUM62", kUngapped, kUngapped, 0.3176, 0.134, 0.4012, 0.7916, -3.2, 4.964660, 4.964660},
    {"BLOSUM62", 11, 2, 0.297, 0.082, 0.27, 1.1, -10, 12.673800, 12.757600},
    {"BLOSUM62", 10, 2, 0.291, 0.075, 0.23, 1.3, -15, 16.474000, 16.602600},
    {"BLOSUM62", 9, 2, 0.279, 0.058, 0.19, 1.5, -19, 22.751900, 22.950000},
    {"BLOSUM62", 8, 2, 0.264, 0.045, 0.15, 1.8, -26, 35.483800, 35.821300},
    {"BLOSUM62", 7, 2, 0.239, 0.027, 0.10, 2.5, -46, 61.238300, 61.886000},
    {"BLOSUM62", 6, 2, 0.201, 0.012, 0.061, 3.3, -58, 140.417000, 141.882000},
    {"BLOSUM62", 13, 1, 0.292, 0.071, 0.23, 1.2, -11, 19.506300, 19.893100},
    {"BLOSUM62", 12, 1, 0.283, 0.059, 0.19, 1.5, -19, 27.856200, 28.469900},
    {"BLOSUM62", 11, 1, 0.267, 0.041, 0.14, 1.9, -30, 42.602800, 43.636200},
    {"BLOSUM62", 10, 1, 0.243, 0.024, 0.10, 2.5, -44, 83.178700, 85.065600},
    {"BLOSUM62", 9, 1, 0.206, 0.010, 0.052, 4.0, -87, 210.333000, 214.842000},
    {"BLOSUM80", kUngapped, kUngapped, 0.3430, 0.177, 0.6568, 0.5222, -1.6, 1.918130, 1.918130},
    {"BLOSUM80", 25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 1.731000, 1.731300},
    {"BLOSUM80", 13, 2, 0.336, 0.15, 0.57, 0.59, -3, 2.673470, 2.692300},
    {"BLOSUM80", 9, 2, 0.319, 0.11, 0.42, 0.76, -6, 5.576090, 5.667860},
    {"BLOSUM80", 8, 2, 0.308, 0.090, 0.35, 0.89, -9, 7.536950, 7.686230},
    {"BLOSUM80", 7, 2, 0.293, 0.070, 0.27, 1.1, -14, 11.586600, 11.840400},
    {"BLOSUM80", 6, 2, 0.268, 0.045, 0.19, 1.4, -19, 19.958100, 20.441200},
    {"BLOSUM80", 11, 1, 0.314, 0.095, 0.35, 0.90, -9, 8.808610, 9.223320},
    {"BLOSUM80", 10, 1, 0.299, 0.071, 0.27, 1.1, -14, 13.833800, 14.533400},
    {"BLOSUM80", 9, 1, 0.279, 0.048, 0.20, 1.4, -19, 24.252000, 25.490400},
    {"BLOSUM90", kUngapped, kUngapped, 0.3346, 0.190, 0.7547, 0.4434, -1.4, 1.377760, 1.377760},
    {"BLOSUM90", 9, 2, 0.310, 0.12, 0.46, 0.67, -6, 4.232290, 4.334170},
    {"BLOSUM90", 8, 2, 0.300, 0.099, 0.39, 0.76, -7, 5.797020, 5.961420},
    {"BLOSUM90", 7, 2, 0.283, 0.072, 0.30, 0.93, -11, 9.040880, 9.321600},
    {"BLOSUM90", 6, 2, 0.259, 0.048, 0.22, 1.2, -16, 16.024400, 16.531600},
    {"BLOSUM90", 11, 1, 0.302, 0.093, 0.39, 0.78, -8, 7.143250, 7.619190},
    {"BLOSUM90", 10, 1, 0.290, 0.075, 0.28, 1.04, -15, 11.483900, 12.269800},
    {"BLOSUM90", 9, 1, 0.265, 0.044, 0.20, 1.3, -19, 21.408300, 22.840900},
    {"PAM250", kUngapped, kUngapped, 0.2252, 0.0868, 0.2223, 0.98, -5.0, 11.754300, 11.754300},
    {"PAM250", 15, 3, 0.205, 0.049, 0.13, 1.6, -23, 34.578400, 34.928000},
    {"PAM250", 14, 3, 0.200, 0.043, 0.12, 1.7, -26, 43.353000, 43.443800},
    {"PAM250", 13, 3, 0.194, 0.036, 0.10, 1.9, -31, 50.948500, 51.081700},
    {"PAM250", 12, 3, 0.186, 0.029, 0.085, 2.2, -41, 69.606500, 69.793600},
    {"PAM250", 11, 3, 0.174, 0.020, 0.070, 2.5, -48, 98.653500, 98.927100},
    {"PAM250", 17, 2, 0.204, 0.047, 0.12, 1.7, -28, 41.583800, 41.735800},
    {"PAM250", 16, 2, 0.198, 0.038, 0.11, 1.8, -29, 51.635200, 51.843900},
    {"PAM250", 15, 2, 0.191, 0.031, 0.087, 2.2, -44, 67.256700, 67.558500},
    {"PAM250", 14, 2, 0.182, 0.024, 0.073, 2.5, -53, 96.315100, 96.756800},
    {"PAM250", 13, 2, 0.171, 0.017, 0.059, 2.9, -64, 135.653000, 136.339000},
    {"PAM250", 21, 1, 0.205, 0.045, 0.11, 1.8, -34, 48.728200, 49.218800},
    {"PAM250", 20, 1, 0.199, 0.037, 0.10, 1.9, -35, 60.832000, 61.514100},
    {"PAM250", 19, 1, 0.192, 0.029, 0.083, 2.3, -52, 84.019700, 84.985600},
    {"PAM250", 18, 1, 0.183, 0.021, 0.070, 2.6, -60, 113.829000, 115.184000},
    {"PAM250", 17, 1, 0.171, 0.014, 0.052, 3.3, -86, 175.071000, 177.196000},
    {"PAM30", kUngapped, kUngapped, 0.3400, 0.283, 1.754, 0.1938, -0.3, 0.161818, 0.161818},
    {"PAM30", 7, 2, 0.305, 0.15, 0.87, 0.35, -3, 1.014010, 1.162730},
    {"PAM30", 6, 2, 0.287, 0.11, 0.68, 0.42, -4, 1.688060, 1.951430},
    {"PAM30", 5, 2, 0.264, 0.079, 0.45, 0.59, -7, 3.377010, 3.871950},
    {"PAM30", 10, 1, 0.309, 0.15, 0.88, 0.35, -3, 1.372050, 1.788770},
    {"PAM30", 9, 1, 0.294, 0.11, 0.61, 0.48, -6, 2.463920, 3.186150},
    {"PAM30", 8, 1, 0.270, 0.072, 0.40, 0.68, -10, 5.368130, 6.763480},
    {"PAM70", kUngapped, kUngapped, 0.3345, 0.229, 1.029, 0.3250, -0.7, 0.633439, 0.633439},
    {"PAM70", 8, 2, 0.301, 0.12, 0.54, 0.56, -5, 2.881650, 3.025710},
    {"PAM70", 7, 2, 0.286, 0.093, 0.43, 0.67, -7, 4.534540, 4.785780},
    {"PAM70", 6, 2, 0.264, 0.064, 0.29, 0.90, -12, 7.942630, 8.402720},
    {"PAM70", 11, 1, 0.305, 0.12, 0.52, 0.59, -6, 3.681400, 4.108020},
    {"PAM70", 10, 1, 0.291, 0.091, 0.41, 0.71, -9, 6.002970, 6.716570},
    {"PAM70", 9, 1, 0.270, 0.060, 0.28, 0.97, -14, 11.360800, 12.636700},
};

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const Row* find_row(const std::string& upper_matrix, int open, int extend) {
  for (const Row& r : kTable)
    if (upper_matrix == r.matrix && r.open == open && r.extend == extend) return &r;
  return nullptr;
}

}  // namespace

std::optional<FiniteSizeParams> published_finite_size_params(const std::string& matrix, GapCosts gaps) {
  const std::string m = upper(matrix);
  const Row* g = find_row(m, gaps.open, gaps.extend);
  const Row* u = find_row(m, kUngapped, kUngapped);
  if (!g || !u) return std::nullopt;
  // Blast_GumbelBlkLoadFromTables: the intercepts come from the gapped-ungapped differences.
  const double G = gaps.open + gaps.extend;
  FiniteSizeParams p;
  p.lambda = g->lambda;
  p.K = g->K;
  p.a = g->alpha;
  p.alpha = g->alpha_v;
  p.sigma = g->sigma;
  p.b = 2 * G * (u->alpha - g->alpha);
  p.beta = 2 * G * (u->alpha_v - g->alpha_v);
  p.tau = 2 * G * (u->alpha_v - g->sigma);
  p.ungapped_lambda = u->lambda;
  return p;
}

std::optional<KarlinParams> published_gapped_params(const std::string& matrix, GapCosts gaps) {
  const std::string m = upper(matrix);
  const Row* r = find_row(m, gaps.open, gaps.extend);
  if (!r) return std::nullopt;
  return KarlinParams{r->lambda, r->K, r->H};
}

std::vector<GapCosts> supported_gap_costs(const std::string& matrix) {
  const std::string m = upper(matrix);
  std::vector<GapCosts> out;
  for (const Row& r : kTable)
    if (m == r.matrix && r.open != kUngapped) out.push_back({r.open, r.extend});
  return out;
}

std::optional<KarlinParams> run_karlin_params(const std::string& matrix, GapCosts gaps, std::optional<double> lambda,
                                              std::optional<double> K) {
  if (lambda && K) return KarlinParams{*lambda, *K, 0};
  return published_gapped_params(matrix, gaps);
}

std::string no_published_params(const std::string& matrix, GapCosts gaps) {
  std::string known;
  for (GapCosts c : supported_gap_costs(matrix)) known += " " + std::to_string(c.open) + "/" + std::to_string(c.extend);
  return "no published Karlin-Altschul parameters for " + matrix + " with gap costs " + std::to_string(gaps.open) + "/" +
         std::to_string(gaps.extend) + (known.empty() ? std::string(" (matrix not in the tables)") : "; known:" + known);
}

std::optional<KarlinParams> ungapped_karlin(const std::vector<double>& probs, int low) {
  const int high = low + int(probs.size()) - 1;
  double mean = 0;
  for (size_t i = 0; i < probs.size(); ++i) mean += (low + int(i)) * probs[i];
  if (!(mean < 0) || high <= 0 || low >= 0) return std::nullopt;
  // lambda: the positive root of sum p_s e^(lambda s) = 1 (convex, negative slope at 0).
  auto phi = [&](double l) {
    double sum = 0;
    for (size_t i = 0; i < probs.size(); ++i) sum += probs[i] * std::exp(l * (low + int(i)));
    return sum - 1;
  };
  double lo = 0, hi = 0.5;
  while (phi(hi) < 0) lo = hi, hi *= 2;
  for (int k = 0; k < 200 && hi - lo > 1e-15 * hi; ++k) {
    const double mid = 0.5 * (lo + hi);
    (phi(mid) < 0 ? lo : hi) = mid;
  }
  KarlinParams p;
  p.lambda = 0.5 * (lo + hi);
  for (size_t i = 0; i < probs.size(); ++i) p.H += (low + int(i)) * probs[i] * std::exp(p.lambda * (low + int(i)));
  p.H *= p.lambda;
  // The scores' lattice span d: K = d lambda e^(-2 sigma) / (H (1 - e^(-d lambda))), with
  // sigma = sum_k (1/k) [E(e^(lambda S_k); S_k < 0) + P(S_k >= 0)] over the k-step sums S_k.
  int span = 0;
  for (size_t i = 0; i < probs.size(); ++i)
    if (probs[i] > 0) span = std::gcd(span, std::abs(low + int(i)));
  std::vector<double> walk{1.0};  // P(S_k = k low + i)
  double sigma = 0;
  for (int k = 1; k <= 100; ++k) {
    std::vector<double> next(walk.size() + probs.size() - 1, 0.0);
    for (size_t a = 0; a < walk.size(); ++a)
      for (size_t b = 0; b < probs.size(); ++b) next[a + b] += walk[a] * probs[b];
    walk.swap(next);
    double term = 0;
    for (size_t i = 0; i < walk.size(); ++i) {
      const int s = k * low + int(i);
      term += s < 0 ? walk[i] * std::exp(p.lambda * s) : walk[i];
    }
    sigma += term / k;
    if (term < 1e-4) break;
  }
  p.K = span * p.lambda * std::exp(-2 * sigma) / (p.H * (1 - std::exp(-span * p.lambda)));
  return p;
}

double bit_score(const KarlinParams& p, int score) { return (p.lambda * score - std::log(p.K)) / std::log(2.0); }

double evalue(const KarlinParams& p, int score, double query_length, double db_residues) {
  return evalue_from_decay(p, query_length, db_residues, score_decay(p, score));
}

int min_score_for_evalue(const KarlinParams& p, double max_evalue, double query_length, double db_residues) {
  // Solve K m n e^{-lambda S} <= E for S, then step to the exact integer boundary.
  double s = std::log(p.K * query_length * db_residues / max_evalue) / p.lambda;
  int guess = static_cast<int>(std::floor(std::max(1.0, s))) - 1;
  if (guess < 1) guess = 1;
  while (evalue(p, guess, query_length, db_residues) > max_evalue) ++guess;
  while (guess > 1 && evalue(p, guess - 1, query_length, db_residues) <= max_evalue) --guess;
  return guess;
}

}  // namespace hpc
