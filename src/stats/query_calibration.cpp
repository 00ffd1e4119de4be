#include "src/stats/query_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "src/core/alphabet.hpp"
#include "src/core/cigar_buffer.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/tuning.hpp"
#include "src/stats/composition.hpp"
#include "src/stats/karlin.hpp"

namespace hpc {
namespace {

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// The ungapped lambda and K of ssearch36's high-score cap (length_regression.hpp, step 2), as
// FASTA 36 computes them (initfa.c last_init -> karlin.c do_karlin_a): the Robinson
// frequencies, listed in ARND... order, paired with the letters of FASTA's NCBIstdaa codes 1..20
// (A B C D E F G H I K L M N P Q R S T V W: B takes R's frequency, ..., Y is left out), and
// the subject's codes 1..19 only (W's column too is left out). For BLOSUM62 this gives lambda
// 0.297 and K 0.131 where the standard background gives 0.318 and 0.134: the cap, and with
// it which scores are trimmed, follows ssearch36's.
KarlinParams ssearch36_cap_karlin(const ScoreMatrix& m) {
  static const char kCodes[] = "ABCDEFGHIKLMNPQRSTVW";
  const Composition& freq = standard_composition();
  const int low = m.min_score(), high = m.max_score();
  std::vector<double> probs(size_t(high - low + 1), 0.0);
  double total = 0;
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 19; ++j) {
      const double p = freq[i] * freq[j];
      probs[size_t(m(encode_residue(kCodes[i]), encode_residue(kCodes[j])) - low)] += p;
      total += p;
    }
  for (double& p : probs) p /= total;
  const auto k = ungapped_karlin(probs, low);
  if (!k) throw Error("--stats regress: matrix " + m.name + " has no ungapped lambda");
  return *k;
}

// The places in a query's set (of `size` subjects in score order) that its mean takes: the
// middle of each of kShiftSetMax equal strata (all of them when there are no more).
std::vector<size_t> shift_set_picks(size_t size) {
  const size_t take = std::min(size, kShiftSetMax);
  std::vector<size_t> picks(take);
  for (size_t j = 0; j < take; ++j) picks[j] = (2 * j + 1) * size / (2 * take);
  return picks;
}

}  // namespace

std::vector<uint32_t> calibration_positions(const Database& db, uint32_t sample_size) {
  const size_t total = db.seqs.size();
  const size_t take = std::min<size_t>(total, sample_size);
  std::vector<uint32_t> positions(take);
  for (size_t k = 0; k < take; ++k) positions[k] = uint32_t((k + 0.5) * double(total) / double(take));
  return positions;
}

Database calibration_sample(const Database& db, uint32_t sample_size) {
  SequenceSet sample;
  for (const uint32_t p : calibration_positions(db, sample_size)) {
    const uint32_t t = db.by_length[p];
    const SeqView v = db.seqs.view(t);
    sample.add(db.seqs.ids[t], v.data, v.length);
  }
  return make_database(std::move(sample));
}

QueryCalibration::QueryCalibration(const SearchSetup& search, BackendKind kind, int device, int threads,
                                   const SearchStatistics* stats, uint32_t sample_size)
    : db_(search.db), positions_(calibration_positions(*search.db, sample_size)),
      sample_(calibration_sample(*search.db, sample_size)), stats_(stats), kind_(kind), device_(device),
      threads_(threads), setup_(search), pool_(usable_cores()) {
  setup_.db = &sample_;
  setup_.max_hits = uint32_t(std::max<size_t>(1, sample_.seqs.size()));  // every subject's score
  for (size_t t = 0; t < sample_.seqs.size(); ++t) {
    sample_compositions_.push_back(composition_of(sample_.seqs.view(t)));
    sample_keys_.push_back(length_key(std::max<uint32_t>(1, sample_.seqs.length(t))));
  }
  const KarlinParams cap = ssearch36_cap_karlin(search.matrix);
  ungapped_lambda_ = cap.lambda;
  ungapped_K_ = cap.K;
}

SearchBackend& QueryCalibration::backend() {
  if (!backend_) {
    backend_ = make_search_backend(kind_, device_, threads_, /*faults=*/false);
    backend_->prepare(setup_);
  }
  return *backend_;
}

std::vector<QueryFit> QueryCalibration::fit(const std::vector<uint32_t>& queries) {
  // A query's fit is its own (the same in any batch), so the worker makes it once: tiles that
  // cut the database into partitions bring the same queries again (regress-qcomp's alignments
  // would be repeated for every partition).
  std::vector<uint32_t> todo;
  for (uint32_t q : queries)
    if (made_.find(q) == made_.end() && std::find(todo.begin(), todo.end(), q) == todo.end()) todo.push_back(q);
  if (!todo.empty()) {
    Tile tile;
    tile.queries = todo;
    tile.part_begin = 0;
    tile.part_end = uint32_t(sample_.seqs.size());
    const std::vector<QueryFit> fits = fits_of(todo, backend().search_tile(tile));
    for (size_t k = 0; k < todo.size(); ++k) made_.emplace(todo[k], fits[k]);
  }
  std::vector<QueryFit> out;
  for (uint32_t q : queries) out.push_back(made_.at(q));
  return out;
}

std::vector<QueryFit> QueryCalibration::fit_from(const std::vector<uint32_t>& queries,
                                                 const std::vector<std::vector<ScoredTarget>>& whole,
                                                 SearchBackend& aligner) {
  // Sample subject k is database subject by_length[k]: the same lists in sample indices, in
  // scored_target_order again (ties now by sample index), as fit() would have scored them.
  std::vector<uint32_t> sample_index(db_->seqs.size());
  for (uint32_t k = 0; k < db_->by_length.size(); ++k) sample_index[db_->by_length[k]] = k;
  std::vector<std::vector<ScoredTarget>> scored(whole.size());
  for (size_t q = 0; q < whole.size(); ++q) {
    for (const ScoredTarget& st : whole[q]) scored[q].push_back({st.score, sample_index[st.target]});
    std::sort(scored[q].begin(), scored[q].end(), scored_target_order);
  }
  return fits_of(queries, scored, &aligner);
}

std::vector<QueryFit> QueryCalibration::fit_sampled(const std::vector<uint32_t>& queries,
                                                    const std::vector<std::vector<ScoredTarget>>& sample,
                                                    SearchBackend& aligner) {
  // Only the queries not fitted yet (a query's fit is its own: the same in any batch).
  std::vector<uint32_t> todo;
  std::vector<std::vector<ScoredTarget>> lists;
  for (size_t k = 0; k < queries.size(); ++k)
    if (made_.find(queries[k]) == made_.end() &&
        std::find(todo.begin(), todo.end(), queries[k]) == todo.end()) {
      todo.push_back(queries[k]);
      lists.push_back(sample[k]);
    }
  if (!todo.empty()) {
    const std::vector<QueryFit> fits = fits_of(todo, lists, &aligner);
    for (size_t k = 0; k < todo.size(); ++k) made_.emplace(todo[k], fits[k]);
  }
  std::vector<QueryFit> out;
  for (uint32_t q : queries) out.push_back(made_.at(q));
  return out;
}

std::vector<QueryFit> QueryCalibration::fits_of(const std::vector<uint32_t>& queries,
                                                const std::vector<std::vector<ScoredTarget>>& scored,
                                                SearchBackend* aligner) {
  std::vector<QueryFit> fits(scored.size());
  const auto t0 = std::chrono::steady_clock::now();
  // ~0.2 ms a fit, on one core: 11,000 queries added ~2 s to a 0.4 s GPU search (H100).
  pool_.run(scored.size(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      std::vector<int32_t> scores(scored[k].size());
      std::vector<LengthKey> keys(scored[k].size());
      for (size_t i = 0; i < scored[k].size(); ++i) {
        scores[i] = scored[k][i].score;
        keys[i] = sample_keys_[scored[k][i].target];
      }
      const HighScoreCap cap{ungapped_lambda_, ungapped_K_, setup_.queries->length(queries[k])};
      fits[k].regression = fit_length_regression(scores, keys, &cap);
    }
  });
  if (tuning_flag(Tunable::kCudaTiming))
    std::fprintf(stderr, "regress: %zu queries fitted in %.3f s\n", queries.size(),
                 seconds(t0, std::chrono::steady_clock::now()));
  if (stats_ && stats_->mode() == StatsMode::RegressQcomp) add_shifts(queries, scored, fits, aligner);
  return fits;
}

void QueryCalibration::add_shifts(const std::vector<uint32_t>& queries,
                                  const std::vector<std::vector<ScoredTarget>>& scored, std::vector<QueryFit>& fits,
                                  SearchBackend* aligner) {
  const auto t0 = std::chrono::steady_clock::now();
  const double subjects = double(db_->seqs.size());
  // Per query, its sample subjects of regress P <= kShiftSetP (in score order) and their
  // composition ratios, on all cores.
  struct Pick {
    uint32_t target;
    int32_t score;
    double ratio;
  };
  std::vector<std::vector<Pick>> picks(scored.size());
  pool_.run(scored.size(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      const LengthRegression& fit = fits[k].regression;
      if (!fit.ok) continue;  // blast's E-values: no factor
      std::vector<ScoredTarget> set;
      const EvalueWithin within(fit, subjects, kShiftSetP * subjects);
      for (const ScoredTarget& st : scored[k])
        if (st.score > 0 && within(st.score, sample_keys_[st.target].length, sample_keys_[st.target].log_length))
          set.push_back(st);
      const Composition query = composition_of(setup_.queries->view(queries[k]));
      const std::vector<size_t> places = shift_set_picks(set.size());
      std::vector<const Composition*> subjects;
      for (size_t i : places) subjects.push_back(&sample_compositions_[set[i].target]);
      std::vector<double> ratios(places.size());
      stats_->composition_ratios(query, subjects, ratios.data());
      for (size_t p = 0; p < places.size(); ++p)
        picks[k].push_back({set[places[p]].target, set[places[p]].score, ratios[p]});
    }
  });
  // A ratio of 1 leaves the score as it is: only the pairs rescaled below it need their alignments.
  std::vector<AlignRequest> reqs;
  size_t picked = 0;
  for (size_t k = 0; k < picks.size(); ++k)
    for (const Pick& p : picks[k]) {
      ++picked;
      if (p.ratio < 1)
        reqs.push_back({queries[k], aligner ? db_->by_length[positions_[p.target]] : p.target, p.score});
    }
  const auto t1 = std::chrono::steady_clock::now();
  // The CIGARs in one buffer (an engine's text as it came back): only their gaps are read.
  CigarBuffer cigars;
  const std::vector<Alignment> alns = (aligner ? *aligner : backend()).align_flat(reqs, cigars);
  const auto t2 = std::chrono::steady_clock::now();
  std::vector<size_t> first_req(picks.size() + 1, 0);  // each query's first request
  for (size_t k = 0; k < picks.size(); ++k)
    first_req[k + 1] = first_req[k] + size_t(std::count_if(picks[k].begin(), picks[k].end(),
                                                           [](const Pick& p) { return p.ratio < 1; }));
  pool_.run(picks.size(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      double sum = 0;  // in score order: the same sum on every backend and core count
      uint32_t count = 0;
      size_t r = first_req[k];
      for (const Pick& p : picks[k]) {
        // A ratio of 1 reads the score alone (no alignment was made).
        const bool aligned = p.ratio < 1;
        const double term = stats_->log_composition_factor(aligned ? alns[r].score : p.score,
                                                           aligned ? cigars.at(r) : std::string_view(), p.ratio,
                                                           sample_.seqs.length(p.target), fits[k].regression);
        if (aligned) ++r;
        if (std::isfinite(term)) sum += term, ++count;
      }
      if (count) fits[k].log_shift = sum / count;
    }
  });
  if (tuning_flag(Tunable::kCudaTiming))
    std::fprintf(stderr, "regress-qcomp: %zu queries, %zu sample pairs (%zu aligned): select %.3f s, align %.3f s, "
                 "terms %.3f s\n", queries.size(), picked, reqs.size(), seconds(t0, t1), seconds(t1, t2),
                 seconds(t2, std::chrono::steady_clock::now()));
}

}  // namespace hpc
