#pragma once
// CPU twins of HMMER 3.3.2's first two filters, exact to its limited-precision arithmetic:
//  - msv_filter_score: p7_MSVFilter, including its SSV fast path (p7_SSVFilter): the
//    single-diagonal score is used whenever the J state provably cannot change the result,
//    otherwise the full byte MSV recursion runs. Same saturation, same overflow rule.
//  - viterbi_filter_score: p7_ViterbiFilter in 16-bit saturating arithmetic, including the
//    lazy-F shortcut that skips D->D paths when a bound shows they cannot matter.
// Both return nats (before the null-model correction), or +infinity on overflow ("certainly
// passes"), like HMMER. This is the generic (scalar) twin, written for clarity with contiguous
// rows: the reference that the striped SIMD filters (kernels/cpu/msv_simd.hpp, what the CPU
// backend runs) and the GPU kernels equal bit for bit. The per-row bookkeeping of the special
// states is shared with them below, so every twin rounds identically.
#include <cstdint>
#include <optional>
#include <vector>

#include "src/hmm/profile.hpp"

namespace hpc::hmm {

// A 32-byte block: the unit of the SIMD filters' aligned profiles and scratch rows.
struct alignas(32) SimdBlock {
  uint8_t bytes[32];
};

// Scratch rows reused across targets (one per thread).
struct FilterWorkspace {
  std::vector<int16_t> a, b, c, d, e, f;
  std::vector<SimdBlock> simd;  // the striped filters' rows
};

float msv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);
float viterbi_filter_score(const VitProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);
// The last step of viterbi_filter_score: its final C-state value xC (an int16 value) to nats,
// -infinity when xC is at the int16 floor; `move` is p.move(L) of the target's length L.
// Shared with the GPU twin (kernels/cuda/vit_cuda.hpp), so both round identically.
float viterbi_filter_nats(const VitProfile& p, int xC, int16_t move);

// The full byte MSV recursion alone (no SSV shortcut), for tests.
float msv_full_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);
// The SSV shortcut alone: its score, or nullopt where HMMER runs the full MSV instead.
std::optional<float> ssv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws);

// --- Pieces every twin shares ---------------------------------------------------------------
// Whether the SSV shortcut may run at all for target length L (p7_SSVFilter's first test).
bool ssv_applies(const MsvProfile& p, int L);
// The SSV's verdict from its best diagonal run `best` (relative to the begin level, the
// maximum over every cell, at least 0; once a run reaches 127 - bias the value may be any
// that high, as HMMER's unsigned bytes wrap there): the score, or nullopt for the full MSV.
std::optional<float> ssv_verdict(const MsvProfile& p, int L, int best);

// The full MSV's special states (bytes in HMMER) from row to row.
struct MsvRowState {
  int xJ = 0, xB = 0;
  int tjb = 0, tjbm = 0;
  MsvRowState(const MsvProfile& p, int L);
  // After a row whose best cell is xE: false on overflow (the score is +infinity).
  bool row(const MsvProfile& p, int xE) {
    if (xE + p.bias >= 255) return false;  // the byte range overflowed: a high-scoring hit
    xJ = xJ > xE - p.tec ? xJ : xE - p.tec;
    const int from = p.base > xJ ? p.base : xJ;
    xB = from - tjbm > 0 ? from - tjbm : 0;
    return true;
  }
  float nats(const MsvProfile& p) const;
};

// The Viterbi filter's special states (int16 in HMMER; N->N, C->C, J->J loops score 0).
struct VitRowState {
  int16_t xN, xJ, xC, xB, move;
  VitRowState(const VitProfile& p, int L)
      : xN(p.base), xJ(-32768), xC(-32768), xB(int16_t(p.base + p.move(L))), move(p.move(L)) {}
  // After a row whose best M cell is xE (< 32767: the caller returns +infinity at 32767).
  void row(const VitProfile& p, int16_t xE) {
    xC = int16_t(xC > xE + p.e_move ? xC : xE + p.e_move);
    xJ = int16_t(xJ > xE + p.e_loop ? xJ : xE + p.e_loop);
    xB = int16_t(xJ + move > xN + move ? xJ + move : xN + move);
  }
  // Lazy F: D->D paths matter on the next row only when they could beat entering from B.
  bool needs_dd(const VitProfile& p, int Dmax) const { return Dmax + p.ddbound > xB; }
  float nats(const VitProfile& p) const { return viterbi_filter_nats(p, xC, move); }
};

}  // namespace hpc::hmm
