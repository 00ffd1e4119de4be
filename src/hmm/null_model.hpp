#pragma once
// HMMER 3.3.2's null models, reproduced in the same floating-point steps so scores
// agree bit for bit:
//  - null1: iid background (Swiss-Prot 50.8 frequencies) with a geometric length
//    distribution of mean L (p1 = L/(L+1)), score = L ln p1 + ln(1-p1);
//  - the bias-filter null: a two-state HMM (background / model composition) scored by
//    Forward, with the same length distribution imposed (p7_bg_FilterScore).
// Target residues are our alphabet codes (src/core/alphabet.hpp).
#include <array>
#include <cstdint>

#include "io/hmm_file.hpp"
#include "src/core/alphabet.hpp"

namespace hpc::hmm {

// Background frequencies in HMMER's residue order (ACDEFGHIKLMNPQRSTVWY).
const std::array<float, kHmmAlphabet>& background_frequencies();

// For each residue code of HMMER's rules (src/core/alphabet.hpp): the HMMER residues it
// stands for, as Easel 0.48 (HMMER 3.3.2's) defines its amino alphabet: standard residues
// map to one; B = {D,N}, J = {I,L}, Z = {Q,E}, U = {C}, O = {K}, X = all 20 (degenerate
// symbols, scored as the background-weighted mean of their members' scores, in float as
// Easel sums them: so U is not always bit-equal to C); '*' to none (HMMER's nonresidue,
// -infinity in the MSV and Viterbi filters, odds 1 in the bias filter).
struct ResidueClass {
  int count = 0;
  std::array<int8_t, kHmmAlphabet> members{};
};
const std::array<ResidueClass, kHmmerAlphabetSize>& residue_classes();
bool is_nonresidue(uint8_t code);  // '*'

// null1 score (nats) for a target of length L.
float null_one_score(int L);

// The two-state composition filter HMM of one model.
class BiasFilter {
 public:
  BiasFilter() = default;  // empty (ModelFilters' default)
  BiasFilter(int model_length, const std::array<float, kHmmAlphabet>& compo);
  // Filter null score (nats) of a target; the length model is set from L as hmmsearch does.
  float score(const uint8_t* residues, int L) const;
  // score()'s last step, given the sum of its per-row float logs (the end row's included): what
  // a twin that runs the Forward elsewhere (kernels/cuda/bias_cuda.hpp) finishes with.
  static float finish(float log_sum, int L);

  using Odds = std::array<std::array<float, 2>, kHmmerAlphabetSize>;
  const Odds& odds() const { return odds_; }
  float t10() const { return t10_; }
  float t11() const { return t11_; }

 private:
  Odds odds_{};             // emission odds per code, state
  float t10_ = 0, t11_ = 0;  // biased-state transitions
};

// P(S >= x) for a Gumbel with location mu and scale lambda (esl_gumbel_surv).
double gumbel_survival(double x, double mu, double lambda);

}  // namespace hpc::hmm
