#pragma once
// The GPU Viterbi filter's recurrence as one lane of a warp runs it. Compiled twice: by nvcc
// into the kernel (kernels/cuda/vit_kernels.cu), and by the host compiler into the warp
// emulator (kernels/cuda/vit_layout.hpp) that the CPU unit tests check against
// hmm::viterbi_filter_score (kernels/cpu/msv_filters.cpp). Plain C++ apart from the two
// macros below, so host files may include it.
//
// Layout: one warp per target; the model's nodes (padded to 32*S) are cut into 32 contiguous
// segments, lane l holding nodes k = l*S + 1 .. l*S + S (its "j" = 0 .. S-1) and their
// previous-row M, I, D values in registers. The only cross-node dependency, k-1 -> k, crosses
// a lane border once per row (a shuffle of the neighbour's last node).
//
// Same arithmetic as msv_filters.cpp's viterbi_filter_score: values are int16 held in int;
// since clamping is monotone, max(sat(a), sat(b)) == sat(max(a, b)), so the max of several
// saturated sums is taken before one clamp, and max(D, sat(x)) == min(max(D, x), 32767) for D
// already in range; the results are identical value for value.
#include <cstddef>
#include <cstdint>

#include "kernels/cuda/lane_code.hpp"

namespace hpc::hmm::vit {

constexpr int kLanes = 32;
constexpr int kCodes = 24;  // residue rows of VitProfile::emit (src/core/alphabet.hpp)
constexpr int kNeg = -32768;
constexpr int kPos = 32767;
// Kernel result for "xE reached 32767": the score is +infinity (certainly passes), as HMMER.
constexpr int32_t kOverflow = 0x7fffffff;
// Segment sizes compiled (nodes per lane); the largest bounds the model length. 40 (not 64)
// at the top: 3 x 40 row registers per lane still fit without spills, and 1,280 nodes hold
// long Pfam-style models such as SMC_N (1,142).
constexpr int kSegments[] = {2, 4, 8, 16, 32, 40};
constexpr int kMaxSegment = 40;
constexpr int kMaxModelLength = kLanes * kMaxSegment;

// Warps (targets in flight) per thread block of the kernel compiled for segment size S.
HPC_LANE_FN constexpr int warps_per_block(int /*S*/) { return 4; }

// Packed profile of one model for segment size S, in 32-bit words (the kernel copies it to
// shared memory as is):
//  - transitions, trans_words(S): word ((j * 32 + lane) * 4 + w) of node k = lane*S + j + 1,
//      w0 = bm[k] | mm[k] << 16,  w1 = im[k] | dm[k] << 16,
//      w2 = md[k] | mi[k] << 16,  w3 = ii[k] | dd[k-1] << 16   (dd into node k; -32768 at k = 1)
//    so that a lane's node is one 16-byte load and a warp's loads are contiguous;
//  - emissions, emit_words(S): word ((code * (S/2) + j/2) * 32 + lane), low half node j
//    (even), high half node j + 1, of the same k numbering.
// Padding nodes (k > M) hold -32768 everywhere: their M, D-out are then -32768 whatever the
// previous row holds (every term of the max is <= -1, and -1 + -32768 clamps), so they never
// raise xE or Dmax, and nothing below them (smaller k) reads them.
HPC_LANE_FN constexpr size_t trans_words(int S) { return size_t(4) * kLanes * size_t(S); }
HPC_LANE_FN constexpr size_t emit_words(int S) { return size_t(kCodes) * kLanes * size_t(S / 2); }
HPC_LANE_FN constexpr size_t profile_words(int S) { return trans_words(S) + emit_words(S); }

// Per model of a batch (plain data shared by host and kernel).
struct GroupParams {
  uint64_t offset = 0;  // first word of its packed profile in the batch (a multiple of 4)
  int32_t base = 0, e_loop = 0, e_move = 0, ddbound = 0;
  int32_t segment = 0;  // S it was packed for
  int32_t pad = 0;
};
// One thread block's targets: batch targets [begin, end), all of model `group`.
struct Work {
  uint32_t group = 0, begin = 0, end = 0;
};
// One batch target: its position in the database's length order (the resident device
// database, kernels/cuda/device_database.hpp) and its model's move(L).
struct TargetRef {
  uint32_t position = 0;
  int32_t move = 0;
};

HPC_LANE_FN int vmax(int a, int b) { return a > b ? a : b; }
HPC_LANE_FN int vmin(int a, int b) { return a < b ? a : b; }
HPC_LANE_FN int sat16(int v) { return vmin(vmax(v, kNeg), kPos); }
HPC_LANE_FN int lo16(uint32_t w) { return int(int16_t(uint16_t(w & 0xffffu))); }
HPC_LANE_FN int hi16(uint32_t w) { return int(int16_t(uint16_t(w >> 16))); }

struct NodeTrans {
  uint32_t w0, w1, w2, w3;
};

// Node j of a lane: `tr` points at the lane's first word (transitions + lane * 4).
HPC_LANE_FN NodeTrans load_node(const uint32_t* tr, int j) {
#if defined(__CUDA_ARCH__)
  const uint4 v = *reinterpret_cast<const uint4*>(tr + size_t(j) * (4 * kLanes));
  return {v.x, v.y, v.z, v.w};
#else
  const uint32_t* p = tr + size_t(j) * (4 * kLanes);
  return {p[0], p[1], p[2], p[3]};
#endif
}

// One row of the lane's segment, msv_filters.cpp's inner k loop. In: the row's emission words
// for the lane (`er` = emissions + code * (S/2) * 32 + lane), xB, and the previous row's M, I,
// D of node k-1 for the lane's first node (the neighbour's last node; -32768 in lane 0).
// M, I, D hold the previous row and are replaced by the current one, except D[0], which the
// caller sets from the neighbour's `dn_last` (M_{k-1} -> D_k of the current row; -32768 in
// lane 0). Out: the lane's max of M (xE) and of the M->D values (Dmax), and dn_last.
template <int S>
HPC_LANE_FN void lane_row(const uint32_t* tr, const uint32_t* er, int xB, int inM, int inI, int inD, int (&M)[S],
                         int (&I)[S], int (&D)[S], int& xE, int& dmax, int& dn_last) {
  int pm = inM, pi = inI, pd = inD, dn_prev = kNeg, xe = kNeg, dm = kNeg;
  uint32_t ew = 0;
  HPC_LANE_UNROLL
  for (int j = 0; j < S; ++j) {
    const NodeTrans t = load_node(tr, j);
    if ((j & 1) == 0) ew = er[(j >> 1) * kLanes];
    const int e = (j & 1) ? hi16(ew) : lo16(ew);
    const int om = M[j], oi = I[j], od = D[j];  // previous row, node k
    // sat(xB + bm), sat(M + mm), sat(I + im), sat(D + dm) of node k-1: one clamp of the max.
    int sv = vmax(vmax(xB + lo16(t.w0), pm + hi16(t.w0)), vmax(pi + lo16(t.w1), pd + hi16(t.w1)));
    sv = sat16(sat16(sv) + e);
    const int dn = sat16(sv + lo16(t.w2));  // M_k -> D_{k+1}
    M[j] = sv;
    I[j] = sat16(vmax(om + hi16(t.w2), oi + lo16(t.w3)));
    if (j > 0) D[j] = dn_prev;
    dn_prev = dn;
    xe = vmax(xe, sv);
    dm = vmax(dm, dn);
    pm = om, pi = oi, pd = od;
  }
  xE = xe;
  dmax = dm;
  dn_last = dn_prev;
}

// One pass of the lazy-F D->D propagation over the lane's segment, given `carry` = D of the
// node before its first (the neighbour's last node; -32768 in lane 0):
// D_k = max(D_k, sat(D_{k-1} + dd_{k-1})) in order. Returns whether any D changed. Repeating
// (carry re-read each pass) until no lane changes reaches the sequential loop's result: all
// values only grow, never past the sequential ones, and a pass that changes nothing satisfies
// the sequential recurrence node by node.
template <int S>
HPC_LANE_FN bool lane_lazy_f(const uint32_t* tr, int carry, int (&D)[S]) {
  bool changed = false;
  int d = carry;
  HPC_LANE_UNROLL
  for (int j = 0; j < S; ++j) {
    const int nd = vmin(vmax(D[j], d + hi16(load_node(tr, j).w3)), kPos);
    changed = changed | (nd != D[j]);
    D[j] = nd;
    d = nd;
  }
  return changed;
}

// The special states of one target (int16 values held in int), msv_filters.cpp's xN, xJ, xC, xB.
struct Specials {
  int xN, xJ, xC, xB, move, e_loop, e_move, ddbound;
};

HPC_LANE_FN Specials start_specials(int base, int move, int e_loop, int e_move, int ddbound) {
  Specials s;
  s.xN = base;
  s.xJ = kNeg;
  s.xC = kNeg;
  s.xB = int(int16_t(base + move));
  s.move = move;
  s.e_loop = e_loop;
  s.e_move = e_move;
  s.ddbound = ddbound;
  return s;
}

// The end of a row, after the warp's xE and Dmax are known. False when xE overflowed (the
// score is +infinity); else updates xC, xJ, xB exactly as the CPU code (plain int sums
// converted to int16) and sets `lazy` when the D->D pass must run on this row.
HPC_LANE_FN bool end_row(Specials& s, int xE, int dmax, bool& lazy) {
  if (xE >= kPos) return false;
  s.xC = int(int16_t(vmax(s.xC, xE + s.e_move)));
  s.xJ = int(int16_t(vmax(s.xJ, xE + s.e_loop)));
  s.xB = int(int16_t(vmax(s.xJ + s.move, s.xN + s.move)));
  lazy = dmax + s.ddbound > s.xB;
  return true;
}

}  // namespace hpc::hmm::vit
