#pragma once
// The scores that --stats regress fits: each query against a fixed sample of the database.
// The sample takes subjects evenly spaced in length order, so it spans the database's
// lengths (a database no larger than the sample is used whole); it is a function of the
// database alone. The fits are made inside each search tile, for the tile's queries, by the
// tile's own kind of backend (exact scores: the same fit on CPU and GPU, for any tiling and
// rank count), so they happen after the resume journal opens and their E-values are in it.
#include <cstdint>
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "src/stats/length_regression.hpp"

namespace hpc {

constexpr uint32_t kCalibrationSubjects = 2500;

// The calibration subjects of `db`.
Database calibration_sample(const Database& db, uint32_t sample_size = kCalibrationSubjects);

// One worker's calibration: a backend of its kind prepared with the job's queries against
// the sample (no fault injection: the fault tests count the search's own tiles).
class QueryCalibration {
 public:
  // `search`: the job's queries, database, matrix and gaps; kind, device, threads: the worker's.
  QueryCalibration(const SearchSetup& search, BackendKind kind, int device, int threads,
                   uint32_t sample_size = kCalibrationSubjects);
  // The fits of `queries` (indices into the job's queries), in that order.
  std::vector<LengthRegression> fit(const std::vector<uint32_t>& queries);
  // A database no larger than the sample is its own sample: a search of the whole database
  // that keeps every positive score (max_hits >= its size) already holds the sample's scores.
  bool whole_database() const { return sample_.seqs.size() == db_->seqs.size(); }
  // The same fits from such a search's lists (per query, in scored_target_order over db).
  std::vector<LengthRegression> fit_from(const std::vector<uint32_t>& queries,
                                         const std::vector<std::vector<ScoredTarget>>& whole) const;

 private:
  std::vector<LengthRegression> fits_of(const std::vector<uint32_t>& queries,
                                        const std::vector<std::vector<ScoredTarget>>& scored) const;

  const Database* db_;
  Database sample_;  // before backend_: the backend holds views of it
  std::unique_ptr<SearchBackend> backend_;  // made on the first fit() (not for whole databases)
  BackendKind kind_;
  int device_, threads_;
  SearchSetup setup_;
  double ungapped_lambda_ = 0, ungapped_K_ = 0;  // the fits' high-score cap (length_regression.hpp)
};

}  // namespace hpc
