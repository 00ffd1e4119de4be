#pragma once
// Karlin-Altschul statistics for gapped local alignment scores.
//   bits = (lambda * S - ln K) / ln 2
//   E    = K * m * n * exp(-lambda * S)   (m = query length, n = database residues)
// No edge-length correction: E uses the raw lengths (one simple rule for every workload and
// backend), so our E-values are slightly more conservative than BLAST's for short sequences.
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
// The gap costs the tables know for a matrix (for error messages).
std::vector<GapCosts> supported_gap_costs(const std::string& matrix);

double bit_score(const KarlinParams& p, int score);
double evalue(const KarlinParams& p, int score, double query_length, double db_residues);
// Smallest score whose E-value is <= max_evalue (scores below it are not reported).
int min_score_for_evalue(const KarlinParams& p, double max_evalue, double query_length, double db_residues);

}  // namespace hpc
