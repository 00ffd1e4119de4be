#pragma once
// Pairwise statistical significance (PSS) of one query-subject pair from that pair alone:
// permute the subject N times, score the query against every permuted copy, fit a Gumbel to
// the N scores (src/stats/gumbel.hpp) and read the P-value of the real score:
//   K = exp(lambda mu) / (m n),   P = 1 - exp(-K m n e^(-lambda x)) = -expm1(-e^(-lambda (x - mu)))
// The CPU engine here is the reference twin of any device path: permutations come from
// src/pss/permute.hpp (pure function of seed, subject index, k), scores are exact.
#include <cstdint>
#include <memory>
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

// Scores pairs on the CPU (SIMD). With a profile (PSSM), `queries` must hold exactly the
// profile's query. One engine per thread.
class PssCpuEngine {
 public:
  PssCpuEngine(const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
               const QueryProfile* profile = nullptr);
  ~PssCpuEngine();
  DeviceCapacity capacity() const;
  // Every query of `queries` against subject `subject` (index in `subjects`): the subject's N
  // permutations are generated once and shared by all the queries.
  std::vector<PssPairResult> run(const std::vector<uint32_t>& queries, uint32_t subject);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpc
