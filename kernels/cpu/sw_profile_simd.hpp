#pragma once
// SIMD Smith-Waterman with a position-specific query profile (PSSM rows), score only.
//
// Why a separate kernel: the inter-sequence kernel of sw_simd.hpp builds its per-column
// profile from matrix rows indexed by the query *letter*; a PSSM is indexed by query
// *position*, which that layout cannot express without a gather per cell. Farrar's striped
// layout (Bioinformatics 2007) is the natural fit: the profile is built once per query as
// 24 residue rows of striped 16-bit vectors, and each target residue selects one row.
// SSE2 (the x86-64 baseline): 8 query positions per vector.
//
// Exactness: 16-bit signed saturating cells. A pair whose best reaches
// 32767 - profile max may have saturated; it is rescored by profile_reference_score
// (32-bit), so a saturated value is never returned.
#include <cstdint>
#include <vector>

#include "src/align/profile_reference.hpp"

namespace hpc {

class SwProfileScorer {
 public:
  // Throws hpc::Error when the profile is empty or its scores do not fit 16 bits.
  SwProfileScorer(const QueryProfile& profile, GapCosts g);
  int32_t score(SeqView target) const;
  void score(const SeqView* targets, size_t n, int32_t* scores) const;
  uint32_t query_length() const { return profile_.length; }

 private:
  QueryProfile profile_;
  GapCosts gaps_;
  uint32_t segments_ = 0;            // striped segment count: ceil(length / 8)
  std::vector<int16_t> striped_;     // [code][segment][lane], 24 x segments x 8
  int32_t overflow_limit_ = 0;
  bool vector_ok_ = false;
  mutable std::vector<int16_t> work_;  // H store/load and E: 3 x segments x 8 (not thread-safe)
};

}  // namespace hpc
