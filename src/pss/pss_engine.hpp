#pragma once
// Pairwise statistical significance (PSS) of one query-subject pair from that pair alone:
// permute the subject N times, score the query against every permuted copy, fit a Gumbel to
// the N scores (src/stats/gumbel.hpp) and read the P-value of the real score:
//   K = exp(lambda mu) / (m n),   P = 1 - exp(-K m n e^(-lambda x)) = -expm1(-e^(-lambda (x - mu)))
// The engines (kernels/pss_engine.hpp) compute it: permutations come from src/pss/permute.hpp
// (pure function of seed, subject index, k), scores are exact.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "src/align/profile_reference.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "src/stats/gumbel.hpp"

namespace hpc {

struct PssParams {
  ScoreMatrix matrix;
  GapCosts gaps;
  uint32_t permutations = 1000;
  uint64_t seed = 42;
  CensorSpec censor;
  bool keep_scores = false;
};

struct PssPairResult {
  uint32_t query = 0, target = 0;
  int32_t score = 0;      // real (unpermuted) local score
  GumbelFit fit;
  double K = 0;           // exp(lambda mu) / (m n); 0 when the fit failed
  double pvalue = 0;      // NaN when the fit failed (flagged by fit.status)
  double log10_pvalue = 0;  // finite where pvalue underflows to 0
  uint32_t n_perm = 0;
  std::vector<int32_t> permuted_scores;  // kept only with PssParams::keep_scores
};

// Fills fit, K, pvalue, log10_pvalue from the real score and the permuted scores.
void pss_statistics(PssPairResult& r, uint32_t query_length, uint32_t subject_length,
                    const std::vector<int32_t>& permuted, const CensorSpec& censor);

}  // namespace hpc
