#pragma once
// Statistics fitted to a query's own scores, as ssearch36's default (-z 1) does: the scores of
// unrelated subjects grow linearly with ln(subject length); the fit of score = a + b ln(n)
// over the subjects, its residual spread, and extreme-value tails of the standardized residual
// give each hit a z-score and an E-value (Pearson WR. Empirical statistical estimates for
// sequence similarity searches. J Mol Biol 1998;276:71-84; FASTA's scaleswn.c, proc_hist_r).
// High outliers (the homologs) are trimmed from the fit until it is stable.
#include <cstdint>
#include <vector>

namespace hpc {

struct LengthRegression {
  double intercept = 0, slope = 0, sd = 1;  // score ~ intercept + slope ln(n), spread sd
  uint32_t used = 0;                        // subjects in the final fit
  bool ok = false;                          // fewer than kMinSubjects: not fitted
  static constexpr uint32_t kMinSubjects = 30;
  double z(double score, double n) const;
  // E = subjects * P(Z > z) for a standardized Gumbel (mean 0, variance 1).
  double evalue(double score, double n, double subjects) const;
  // The (fractional) score whose E-value is max_evalue against a subject of length n.
  double score_for_evalue(double max_evalue, double n, double subjects) const;
};

// Fits scores[i] of subjects of lengths[i] (unrelated and related mixed; z > 5 trimmed).
LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<uint32_t>& lengths);

}  // namespace hpc
