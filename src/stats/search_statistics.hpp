#pragma once
// The E-values of `hpcalign search` (--stats): which statistics turn a hit's raw score into
// its bit score and E-value.
//   ka     Karlin-Altschul with NCBI's gapped lambda and K, search space = query length x
//          database residues (Karlin S, Altschul SF. PNAS 1990;87:2264-2268).
//   blast  blastp's E-value (-comp_based_stats 0): the same lambda and K with Spouge's
//          finite-size correction per subject (src/stats/finite_size.hpp).
//   comp   blast's statistics on the score rescaled by composition-based lambda, BLAST's
//          mode 1 (src/stats/composition.hpp), computed on the reported hits only.
//   regress ssearch36's statistics: each query's own fit of score vs ln(subject length) on a
//          sample of the database (src/stats/length_regression.hpp, query_calibration.hpp),
//          made inside the search's tiles and passed in here; a query whose fit fails (too
//          few scores) falls back to blast.
//   regress-comp  regress on comp's rescaled score (the fit on raw scores, the hit's score
//          scaled by its pair's composition-based lambda ratio); its fallback is comp.
//   regress-qcomp  regress, each query's E-values times one factor of its own: the geometric
//          mean of E_regress-comp / E_regress over the upper half of its calibration sample
//          (query_calibration.hpp). Both E-values come from the query's one fit, so the factor
//          is the typical effect of composition rescaling on that query's significance alone:
//          an effective number of subjects that carries it into the pooled order while the
//          order within the query stays regress's; falls back to blast.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "io/database.hpp"
#include "src/stats/composition.hpp"
#include "src/stats/karlin.hpp"
#include "src/stats/length_regression.hpp"

namespace hpc {

enum class StatsMode { Ka, Blast, Comp, Regress, RegressComp, RegressQcomp };
// regress, regress-comp and regress-qcomp: each query's length regression (query_calibration.hpp).
inline bool fits_regression(StatsMode m) {
  return m == StatsMode::Regress || m == StatsMode::RegressComp || m == StatsMode::RegressQcomp;
}

// What a query's calibration gives the statistics: its length regression and, for
// regress-qcomp, ln of the factor on all its E-values (0 for the other modes).
struct QueryFit {
  LengthRegression regression;
  double log_shift = 0;
};
StatsMode parse_stats_mode(const std::string& name);  // throws hpc::Error naming the choices
const char* to_string(StatsMode mode);
// The --stats paragraph of `search --help` (choices and their references).
const char* stats_modes_help();

class SearchStatistics {
 public:
  SearchStatistics() = default;
  // `karlin`: the lambda and K in use (published or --lambda/--K); blast and comp need the
  // published finite-size parameters of the matrix and gap costs (throws hpc::Error if none);
  // so does regress (its fallback).
  SearchStatistics(StatsMode mode, const ScoreMatrix& matrix, GapCosts gaps, const KarlinParams& karlin,
                   const Database& db);
  StatsMode mode() const { return mode_; }
  // Whether annotate() reads the hit's alignment (comp's rescaled score), not only its score.
  bool reads_alignments() const { return mode_ == StatsMode::Comp || mode_ == StatsMode::RegressComp; }
  // The lowest raw score that can reach max_evalue for a query of this length against any
  // subject (a lower bound: annotate() decides each hit); for regress, blast's (the fallback).
  int32_t min_score(uint32_t query_length, double max_evalue);
  // The same bound from a regress fit (fit.regression.ok).
  int32_t min_score(const QueryFit& fit, double max_evalue) const;
  // Sets h.bits and h.evalue from h.aln (score and CIGAR) and the two sequences; regress
  // uses `fit` (the query's) when it is given and ok, else blast.
  void annotate(Hit& h, SeqView query, SeqView target, const QueryFit* fit = nullptr) const;
  // regress-qcomp's term for one aligned pair (h.aln) of a query with an ok fit: ln(E_regress-comp
  // / E_regress), the fit read at comp's rescaled and at the raw score, in logs (no underflow
  // for strong homologs).
  double log_composition_factor(const Hit& h, SeqView query, SeqView target, const LengthRegression& fit) const;
  // The same from the alignment's score and CIGAR, the pair's composition ratio
  // (composition_ratio) and the target's length: a ratio of 1 leaves the score, so the CIGAR is
  // read only where ratio < 1.
  double log_composition_factor(int32_t score, std::string_view cigar, double ratio, uint32_t target_length,
                                const LengthRegression& fit) const;
  // The pair's composition-based lambda ratio (composition.hpp) from the two compositions.
  double composition_ratio(const Composition& query, const Composition& target) const;
  // out[k] = composition_ratio(query, *targets[k]), the same bits, several targets at a time.
  void composition_ratios(const Composition& query, const std::vector<const Composition*>& targets,
                          double* out) const;

 private:
  // comp's rescaled score of the pair's alignment.
  double comp_score(const Hit& h, SeqView query, SeqView target) const;
  // The number of subjects a fit's E-values count: the database's, times regress-qcomp's factor.
  double fitted_subjects(const QueryFit& fit) const;

  StatsMode mode_ = StatsMode::Ka;
  ScoreMatrix matrix_;
  GapCosts gaps_;
  KarlinParams karlin_;
  FiniteSizeParams fsc_;
  double standard_lambda_ = 0;  // ungapped, standard background (comp, regress-comp, regress-qcomp)
  CompositionRatio composition_ratio_;  // with standard_lambda_
  double db_residues_ = 0, db_sequences_ = 0;
  std::vector<uint32_t> subject_lengths_;  // distinct, ascending
  std::map<std::pair<uint32_t, double>, int32_t> min_score_cache_;  // (query length, max E)
};

}  // namespace hpc
