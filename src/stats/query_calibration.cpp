#include "src/stats/query_calibration.hpp"

#include <algorithm>

#include "kernels/cpu/cpu_backend.hpp"

namespace hpc {

std::vector<LengthRegression> calibrate_queries(const SequenceSet& queries, const Database& db,
                                                const ScoreMatrix& matrix, GapCosts gaps, int threads,
                                                uint32_t sample_size) {
  const size_t total = db.seqs.size();
  const size_t take = std::min<size_t>(total, sample_size);
  SequenceSet sample;
  for (size_t k = 0; k < take; ++k) {
    const uint32_t t = db.by_length[size_t((k + 0.5) * double(total) / double(take))];
    const SeqView v = db.seqs.view(t);
    sample.add(db.seqs.ids[t], v.data, v.length);
  }
  const Database sample_db = make_database(std::move(sample));
  SearchSetup setup;
  setup.queries = &queries;
  setup.db = &sample_db;
  setup.matrix = matrix;
  setup.gaps = gaps;
  setup.max_hits = uint32_t(take);  // every subject's score
  // The CPU backend itself, not make_search_backend's: the test hooks that inject faults into
  // the search's tiles (kernels/fault_injection.hpp) must not hit this preparatory scoring.
  auto backend = make_cpu_search_backend(threads);
  backend->prepare(setup);

  std::vector<LengthRegression> fits(queries.size());
  constexpr size_t kBatch = 256;  // queries per tile: bounds the scores held at once
  for (size_t first = 0; first < queries.size(); first += kBatch) {
    Tile tile;
    for (size_t q = first; q < std::min(queries.size(), first + kBatch); ++q) tile.queries.push_back(uint32_t(q));
    tile.part_begin = 0;
    tile.part_end = uint32_t(take);
    const auto scored = backend->search_tile(tile);
    for (size_t k = 0; k < tile.queries.size(); ++k) {
      std::vector<int32_t> scores;
      std::vector<uint32_t> lengths;
      for (const ScoredTarget& st : scored[k]) {
        scores.push_back(st.score);
        lengths.push_back(std::max<uint32_t>(1, sample_db.seqs.length(st.target)));
      }
      fits[tile.queries[k]] = fit_length_regression(scores, lengths);
    }
  }
  return fits;
}

}  // namespace hpc
