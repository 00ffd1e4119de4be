#include "src/stats/query_calibration.hpp"

#include <algorithm>

#include "src/core/on_all_cores.hpp"

namespace hpc {

Database calibration_sample(const Database& db, uint32_t sample_size) {
  const size_t total = db.seqs.size();
  const size_t take = std::min<size_t>(total, sample_size);
  SequenceSet sample;
  for (size_t k = 0; k < take; ++k) {
    const uint32_t t = db.by_length[size_t((k + 0.5) * double(total) / double(take))];
    const SeqView v = db.seqs.view(t);
    sample.add(db.seqs.ids[t], v.data, v.length);
  }
  return make_database(std::move(sample));
}

QueryCalibration::QueryCalibration(const SearchSetup& search, BackendKind kind, int device, int threads,
                                   uint32_t sample_size)
    : db_(search.db), sample_(calibration_sample(*search.db, sample_size)), kind_(kind), device_(device),
      threads_(threads), setup_(search) {
  setup_.db = &sample_;
  setup_.max_hits = uint32_t(std::max<size_t>(1, sample_.seqs.size()));  // every subject's score
}

std::vector<LengthRegression> QueryCalibration::fit(const std::vector<uint32_t>& queries) {
  if (!backend_) {
    backend_ = make_search_backend(kind_, device_, threads_, /*faults=*/false);
    backend_->prepare(setup_);
  }
  Tile tile;
  tile.queries = queries;
  tile.part_begin = 0;
  tile.part_end = uint32_t(sample_.seqs.size());
  return fits_of(backend_->search_tile(tile));
}

std::vector<LengthRegression> QueryCalibration::fit_from(const std::vector<std::vector<ScoredTarget>>& whole) const {
  // Sample subject k is database subject by_length[k]: the same lists in sample indices, in
  // scored_target_order again (ties now by sample index), as fit() would have scored them.
  std::vector<uint32_t> sample_index(db_->seqs.size());
  for (uint32_t k = 0; k < db_->by_length.size(); ++k) sample_index[db_->by_length[k]] = k;
  std::vector<std::vector<ScoredTarget>> scored(whole.size());
  for (size_t q = 0; q < whole.size(); ++q) {
    for (const ScoredTarget& st : whole[q]) scored[q].push_back({st.score, sample_index[st.target]});
    std::sort(scored[q].begin(), scored[q].end(), scored_target_order);
  }
  return fits_of(scored);
}

std::vector<LengthRegression> QueryCalibration::fits_of(const std::vector<std::vector<ScoredTarget>>& scored) const {
  std::vector<LengthRegression> fits(scored.size());
  // ~0.2 ms a fit, on one core: 11,000 queries added ~2 s to a 0.4 s GPU search (H100).
  run_ranges(scored.size(), usable_cores(), [&](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) {
      std::vector<int32_t> scores;
      std::vector<uint32_t> lengths;
      for (const ScoredTarget& st : scored[k]) {
        scores.push_back(st.score);
        lengths.push_back(std::max<uint32_t>(1, sample_.seqs.length(st.target)));
      }
      fits[k] = fit_length_regression(scores, lengths);
    }
  });
  return fits;
}

}  // namespace hpc
