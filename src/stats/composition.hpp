#pragma once
// Composition-based statistics, BLAST's mode 1 (-comp_based_stats 1): the ungapped lambda of
// the matrix is recomputed for the residue compositions of the two sequences, and the pair's
// substitution scores are rescaled by the ratio of that lambda to the standard one, clamped
// to [0.5, 1] (Schaffer AA et al. Improving the accuracy of PSI-BLAST protein database
// searches with composition-based statistics. Nucleic Acids Res 2001;29:2994-3005;
// Blast_CompositionBasedStats). Gap costs are not rescaled.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

constexpr int kTrueAminoAcids = 20;  // codes 0..19: A R N D C Q E G H I L K M F P S T W Y V
using Composition = std::array<double, kTrueAminoAcids>;

// BLAST's standard background (Robinson & Robinson 1991, Blast_ResFreqStdComp).
const Composition& standard_composition();
// Fractions of the true amino acids in a sequence (B, Z, X, * not counted); all zero when none.
Composition composition_of(SeqView s);
// The positive lambda solving sum_ij p_i q_j exp(lambda s_ij) = 1 over the true amino acids;
// a negative value when it does not exist (expected score >= 0 or no positive score).
double ungapped_lambda(const ScoreMatrix& m, const Composition& row, const Composition& col);
// lambda(query, subject compositions) / standard (the matrix's ungapped lambda for
// standard_composition()), clamped to [0.5, 1]; solved only inside the clamp (Newton), so
// cheap enough for every sample pair of every query.
double composition_lambda_ratio(const ScoreMatrix& m, double standard, const Composition& query,
                                const Composition& subject);
// composition_lambda_ratio for one matrix and standard lambda, the matrix's true-amino-acid
// scores and their range gathered once (regress-qcomp asks it for every sample pair of every
// query: the matrix is not scanned again for each pair).
class CompositionRatio {
 public:
  CompositionRatio() = default;
  CompositionRatio(const ScoreMatrix& m, double standard);
  double operator()(const Composition& query, const Composition& subject) const;
  // out[k] = (*this)(query, *subjects[k]) for k < n, the same bits: eight subjects share a
  // pass over the cells (regress-qcomp's 256 picks a query).
  void operator()(const Composition& query, const Composition* const* subjects, size_t n, double* out) const;

 private:
  // Subjects' values side by side in one vector register (GCC/Clang vectors: 2 doubles in
  // SSE2's or NEON's, 4 in AVX's; a type wider than the target's registers compiles to spills).
#if defined(__AVX__)
  static constexpr size_t kRatioLanes = 4;
#else
  static constexpr size_t kRatioLanes = 2;
#endif
  using RatioLanes = double __attribute__((vector_size(kRatioLanes * sizeof(double))));
  static constexpr size_t kRatioGroup = 8;  // subjects a pass: 8 chains of adds in flight
  // The ratios of V * kRatioLanes subjects; column_high[j]: the highest score of column j over
  // the query's present letters, and 0.
  template <int V>
  void group_ratios(const Composition& query, const std::array<int, kTrueAminoAcids>& column_high,
                    const Composition* const* subjects, double* out) const;
  // The ratio from a pass's sums: the weights per score value (size of them, from low_), the
  // expected score, the highest score between present letters and the two compositions' sums.
  double root_ratio(const double* weight, int size, double expected, int present_high, double row_sum,
                    double col_sum) const;

  std::array<std::array<int, kTrueAminoAcids>, kTrueAminoAcids> score_{};
  int low_ = 0, high_ = 0;  // over score_, and 0
  double standard_ = 0;
};
// The alignment's score with its substitution scores scaled by `ratio` (gap costs unchanged).
double rescaled_alignment_score(GapCosts gaps, double ratio, const Alignment& aln);
// The same from the score and the CIGAR (an engine's flat buffer: no string per alignment).
double rescaled_alignment_score(GapCosts gaps, double ratio, int32_t score, std::string_view cigar);

}  // namespace hpc
