#pragma once
// The scores that --stats regress fits: each query against a fixed sample of the database.
// The sample takes subjects evenly spaced in length order, so it spans the database's
// lengths (a database no larger than the sample is used whole); it is a function of the
// database alone. The fits are made inside the search's tiles, for each query by the first tile
// of a worker that holds it, by the worker's own kind of backend (exact scores: the same fit on
// CPU and GPU, for any tiling and rank count), so they happen after the resume journal opens
// and their E-values are in it.
//
// regress-qcomp's factor is made here too, over the same sample: each query's mean of
// ln(E_regress-comp / E_regress) over its sample subjects of regress P-value <= kShiftSetP
// (aligned by the worker's backend for comp's rescaled score). The sample, its scores and its alignments
// are the tile's whatever the database partition, so the factor is as tiling-free as the fit.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "src/core/chunk_pool.hpp"
#include "src/stats/length_regression.hpp"
#include "src/stats/search_statistics.hpp"

namespace hpc {

constexpr uint32_t kCalibrationSubjects = 2500;
// regress-qcomp averages over the sample subjects whose regress P-value (E-value / database
// subjects) is at most this: the upper half of the query's null scores and its homologs, the
// range where its E-values are ranked, not the low-score bulk.
constexpr double kShiftSetP = 0.5;
// ... and of those at most this many, evenly spaced in score order (the same range, a sample
// of it): each one costs an alignment, and the mean of this many is as good for ranking.
constexpr size_t kShiftSetMax = 256;

// The calibration subjects of `db`: sample subject k is db.by_length[position k].
std::vector<uint32_t> calibration_positions(const Database& db, uint32_t sample_size = kCalibrationSubjects);
Database calibration_sample(const Database& db, uint32_t sample_size = kCalibrationSubjects);

// One worker's calibration: a backend of its kind prepared with the job's queries against
// the sample (no fault injection: the fault tests count the search's own tiles).
class QueryCalibration {
 public:
  // `search`: the job's queries, database, matrix and gaps; kind, device, threads: the worker's;
  // `stats`: the job's statistics (regress-qcomp: the fits carry its factor; may be null else).
  QueryCalibration(const SearchSetup& search, BackendKind kind, int device, int threads,
                   const SearchStatistics* stats = nullptr, uint32_t sample_size = kCalibrationSubjects);
  // The fits of `queries` (indices into the job's queries), in that order; each query's made
  // once per worker.
  std::vector<QueryFit> fit(const std::vector<uint32_t>& queries);
  // A database no larger than the sample is its own sample: a search of the whole database
  // that keeps every positive score (max_hits >= its size) already holds the sample's scores.
  bool whole_database() const { return sample_.seqs.size() == db_->seqs.size(); }
  // The same fits from such a search's lists (per query, in scored_target_order over db).
  // `aligner` as in fit_sampled.
  std::vector<QueryFit> fit_from(const std::vector<uint32_t>& queries,
                                 const std::vector<std::vector<ScoredTarget>>& whole, SearchBackend& aligner);
  // The sample's places in the database's length order (SearchBackend::search_tile_sampled).
  const std::vector<uint32_t>& positions() const { return positions_; }
  // True when `tile`'s partition holds the whole sample (the sample spans every length: the
  // whole database), so that its search_tile_sampled scores give the fits.
  bool in_tile(const Tile& tile) const { return tile.part_begin == 0 && tile.part_end == db_->seqs.size(); }
  // The same fits as fit() from the sample lists of search_tile_sampled(tile, positions())
  // (per query, (score, sample index)); regress-qcomp aligns its pairs with `aligner`, a
  // backend over the job's database (the worker's own: no second backend on the device).
  std::vector<QueryFit> fit_sampled(const std::vector<uint32_t>& queries,
                                    const std::vector<std::vector<ScoredTarget>>& sample, SearchBackend& aligner);

 private:
  SearchBackend& backend();  // made and prepared on first use
  // `aligner`: regress-qcomp's alignments, by backend() (null) or a backend over the job's
  // database (sample subject k as database subject by_length[positions_[k]]).
  std::vector<QueryFit> fits_of(const std::vector<uint32_t>& queries,
                                const std::vector<std::vector<ScoredTarget>>& scored, SearchBackend* aligner = nullptr);
  // regress-qcomp: each fit's log_shift from the sample subjects' alignments.
  void add_shifts(const std::vector<uint32_t>& queries, const std::vector<std::vector<ScoredTarget>>& scored,
                  std::vector<QueryFit>& fits, SearchBackend* aligner);

  const Database* db_;
  std::vector<uint32_t> positions_;  // sample subject k is db_->by_length[positions_[k]]
  Database sample_;  // before backend_: the backend holds views of it
  std::vector<Composition> sample_compositions_;  // per sample subject (regress-qcomp's ratios)
  std::vector<LengthKey> sample_keys_;  // per sample subject: what its fits and the set's test read of its length
  std::unique_ptr<SearchBackend> backend_;  // made on first use (whole databases: regress-qcomp's only)
  std::unordered_map<uint32_t, QueryFit> made_;  // fit()'s fits so far, by query
  const SearchStatistics* stats_;
  BackendKind kind_;
  int device_, threads_;
  SearchSetup setup_;
  double ungapped_lambda_ = 0, ungapped_K_ = 0;  // the fits' high-score cap (length_regression.hpp)
  ChunkPool pool_;  // the fits', the selection's and the terms' loops, on up to 16 cores
};

}  // namespace hpc
