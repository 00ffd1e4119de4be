#pragma once
// Exact Gotoh alignment for long pairs: reference_align's passes (score and end cell, the
// local start bounds, the 4-bit traceback of the rectangle, the walk back) with each pass a
// vector sweep over strips of 8 query rows (strip_align_kernel.hpp), in int32. Scores,
// coordinates and CIGARs are reference_align's, bit for bit (same cell values, same tie
// rule); pairs whose values could leave int32's safe range, or negative gap costs, go to the
// reference itself. Memory: 4 bits per cell of the traceback rectangle (reference_align's) up
// to traceback_budget bytes; past it, bands of rows that fit it, recomputed from checkpoint
// rows (one more pass over at most the rectangle's rows; a titin self-hit, 35,000 x 35,000,
// would take 612 MiB in one piece).
#include <cstdint>
#include <utility>
#include <vector>

#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

// Whether strip_align's int32 sweeps take the pair (else it returns reference_align's result
// through reference_align itself, in that pair's full traceback memory).
bool strip_align_exact(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);
int32_t strip_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);
constexpr uint64_t kStripTracebackBudget = uint64_t(128) << 20;
Alignment strip_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g,
                      uint64_t traceback_budget = kStripTracebackBudget);
// strip_align of every (query, target) pair, spread over the job's cores (each thread takes the
// next pair, as their sizes differ): the GPU paths' pairs left to the host.
std::vector<Alignment> strip_align_all(AlignMode mode, const std::vector<std::pair<SeqView, SeqView>>& pairs,
                                       const ScoreMatrix& m, GapCosts g,
                                       uint64_t traceback_budget = kStripTracebackBudget);

}  // namespace hpc
