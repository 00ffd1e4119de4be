#pragma once
// Exact score-only Gotoh for every mode in 32-bit arithmetic and O(n) memory: the CPU
// all-vs-all score pass for global and semiglobal (the SIMD kernel covers local only).
// Same recurrences and end-cell rules as src/align/reference.hpp, so scores are equal;
// pairs whose scores could leave the 32-bit range are handed to reference_score (64-bit).
#include <cstdint>

#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

int32_t gotoh_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);
// True when every DP value of the pair stays far inside int32 (with room for the -inf
// sentinel): the condition for 32-bit kernels (this one, the CUDA all-vs-all kernel).
bool gotoh_fits_int32(SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);
// The same test with the matrix's extremes looked up once (engines test millions of pairs).
class Int32Fit {
 public:
  Int32Fit(const ScoreMatrix& m, GapCosts g);
  bool operator()(uint64_t q_length, uint64_t t_length) const { return (q_length + t_length + 2) * step_ < (1ull << 28); }

 private:
  uint64_t step_;
};

}  // namespace hpc
