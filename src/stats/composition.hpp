#pragma once
// Composition-based statistics, BLAST's mode 1 (-comp_based_stats 1): the ungapped lambda of
// the matrix is recomputed for the residue compositions of the two sequences, and the pair's
// substitution scores are rescaled by the ratio of that lambda to the standard one, clamped
// to [0.5, 1] (Schaffer AA et al. Improving the accuracy of PSI-BLAST protein database
// searches with composition-based statistics. Nucleic Acids Res 2001;29:2994-3005;
// Blast_CompositionBasedStats). Gap costs are not rescaled.
#include <array>
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

 private:
  std::array<std::array<int, kTrueAminoAcids>, kTrueAminoAcids> score_{};
  int low_ = 0, high_ = 0;  // over score_, and 0
  double standard_ = 0;
};
// The alignment's score with its substitution scores scaled by `ratio` (gap costs unchanged).
double rescaled_alignment_score(GapCosts gaps, double ratio, const Alignment& aln);
// The same from the score and the CIGAR (an engine's flat buffer: no string per alignment).
double rescaled_alignment_score(GapCosts gaps, double ratio, int32_t score, std::string_view cigar);

}  // namespace hpc
