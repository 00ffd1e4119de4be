// avsa_fill16: avsa_fill's local fill with known scores and byte heights (kAvsaHeights), two
// pairs at once in the signed 16-bit halves of each register, with Hopper's DPX add-max
// instructions (the search's packed cell, sw_kernels.cu's packed_cell): about half the
// instructions a cell of the 32-bit fill takes. Launch layout: the pairs come in slots of two
// (pairs[2k] in the low halves, pairs[2k + 1] in the high ones) of one group width G and, for
// 32-lane pairs, the same passes and columns per lane (the host pairs them so); a slot's
// second pair may be empty (m = 0). Each pair's heights go to its own trace in avsa_fill's
// layout, so avsa_walk reads them unchanged; a slot's pass-boundary strip (32-lane pairs) is
// its first pair's, holding both halves. Exact while every value stays inside int16: a local
// H lies in [0, S] for the pair's score S, E and F in [-(open + extend), S], so the host sends
// only launches whose scores stay below avsa_fill16_max_score.
#include <cuda_runtime.h>

#include "kernels/cuda/allvsall_best.cuh"
#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"

namespace hpc::cuda {
namespace {

constexpr unsigned kWarp = 0xFFFFFFFFu;
constexpr uint32_t kNoSlot = 0xFFFFFFFFu;
constexpr int kStride = kAvsaAlphabet + 1;  // a table row: the 24 letters, then the padding code
// A padding column's substitution (+ open + extend): below any H - open - extend, so a padding
// cell's x is its F or 0 and its H stays below the row's valid maxima (as avsa_fill's).
constexpr int32_t kPad16 = -16384;

__device__ __forceinline__ uint32_t splat(int32_t v) { return (uint32_t(v) & 0xFFFFu) * 0x10001u; }
__device__ __forceinline__ int32_t low(uint32_t v) { return int16_t(uint16_t(v)); }
__device__ __forceinline__ int32_t high(uint32_t v) { return int16_t(uint16_t(v >> 16)); }
__device__ __forceinline__ uint32_t add2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("add.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

// One pair's side of a slot: its end-row search (avsa_fill's Known logic) and its heights.
struct Side {
  AvsaPair pr;
  const uint8_t* q;
  int32_t target;    // the score to reach (never, for a score of 0: the empty alignment)
  uint32_t end_row;  // the end row once found (rows past it are not needed)
  Best best, pbest;  // over the passes; this pass's
  bool found;        // this lane reached the score in this pass
  __device__ void init(const AvsaPair& p, const uint8_t* qres) {
    pr = p, q = qres + p.q_off;
    target = p.score > 0 ? p.score : INT32_MAX;
    end_row = p.score > 0 ? p.m : 0;
    best = {0, 0, 0};
  }
  __device__ uint32_t letter(uint32_t i) const { return i <= pr.m ? q[i - 1] : 0; }
  // The lane's first column (1-based j0 + c + 1) whose H (value h(c)) reaches the target in row i.
  template <uint32_t C, class H>
  __device__ void check(uint32_t i, uint32_t j0, int32_t row_max, H h) {
    if (found || i > pr.m || row_max < target) return;
    uint32_t first = C - 1;
#pragma unroll
    for (uint32_t c = C - 1; c > 0; --c) first = h(c - 1) >= target ? c - 1 : first;
    pbest = {target, i, j0 + first + 1};
    found = true;
  }
};

// The lowest group row among lanes that found their end cell at row i - 1 (UINT32_MAX if none).
template <uint32_t G>
__device__ __forceinline__ uint32_t group_hit_row(const Side& s, uint32_t i) {
  uint32_t row = s.found && s.pbest.i == i - 1 ? s.pbest.i : UINT32_MAX;
  for (uint32_t d = G / 2; d > 0; d >>= 1) row = min(row, __shfl_xor_sync(kWarp, row, d));
  return row;
}

// Four columns' cells (byte 0: low pair, byte 2: high pair) as one word of each pair's bytes.
__device__ __forceinline__ void split4(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t& lo,
                                       uint32_t& hi) {
  const uint32_t a = __byte_perm(c0, c1, 0x6240), b = __byte_perm(c2, c3, 0x6240);  // lo0 lo1 hi0 hi1
  lo = __byte_perm(a, b, 0x5410);
  hi = __byte_perm(a, b, 0x7632);
}

// One slot (pairs p and p + 1, or kNoSlot) on G lanes; avsa_fill's fill_pair<G, C, Local,
// kAvsaHeights, Known> for both pairs at once.
template <uint32_t G, uint32_t C>
__device__ __forceinline__ void fill_slot(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres,
                                          const AvsaPair* __restrict__ pairs, uint32_t p, const int32_t* smat,
                                          int32_t open, int32_t extend, uint32_t* __restrict__ bits,
                                          uint2* __restrict__ strip, AvsaResult* __restrict__ results) {
  constexpr uint32_t cols = G * C;
  const uint32_t lane = threadIdx.x % G;
  Side a{}, b{};
  a.init(p != kNoSlot ? pairs[p] : AvsaPair{}, qres);
  b.init(p != kNoSlot ? pairs[p + 1] : AvsaPair{}, qres);
  const uint8_t* ta = tres + a.pr.t_off;
  const uint8_t* tb = tres + b.pr.t_off;
  const int32_t oe = open + extend;
  const uint32_t neg_oe = splat(-oe), neg_ext = splat(-extend), neg_2oe = splat(-2 * oe), pos_oe = splat(oe);
  const uint32_t m = max(a.pr.m, b.pr.m);
  const uint32_t passes = G == 32 ? (m == 0 ? 0 : avsa_passes(a.pr.n)) : 1;
  uint32_t steps = __reduce_max_sync(kWarp, max(a.end_row, b.end_row) + G - 1);
  uint2* my_strip = strip + a.pr.strip_off;
  for (uint32_t pass = 0; pass < passes; ++pass) {
    const uint32_t j0 = pass * cols + lane * C;  // columns j0+1 .. j0+C
    const uint32_t valid_a = a.pr.n > j0 ? min(a.pr.n - j0, C) : 0, valid_b = b.pr.n > j0 ? min(b.pr.n - j0, C) : 0;
    uint32_t hoe[C], f[C];  // H - open - extend and F of the row above
    uint32_t toff_a[C], toff_b[C];
#pragma unroll
    for (uint32_t c = 0; c < C; ++c) {
      hoe[c] = neg_oe;  // row 0: H = 0
      f[c] = neg_oe;    // acts as -infinity: every real F is >= -(open + extend)
      toff_a[c] = (c < valid_a ? ta[j0 + c] : kAvsaAlphabet) * sizeof(int32_t);
      toff_b[c] = (c < valid_b ? tb[j0 + c] : kAvsaAlphabet) * sizeof(int32_t);
    }
    uint32_t diag_in = neg_oe;                   // H(i - 1, j0) - oe
    uint32_t out_hoe = neg_oe, out_ee = neg_2oe;  // the last column's H - oe, the next column's E - oe
    const bool to_strip = lane == G - 1 && pass + 1 < passes;
    const uint64_t step0_a = uint64_t(pass) * (a.pr.m + G - 1) * G + lane;
    const uint64_t step0_b = uint64_t(pass) * (b.pr.m + G - 1) * G + lane;
    uint2* heights_a = reinterpret_cast<uint2*>(bits + a.pr.bits_word) + step0_a;
    uint2* heights_b = reinterpret_cast<uint2*>(bits + b.pr.bits_word) + step0_b;
    if (G == 32) steps = max(a.end_row, b.end_row) + 31;  // an earlier pass found the end rows
    a.pbest = b.pbest = {0, 0, 0};
    a.found = b.found = false;
    for (uint32_t s = 0; s < steps; ++s) {
      uint32_t in_hoe = __shfl_up_sync(kWarp, out_hoe, 1, G), in_ee = __shfl_up_sync(kWarp, out_ee, 1, G);
      const uint32_t i = s - lane + 1;  // this lane's row (1-based)
      const bool hit = (a.found && a.pbest.i == i - 1) || (b.found && b.pbest.i == i - 1);
      if (__ballot_sync(kWarp, hit)) {
        a.end_row = min(a.end_row, group_hit_row<G>(a, i));
        b.end_row = min(b.end_row, group_hit_row<G>(b, i));
        steps = __reduce_max_sync(kWarp, min(steps, max(a.end_row, b.end_row) + G - 1));
        if (s >= steps) break;
      }
      if (s < lane || i > max(a.end_row, b.end_row)) continue;
      if (lane == 0) {
        if (pass == 0) {
          in_hoe = neg_oe, in_ee = neg_2oe;  // column 0: H = 0, so E(i, 1) = -oe
        } else {
          const uint2 e = my_strip[i];
          in_hoe = e.x, in_ee = e.y;
        }
      }
      const char* row_a = reinterpret_cast<const char*>(smat + a.letter(i) * kStride);
      const char* row_b = reinterpret_cast<const char*>(smat + b.letter(i) * kStride);
      uint32_t diag = diag_in, ee = in_ee, row_max = 0;
      diag_in = in_hoe;
      uint32_t cell[kAvsaLaneCols];
#pragma unroll
      for (uint32_t c = 0; c < C; ++c) {
        const uint32_t t = __byte_perm(*reinterpret_cast<const uint32_t*>(row_a + toff_a[c]),
                                       *reinterpret_cast<const uint32_t*>(row_b + toff_b[c]), 0x5410);
        f[c] = __viaddmax_s16x2(f[c], neg_ext, hoe[c]);  // F = max(F up - extend, H up - oe)
        const uint32_t x = __viaddmax_s16x2_relu(diag, t, f[c]);  // max(H diag + s, F, 0)
        diag = hoe[c];
        hoe[c] = __viaddmax_s16x2(x, neg_oe, ee);  // H - oe = max(x, E) - oe
        ee = __viaddmax_s16x2(ee, neg_ext, add2(x, neg_2oe));  // the next column's E - oe
        const uint32_t h = add2(hoe[c], pos_oe);
        row_max = __vimax_s16x2_relu(row_max, h);
        // The cell's byte, per half: H modulo 128 shifted up, plus 1 when H is not F (H + ~F =
        // H - F - 1 is >= 0 exactly when F < H).
        cell[c] = (h << 1) + (~(add2(h, ~f[c]) >> 15) & 0x10001u);
      }
#pragma unroll
      for (uint32_t c = C; c < kAvsaLaneCols; ++c) cell[c] = 0;
      out_hoe = hoe[C - 1], out_ee = ee;
      a.check<C>(i, j0, low(row_max), [&](uint32_t c) { return low(hoe[c]) + oe; });
      b.check<C>(i, j0, high(row_max), [&](uint32_t c) { return high(hoe[c]) + oe; });
      uint2 wa, wb;
      split4(cell[0], cell[1], cell[2], cell[3], wa.x, wb.x);
      split4(cell[4], cell[5], cell[6], cell[7], wa.y, wb.y);
      if (i <= a.pr.m) heights_a[uint64_t(s) * G] = wa;
      if (i <= b.pr.m) heights_b[uint64_t(s) * G] = wb;
      if (to_strip) my_strip[i] = make_uint2(out_hoe, out_ee);
    }
    if (a.pbest.beats(a.best)) a.best = a.pbest;
    if (b.pbest.beats(b.best)) b.best = b.pbest;
    __syncwarp();  // the strip written by the group's last lane is read by its lane 0 next pass
  }
  a.best = group_best<G>(a.best);
  b.best = group_best<G>(b.best);
  if (lane == 0 && p != kNoSlot) {
    results[p] = AvsaResult{a.best.score, a.best.i, a.best.j, 0, 0, 0, 0};
    results[p + 1] = AvsaResult{b.best.score, b.best.i, b.best.j, 0, 0, 0, 0};
  }
}

// Warps [0, g32 / 2) take the 32-lane slots, then 2 slots per warp of 16 lanes, then 4 of 8.
inline uint32_t fill16_warps(AvsaFillShape s) { return s.g32 / 2 + (s.g16 / 2 + 1) / 2 + (s.g8 / 2 + 3) / 4; }

__global__ void __launch_bounds__(kAvsaThreads, 4)
avsa_fill16(const uint8_t* __restrict__ qres, const uint8_t* __restrict__ tres, const AvsaPair* __restrict__ pairs,
            AvsaFillShape shape, const int32_t* __restrict__ matrix, int32_t open, int32_t extend,
            uint32_t* __restrict__ bits, uint2* __restrict__ strip, AvsaResult* __restrict__ results) {
  __shared__ int32_t smat[kAvsaAlphabet * kStride];  // substitution + open + extend
  for (int k = threadIdx.x; k < kAvsaAlphabet * kStride; k += blockDim.x) {
    const int x = k / kStride, y = k % kStride;
    smat[k] = y < kAvsaAlphabet ? matrix[x * kAvsaAlphabet + y] + open + extend : kPad16;
  }
  __syncthreads();
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  const uint32_t s32 = shape.g32 / 2, s16 = shape.g16 / 2, s8 = shape.g8 / 2;  // slots
  const uint32_t w16 = (s16 + 1) / 2, w8 = (s8 + 3) / 4;
  if (warp < s32) {
    const uint32_t p = 2 * warp;
    switch (avsa_lane_cols(pairs[p].n)) {  // warp-uniform: one slot per warp
#define HPC_AVSA_FILL16_32(C) \
  case C: fill_slot<32, C>(qres, tres, pairs, p, smat, open, extend, bits, strip, results); break;
      HPC_AVSA_FILL16_32(5)
      HPC_AVSA_FILL16_32(6)
      HPC_AVSA_FILL16_32(7)
      HPC_AVSA_FILL16_32(8)
#undef HPC_AVSA_FILL16_32
    }
  } else if (warp < s32 + w16) {
    const uint32_t k = (warp - s32) * 2 + lane / 16;
    fill_slot<16, kAvsaLaneCols>(qres, tres, pairs, k < s16 ? shape.g32 + 2 * k : kNoSlot, smat, open, extend, bits,
                                 strip, results);
  } else if (warp < s32 + w16 + w8) {
    const uint32_t k = (warp - s32 - w16) * 4 + lane / 8;
    fill_slot<8, kAvsaLaneCols>(qres, tres, pairs, k < s8 ? shape.g32 + shape.g16 + 2 * k : kNoSlot, smat, open,
                                extend, bits, strip, results);
  }
}

}  // namespace

void launch_avsa_fill16(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, AvsaFillShape shape,
                        const int32_t* matrix, int32_t open, int32_t extend, uint32_t* bits, uint2* strip,
                        AvsaResult* results, void* stream) {
  if (shape.pairs() == 0) return;
  if (shape.g32 % 2 || shape.g16 % 2 || shape.g8 % 2) throw Error("avsa_fill16: the pairs must come in slots of two");
  const uint64_t blocks = (uint64_t(fill16_warps(shape)) * 32 + kAvsaThreads - 1) / kAvsaThreads;
  avsa_fill16<<<unsigned(blocks), kAvsaThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      qres, tres, pairs, shape, matrix, open, extend, bits, strip, results);
  CUDA_CHECK_LAUNCH("avsa_fill16");
}

}  // namespace hpc::cuda
