#pragma once
// `search --rescore N`: the top N hits of each query get permutation E-values, through the pss
// machinery (src/pss/pss_engine.hpp, kernels/pss_engine.hpp): the hit's subject is shuffled
// --rescore-shuffles times, the query aligned to every copy, a Gumbel fitted to those scores
// by censored maximum likelihood (median-censored), and E = P(real score) x database
// sequences (Agrawal A, Brendel VP, Huang X. Int J Comput Biol Drug Des 2008;1:347-367;
// reordering database hits by it: Agrawal A, Huang X. Bioinformatics 2009;25:1082-1083).
// Shuffle k of subject t is a pure function of (seed, t, k) (src/pss/permute.hpp) and the CPU
// and CUDA engines score and fit identically, so a pair's E-value is a function of the pair:
// the same on any backend, tiling, rank count or resume.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/pss_engine.hpp"
#include "src/core/alignment.hpp"

namespace hpc {

struct RescoreSettings {
  uint32_t top = 0;          // hits per query rescored (0: none)
  uint32_t shuffles = 1000;  // shuffled copies of each subject
  uint64_t seed = 42;
};

// The --rescore paragraph of `search --help` (the method and its references).
const char* rescore_help();

class HitRescorer {
 public:
  // One worker's rescorer: pss engines of its kind over the search's queries and database.
  HitRescorer(const RescoreSettings& settings, const SearchSetup& setup, BackendKind kind, int device, int threads);
  // Replaces the E-values of each query's first settings.top hits, ranked by E-value (then
  // score descending, then target); a pair whose fit fails keeps its E-value.
  void rescore(std::vector<Hit>& hits) const;

 private:
  using SubjectGroup = std::pair<uint32_t, std::vector<size_t>>;  // a subject and its hits
  // Engine `part`'s share of the groups (every engines_.size()-th).
  void rescore_groups(size_t part, const std::vector<SubjectGroup>& groups, std::vector<Hit>& hits) const;

  RescoreSettings settings_;
  double db_sequences_;
  std::vector<std::unique_ptr<PssEngine>> engines_;  // one per thread on the CPU, one on a GPU
};

}  // namespace hpc
