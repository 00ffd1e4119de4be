#pragma once
// Karlin-Altschul statistics for gapped local alignment scores.
//   bits = (lambda * S - ln K) / ln 2
//   E    = K * m * n * exp(-lambda * S)   (m = query length, n = database residues)
// This is `--stats ka`: no edge-length correction, E uses the raw lengths. Other statistics
// (BLAST's finite-size correction, composition-based lambda) are in src/stats/search_statistics.hpp.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "src/core/scoring.hpp"

namespace hpc {

struct KarlinParams {
  double lambda = 0;
  double K = 0;
  double H = 0;  // relative entropy (0 when unknown, e.g. user-given parameters)
};

// Published gapped parameters (NCBI BLAST's tables) for a built-in matrix name and gap
// costs; nullopt when the combination is not in the tables.
std::optional<KarlinParams> published_gapped_params(const std::string& matrix, GapCosts gaps);
// Parameters of Spouge's finite-size correction as BLAST loads them (Blast_GumbelBlk): the
// mean length of an alignment of score y is a*y + b, its variance alpha*y + beta and the
// covariance of its two lengths sigma*y + tau (Altschul et al. 2001; Park, Sheetlin and Spouge 2012).
struct FiniteSizeParams {
  double lambda = 0, K = 0;  // gapped
  double a = 0, b = 0, alpha = 0, beta = 0, sigma = 0, tau = 0;
  double ungapped_lambda = 0;  // the matrix's ungapped lambda (standard background)
};
std::optional<FiniteSizeParams> published_finite_size_params(const std::string& matrix, GapCosts gaps);
// The gap costs the tables know for a matrix (for error messages).
std::vector<GapCosts> supported_gap_costs(const std::string& matrix);
// The parameters a run uses: the user's --lambda/--K when given (validated by the CLI's
// ScoringGroup), else the published ones; nullopt when the tables lack the pair.
std::optional<KarlinParams> run_karlin_params(const std::string& matrix, GapCosts gaps, std::optional<double> lambda,
                                              std::optional<double> K);
// "no published Karlin-Altschul parameters for M with gap costs o/e; known: ..." (the error
// of a run that needs them and has none).
std::string no_published_params(const std::string& matrix, GapCosts gaps);

// Ungapped lambda, K and H of a score distribution: probs[i] is P(score = low + i) (summing
// to 1, a negative mean and some positive score). K by Karlin and Altschul's series (PNAS
// 1990;87:2264, as BLAST's BlastKarlinLHtoK sums it, to terms below 1e-4). nullopt when the
// distribution has no positive lambda.
std::optional<KarlinParams> ungapped_karlin(const std::vector<double>& probs, int low);

double bit_score(const KarlinParams& p, int score);
double evalue(const KarlinParams& p, int score, double query_length, double db_residues);
// evalue's two factors: e^{-lambda S}, which depends on the score alone (a screen computes it
// once a score), and the E-value from it, identical to evalue's.
inline double score_decay(const KarlinParams& p, int score) { return std::exp(-p.lambda * score); }
inline double evalue_from_decay(const KarlinParams& p, double query_length, double db_residues, double decay) {
  return p.K * query_length * db_residues * decay;
}
// Smallest score whose E-value is <= max_evalue (scores below it are not reported).
int min_score_for_evalue(const KarlinParams& p, double max_evalue, double query_length, double db_residues);

}  // namespace hpc
