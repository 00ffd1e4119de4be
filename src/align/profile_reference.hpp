#pragma once
// Position-specific query profiles (a PSI-BLAST PSSM, or a query row-expanded through a
// substitution matrix) and the scalar Smith-Waterman that scores with them: the oracle of
// the SIMD profile kernel (kernels/cpu/sw_profile_simd.hpp).
//
// Same recurrences and gap convention as src/align/reference.hpp, with s(q_i, t_j) replaced
// by profile(i, t_j): row i of the profile is query position i.
#include <cstdint>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct QueryProfile {
  uint32_t length = 0;
  std::vector<int32_t> scores;  // length x kAlphabetSize, row-major: scores[i * 24 + code]
  int32_t operator()(uint32_t i, uint8_t code) const { return scores[size_t(i) * kAlphabetSize + code]; }
  int32_t max_score() const;
  int32_t min_score() const;
  // Row i = the matrix row of query residue q_i (a profile that scores like the matrix).
  static QueryProfile from_matrix(SeqView query, const ScoreMatrix& m);
};

// Exact 32-bit local (Smith-Waterman) score of the profile against `target`.
int32_t profile_reference_score(const QueryProfile& profile, SeqView target, GapCosts g);

}  // namespace hpc
