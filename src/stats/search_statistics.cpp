#include "src/stats/search_statistics.hpp"

#include <algorithm>
#include <cmath>

#include "src/core/error.hpp"
#include "src/stats/composition.hpp"
#include "src/stats/finite_size.hpp"

namespace hpc {

StatsMode parse_stats_mode(const std::string& name) {
  if (name == "ka") return StatsMode::Ka;
  if (name == "blast") return StatsMode::Blast;
  if (name == "comp") return StatsMode::Comp;
  if (name == "regress") return StatsMode::Regress;
  if (name == "regress-comp") return StatsMode::RegressComp;
  if (name == "regress-qcomp") return StatsMode::RegressQcomp;
  throw Error("--stats must be ka, blast, comp, regress, regress-comp or regress-qcomp (got '" + name + "')");
}

const char* to_string(StatsMode mode) {
  switch (mode) {
    case StatsMode::Ka: return "ka";
    case StatsMode::Blast: return "blast";
    case StatsMode::Comp: return "comp";
    case StatsMode::Regress: return "regress";
    case StatsMode::RegressComp: return "regress-comp";
    case StatsMode::RegressQcomp: return "regress-qcomp";
  }
  return "?";
}

const char* stats_modes_help() {
  return "E-value statistics (--stats; default regress-qcomp):\n"
         "  ka     Karlin-Altschul, NCBI's gapped lambda and K, search space = query length x database\n"
         "         residues (Karlin & Altschul, PNAS 1990;87:2264).\n"
         "  blast  blastp's E-values (-comp_based_stats 0): the same lambda and K with Spouge's finite-size\n"
         "         correction for each subject's length (Park, Sheetlin, Ma, Madden & Spouge, BMC Res Notes\n"
         "         2012;5:286; BLAST_SpougeStoE), alpha/beta/sigma from NCBI's tables.\n"
         "  comp   blast, on the score rescaled by composition-based statistics (BLAST's -comp_based_stats 1:\n"
         "         the ungapped lambda of the pair's two compositions over the standard one, clamped to\n"
         "         [0.5, 1], scales the substitution scores of the reported alignment; Schaffer et al., NAR\n"
         "         2001;29:2994). Computed on the reported hits only.\n"
         "  regress ssearch36's default statistics (-z 1), as FASTA 36 fits them (scaleswn.c proc_hist_r):\n"
         "         per query, score = a + b ln(subject length) fitted on its scores against up to 2,500\n"
         "         database subjects spread over the lengths (bins of 0.1 ln(length) weighted by their\n"
         "         variance, high scores capped, z < -3 and z above the best of N unrelated trimmed, bins of\n"
         "         odd variance dropped), E = database sequences x P of the standardized residual under a\n"
         "         Gumbel (Pearson, J Mol Biol 1998;276:71). The sample is scored inside each tile by the\n"
         "         search's backend; a query whose fit fails (fewer than 84 scores, ...) uses blast.\n"
         "  regress-comp  regress on comp's rescaled score (the fit as regress's, the hit's substitution\n"
         "         scores scaled by the pair's composition-based lambda ratio); falls back to comp.\n"
         "  regress-qcomp  regress, every E-value of a query times one factor: exp of the mean of\n"
         "         ln(E_regress-comp / E_regress) over the query's sample subjects of regress P <= 0.5, at\n"
         "         most 256 evenly spaced in score order (aligned for comp's score). Within a query the\n"
         "         order is regress's (Pearson's empirical null); across queries the mean effect of\n"
         "         composition-based rescaling (Schaffer et al. 2001; Yu & Altschul, Bioinformatics\n"
         "         2005;21:902) under the query's own fit sets its level: an effective database size per\n"
         "         query. Falls back to blast.\n";
}

SearchStatistics::SearchStatistics(StatsMode mode, const ScoreMatrix& matrix, GapCosts gaps,
                                   const KarlinParams& karlin, const Database& db)
    : mode_(mode),
      matrix_(matrix),
      gaps_(gaps),
      karlin_(karlin),
      db_residues_(double(db.seqs.total_residues())),
      db_sequences_(double(db.seqs.size())) {
  for (size_t i = 0; i < db.seqs.size(); ++i) subject_lengths_.push_back(std::max<uint32_t>(1, db.seqs.length(i)));
  std::sort(subject_lengths_.begin(), subject_lengths_.end());
  subject_lengths_.erase(std::unique(subject_lengths_.begin(), subject_lengths_.end()), subject_lengths_.end());
  if (mode_ == StatsMode::Ka) return;
  const auto fsc = published_finite_size_params(matrix.name, gaps);
  if (!fsc)
    throw Error(std::string("--stats ") + to_string(mode_) + " needs NCBI's finite-size parameters, which exist for " +
                "the built-in matrices with their tabulated gap costs only; use --stats ka");
  fsc_ = *fsc;
  fsc_.lambda = karlin.lambda;
  fsc_.K = karlin.K;
  if (mode_ == StatsMode::Comp || mode_ == StatsMode::RegressComp || mode_ == StatsMode::RegressQcomp) {
    standard_lambda_ = ungapped_lambda(matrix, standard_composition(), standard_composition());
    if (!(standard_lambda_ > 0)) throw Error("matrix " + matrix.name + " has no ungapped lambda");
    composition_ratio_ = CompositionRatio(matrix, standard_lambda_);
  }
}

double SearchStatistics::fitted_subjects(const QueryFit& fit) const {
  return mode_ == StatsMode::RegressQcomp ? db_sequences_ * std::exp(fit.log_shift) : db_sequences_;
}

int32_t SearchStatistics::min_score(const QueryFit& query_fit, double max_evalue) const {
  // The fitted mean is monotone in ln(n): the shortest or the longest subject bounds the rest.
  const LengthRegression& fit = query_fit.regression;
  const double subjects = fitted_subjects(query_fit);
  const double lowest = std::min(fit.score_for_evalue(max_evalue, subject_lengths_.front(), subjects),
                                 fit.score_for_evalue(max_evalue, subject_lengths_.back(), subjects));
  return int32_t(std::max(1.0, std::floor(lowest)));
}

int32_t SearchStatistics::min_score(uint32_t query_length, double max_evalue) {
  if (mode_ == StatsMode::Ka) return min_score_for_evalue(karlin_, max_evalue, query_length, db_residues_);
  const auto cached = min_score_cache_.find({query_length, max_evalue});
  if (cached != min_score_cache_.end()) return cached->second;
  // The finite-size E-value is neither monotone in the subject's length nor, for short
  // sequences and low scores, in the score: the first score that any subject length reaches.
  int32_t best = 1;
  for (;; ++best) {
    bool reached = false;
    for (uint32_t n : subject_lengths_)
      if ((reached = finite_size_evalue(fsc_, best, query_length, n, db_residues_) <= max_evalue)) break;
    if (reached) break;
  }
  min_score_cache_[{query_length, max_evalue}] = best;
  return best;
}

double SearchStatistics::composition_ratio(const Composition& query, const Composition& target) const {
  return composition_ratio_(query, target);
}

void SearchStatistics::composition_ratios(const Composition& query, const std::vector<const Composition*>& targets,
                                          double* out) const {
  composition_ratio_(query, targets.data(), targets.size(), out);
}

double SearchStatistics::comp_score(const Hit& h, SeqView query, SeqView target) const {
  return rescaled_alignment_score(gaps_, composition_ratio(composition_of(query), composition_of(target)), h.aln);
}

double SearchStatistics::log_composition_factor(const Hit& h, SeqView query, SeqView target,
                                               const LengthRegression& fit) const {
  return log_composition_factor(h.aln.score, h.aln.cigar,
                                composition_ratio(composition_of(query), composition_of(target)), target.length, fit);
}

double SearchStatistics::log_composition_factor(int32_t score, std::string_view cigar, double ratio,
                                               uint32_t target_length, const LengthRegression& fit) const {
  const double n = std::max<uint32_t>(1, target_length);
  const double rescaled = ratio < 1 ? rescaled_alignment_score(gaps_, ratio, score, cigar) : double(score);
  return fit.log_evalue(rescaled, n, db_sequences_) - fit.log_evalue(score, n, db_sequences_);
}

void SearchStatistics::annotate(Hit& h, SeqView query, SeqView target, const QueryFit* fit) const {
  if (mode_ == StatsMode::Ka) {
    h.bits = bit_score(karlin_, h.aln.score);
    h.evalue = evalue(karlin_, h.aln.score, query.length, db_residues_);
    return;
  }
  double score = h.aln.score;
  if (reads_alignments()) score = comp_score(h, query, target);
  if (fits_regression(mode_) && fit && fit->regression.ok) {
    h.bits = bit_score(karlin_, h.aln.score);
    h.evalue = fit->regression.evalue(score, std::max<uint32_t>(1, target.length), fitted_subjects(*fit));
    return;
  }
  h.bits = (karlin_.lambda * score - std::log(karlin_.K)) / std::log(2.0);
  h.evalue = finite_size_evalue(fsc_, score, query.length, target.length, db_residues_);
}

}  // namespace hpc
