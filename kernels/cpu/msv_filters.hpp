#pragma once
// CPU twins of HMMER 3.3.2's first two filters, exact to its limited-precision arithmetic:
//  - msv_filter_score: p7_MSVFilter, including its SSV fast path (p7_SSVFilter): the
//    single-diagonal score is used whenever the J state provably cannot change the result,
//    otherwise the full byte MSV recursion runs. Same saturation, same overflow rule.
//  - viterbi_filter_score: p7_ViterbiFilter in 16-bit saturating arithmetic, including the
//    lazy-F shortcut that skips D->D paths when a bound shows they cannot matter.
// Both return nats (before the null-model correction), or +infinity on overflow ("certainly
// passes"), like HMMER. The rows are contiguous (not striped) so the compiler vectorises
// them; the recurrences and roundings are HMMER's.
#include <cstdint>
#include <vector>

#include "src/hmm/profile.hpp"

namespace hpc::hmm {

// Scratch rows reused across targets (one per thread).
struct FilterWorkspace {
  std::vector<int16_t> a, b, c, d, e, f;
};

float msv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);
float viterbi_filter_score(const VitProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);
// The last step of viterbi_filter_score: its final C-state value xC (an int16 value) to nats,
// -infinity when xC is at the int16 floor; `move` is p.move(L) of the target's length L.
// Shared with the GPU twin (kernels/cuda/vit_cuda.hpp), so both round identically.
float viterbi_filter_nats(const VitProfile& p, int xC, int16_t move);

// The full byte MSV recursion alone (no SSV shortcut), for tests.
float msv_full_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);

}  // namespace hpc::hmm
