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

 private:
  Database sample_;  // before backend_: the backend holds views of it
  std::unique_ptr<SearchBackend> backend_;
};

}  // namespace hpc
