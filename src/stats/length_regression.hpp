#pragma once
// Statistics fitted to a query's own scores, as ssearch36's default (-z 1) does: the scores of
// unrelated subjects grow linearly with ln(subject length); the fit of score = a + b ln(n)
// over the subjects, its residual spread, and extreme-value tails of the standardized residual
// give each hit a z-score and an E-value (Pearson WR. Empirical statistical estimates for
// sequence similarity searches. J Mol Biol 1998;276:71-84; FASTA 36's scaleswn.c, proc_hist_r).
//
// The fit follows FASTA's steps, not just its idea (its E-values are the oracle's):
//  1. scores go into length bins of width 0.1 in ln(n) (subjects shorter than 10 residues are
//     left out); each bin's mean and variance;
//  2. the bins' means are regressed on the bin (x = bin + 1/2), each weighted by count over
//     variance, with scores first capped at the score an ungapped E() of 0.01 would need at
//     0.7 lambda (so that a few homologs cannot swamp their bin);
//  3. subjects with z < -3 or z above the z of the best of N unrelated scores (Gumbel: (ln N -
//     gamma) / (pi/sqrt6)) leave the bins; fewer than 50 left, or that z below 3 (N < ~84), is
//     no fit;
//  4. the residual variance is regressed on the bin too, bins whose variance departs from it by
//     over three times the typical departure are dropped, and the regression of 2 is made
//     again on what is left: its line and its pooled residual variance are the fit.
#include <cstdint>
#include <vector>

namespace hpc {

struct LengthRegression {
  double intercept = 0, slope = 0, sd = 1;  // score ~ intercept + slope ln(n), spread sd
  uint32_t used = 0;                        // subjects in the final fit
  bool ok = false;                          // not fitted (see the steps above)
  double z(double score, double n) const;
  // E = subjects * P(Z > z) for a standardized Gumbel (mean 0, variance 1).
  double evalue(double score, double n, double subjects) const;
  // Its natural log, finite where the E-value underflows.
  double log_evalue(double score, double n, double subjects) const;
  // evalue(score, n, subjects) <= max_evalue, with log_n = std::log(n) given: decided on the
  // Gumbel argument without evalue()'s exps away from the boundary, by evalue() near it (the
  // same answer; regress-qcomp tests every sample subject of every query).
  bool evalue_within(double score, double n, double log_n, double subjects, double max_evalue) const;
  // The (fractional) score whose E-value is max_evalue against a subject of length n.
  double score_for_evalue(double max_evalue, double n, double subjects) const;
};

// LengthRegression::evalue_within for one fit, subjects and max_evalue, its boundary computed
// once: regress-qcomp tests each query's 2,500 sample subjects against one bound.
class EvalueWithin {
 public:
  EvalueWithin(const LengthRegression& fit, double subjects, double max_evalue);
  bool operator()(double score, double n, double log_n) const;

 private:
  const LengthRegression* fit_;
  double subjects_, max_evalue_;
  bool bounded_ = false;  // the boundary in x applies (else evalue() decides every score)
  double x_at_ = 0;
};

// What the fits and the set test read from a subject's length: its bin and ln(max(1, n)); a
// fixed sample's are computed once (length_key), not for each query.
struct LengthKey {
  uint32_t length = 0;
  int bin = 0;
  double log_length = 0;
};
LengthKey length_key(uint32_t n);

// The cap of step 2: the matrix's ungapped lambda and K and the query's length. A null cap
// (tests of the regression alone) caps nothing.
struct HighScoreCap {
  double ungapped_lambda = 0, ungapped_K = 0;
  uint32_t query_length = 0;
};

// Fits scores[i] of subjects of lengths[i] (unrelated and related mixed).
LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<uint32_t>& lengths,
                                       const HighScoreCap* cap = nullptr);
// The same fit from the subjects' length_key()s.
LengthRegression fit_length_regression(const std::vector<int32_t>& scores, const std::vector<LengthKey>& keys,
                                       const HighScoreCap* cap = nullptr);

}  // namespace hpc
