#pragma once
// HMMER 3.3.2's stochastic traceback (impl_sse/stotrace.c, p7_StochasticTrace): samples a
// state path from a full Forward matrix. The random numbers come from Easel's "fast"
// generator (esl_randomness_CreateFast: Knuth's 32-bit LCG, seed dispersed by Jenkins' mix),
// which hmmsearch seeds with 42 and resets before every region it samples, so the samples,
// and the domains clustered from them, are reproducible and equal to hmmsearch's.
#include <cstdint>

#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/trace.hpp"

namespace hpc::hmm {

class EaselFastRng {
 public:
  explicit EaselFastRng(uint32_t seed) { reset(seed); }
  void reset(uint32_t seed);
  double uniform() {  // esl_random(): [0,1)
    x_ = x_ * 69069u + 1u;
    return double(x_) / 4294967296.0;
  }
  // esl_rnd_FChoose: index drawn from probabilities p[0..n-1] (summed in double).
  int choose(const float* p, int n);

 private:
  uint32_t x_ = 0;
};

void stochastic_trace(EaselFastRng& rng, int L, const FbProfile& p, const FbMatrix& fwd,
                      Trace& tr);

}  // namespace hpc::hmm
