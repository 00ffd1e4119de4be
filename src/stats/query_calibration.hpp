#pragma once
// The scores that --stats regress fits: every query against a fixed sample of the database,
// scored by the CPU backend whatever backend runs the search (the same fit on CPU and GPU
// runs, and under MPI on every rank). The sample takes subjects evenly spaced in length order,
// so it spans the database's lengths; a database no larger than the sample is used whole.
#include <cstdint>
#include <vector>

#include "io/database.hpp"
#include "src/core/scoring.hpp"
#include "src/stats/length_regression.hpp"

namespace hpc {

constexpr uint32_t kCalibrationSubjects = 2500;

// One fit per query (file order); `threads` CPU threads (0: the job's CPUs, src/core/cpu_budget.hpp).
std::vector<LengthRegression> calibrate_queries(const SequenceSet& queries, const Database& db,
                                                const ScoreMatrix& matrix, GapCosts gaps, int threads,
                                                uint32_t sample_size = kCalibrationSubjects);

}  // namespace hpc
