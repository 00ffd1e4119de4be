#pragma once
// HMMER 3.3.2's striped Forward and Backward in probability space with sparse rescaling
// (impl_sse/fwdback.c, forward_engine/backward_engine), the same vector operations in the
// same order, so scores, scale factors and matrices equal HMMER's bit for bit.
//  - forward: fills `mx` (full, or one row for the parser) and returns the score in nats;
//  - backward: uses forward's scale factors; fills `bck` and returns its score in nats.
// Targets are residue codes under HMMER's rules, seq[0..L-1] (HMMER's dsq[1..L]).
#include <cstdint>

#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/fb_profile.hpp"

namespace hpc::hmm {

float forward(const uint8_t* seq, int L, const FbProfile& p, FbMatrix& mx, bool full);
float backward(const uint8_t* seq, int L, const FbProfile& p, const FbMatrix& fwd, FbMatrix& bck, bool full);

// Two targets (L >= 1 each) through backward() at once, their rows alternating so that one's
// serial D->D chain overlaps the other's work. Each target's matrix and score (sc[0], sc[1])
// are backward()'s bit for bit: its own operations, in order.
// xf: each target's special transitions (FbProfile::xf as configured for it; p's are unused).
struct FbTargetPair {
  const uint8_t* seq[2];
  int L[2];
  FbSpecialOdds xf[2];
};
void backward_pair(const FbTargetPair& t, const FbProfile& p, const FbMatrix& fwda, const FbMatrix& fwdb,
                   FbMatrix& bcka, FbMatrix& bckb, bool full, float sc[2]);

}  // namespace hpc::hmm
