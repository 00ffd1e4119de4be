#pragma once
// Tracebacks (stochastic and optimal accuracy) look at one node's predecessors in HMMER's
// striped layout: node k sits in segment q = (k-1) % Q, lane r = (k-1) / Q, and node k-1 in
// segment q-1 (same lane), or, for q = 0, in segment Q-1 one lane down (a right shift).
#include "src/hmm/fb_matrix.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {

struct StripedCell {
  int q, r;
  StripedCell(int k, int Q) : q((k - 1) % Q), r((k - 1) / Q) {}
};

// M, D, I of node k-1 in `row`, aligned with node k's segment.
struct PreviousNode {
  __m128 m, d, i;
  PreviousNode(const __m128* row, int q, int Q) {
    if (q > 0) {
      m = mmo(row, q - 1), d = dmo(row, q - 1), i = imo(row, q - 1);
    } else {
      const __m128 z = _mm_setzero_ps();
      m = sse_rightshift(mmo(row, Q - 1), z), d = sse_rightshift(dmo(row, Q - 1), z),
      i = sse_rightshift(imo(row, Q - 1), z);
    }
  }
};

// The transitions into D_k: M_{k-1}->D_k and D_{k-1}->D_k, aligned with node k's segment.
struct IntoDelete {
  __m128 md, dd;
  IntoDelete(const FbProfile& p, int q) {
    const int Q = p.Q;
    if (q > 0) {
      md = p.tfv[7 * (q - 1) + kFbMD], dd = p.tfv[7 * Q + (q - 1)];
    } else {
      const __m128 z = _mm_setzero_ps();
      md = sse_rightshift(p.tfv[7 * (Q - 1) + kFbMD], z), dd = sse_rightshift(p.tfv[8 * Q - 1], z);
    }
  }
};

}  // namespace hpc::hmm
