#pragma once
// The Forward parser of one (model, target) job per four threads (a quad): thread l of the
// quad runs lane l of HMMER's striped row, exactly the float steps of that lane in
// hmm::fb_forward_parser (src/hmm/fb_parser_lanes.hpp), in the same order, so the same bits.
// The lanes meet only where SSE crosses them: the right shifts (of the row's last segment and
// of the D->D carries between passes) and the E sum's horizontal add, done by shuffles within
// the quad, and the "any lane changed" test of the D->D extensions. No barrier: the quads of a
// block are independent, so a block holds several targets (8 a warp) and a target costs the
// GPU four threads, not a block. Each thread's 3Q row cells live in global memory (L1/L2),
// interleaved across the launch (cell j of thread t at [j * threads + t]: a warp's accesses
// coalesce), not in shared memory: a launch then takes no shared memory from the filters'
// kernels running beside it (rows in shared memory, sized for the launch's widest model,
// cost 2.66-2.86 s against 2.43 s with the Forward on the host, 400 models on 2 H100s).
// Included by fb_engine_cuda.cu only (built with -ftz=true; the _rn intrinsics are never fused).
#include <cstdint>

#include "src/hmm/fb_parser_lanes.hpp"

namespace hpc::cuda {

constexpr int kFbQuadBlock = 32;  // threads a block: 8 jobs
constexpr int kFbQuadStep = 8;    // segments a chain loads ahead (memory latency)

// This thread's row: M, D, I of segment q at cells 3q, 3q+1, 3q+2, `stride` floats apart.
struct QuadRow {
  float* base;
  size_t stride;
  __device__ __forceinline__ float& m(int q) const { return base[size_t(3 * q) * stride]; }
  __device__ __forceinline__ float& d(int q) const { return base[size_t(3 * q + 1) * stride]; }
  __device__ __forceinline__ float& i(int q) const { return base[size_t(3 * q + 2) * stride]; }
};

// esl_sse_rightshift_ps(v, zero) across the quad: lane l takes lane l-1's value, lane 0 zero.
__device__ __forceinline__ float quad_rightshift(unsigned mask, float v, int l) {
  const float up = __shfl_up_sync(mask, v, 1, 4);
  return l == 0 ? 0.0f : up;
}

// A D->D pass over segments 0..Q-1 of this lane: step(q, old D) returns the new D; the loads
// run kFbQuadStep segments ahead of the chain.
template <class Step>
__device__ __forceinline__ void quad_d_pass(const QuadRow& row, int Q, Step step) {
  int q = 0;
  for (; q + kFbQuadStep <= Q; q += kFbQuadStep) {
    float x[kFbQuadStep];
#pragma unroll
    for (int u = 0; u < kFbQuadStep; ++u) x[u] = row.d(q + u);
#pragma unroll
    for (int u = 0; u < kFbQuadStep; ++u) row.d(q + u) = step(q + u, x[u]);
  }
  for (; q < Q; ++q) row.d(q) = step(q, row.d(q));
}

// The Forward parser of a target of L residues (codes `seq`) against profile `p`, called by
// the four threads of a quad (lane l, `mask` the quad's threads): the scale factor of rows
// 0..L to scale[0..L] and xC of row L to *xc_out, as fb_forward_parser's FbScaleSink and
// return value. `row` is this thread's cells.
__device__ inline void fb_forward_quad(const uint8_t* seq, int L, const hmm::FbLanesView& p, const QuadRow& row,
                                       int l, unsigned mask, float* scale, float* xc_out) {
  using namespace hmm::lanes;
  const int Q = p.Q;
  const float* tf = reinterpret_cast<const float*>(p.tfv) + l;  // [(7q + j) * 4], then D->D at [(7Q + q) * 4]
  const float* dd = tf + size_t(28) * Q;
  const hmm::FbSpecialOdds xf = hmm::fb_special_odds(L, true);
  for (int q = 0; q < Q; ++q) row.m(q) = row.d(q) = row.i(q) = 0.0f;
  float xN = 1.0f, xJ = 0.0f, xB = xf.x[1][0], xC = 0.0f;
  if (l == 0) scale[0] = 1.0f;
  for (int r = 1; r <= L; ++r) {
    const float* rp = reinterpret_cast<const float*>(p.rfv + size_t(seq[r - 1]) * Q) + l;
    float mpv = quad_rightshift(mask, row.m(Q - 1), l), dpv = quad_rightshift(mask, row.d(Q - 1), l),
          ipv = quad_rightshift(mask, row.i(Q - 1), l);
    float dcv = 0.0f, xEv = 0.0f;
    // M and I cells, and the M->D terms (HMMER's main loop); the loads of a group of segments
    // first: nothing here depends on this row's earlier cells but through registers.
    int q = 0;
    const auto cell = [&](int q, float m_old, float d_old, float i_old) {
      const float* t = tf + size_t(28) * q;
      float sv = fmul(xB, __ldg(t));
      sv = fadd(sv, fmul(mpv, __ldg(t + 4)));
      sv = fadd(sv, fmul(ipv, __ldg(t + 8)));
      sv = fadd(sv, fmul(dpv, __ldg(t + 12)));
      sv = fmul(sv, __ldg(rp + 4 * q));
      xEv = fadd(xEv, sv);
      mpv = m_old, dpv = d_old, ipv = i_old;
      row.m(q) = sv;
      row.d(q) = dcv;
      dcv = fmul(sv, __ldg(t + 16));
      row.i(q) = fadd(fmul(m_old, __ldg(t + 20)), fmul(i_old, __ldg(t + 24)));
    };
    for (; q + kFbQuadStep <= Q; q += kFbQuadStep) {
      float mo[kFbQuadStep], dO[kFbQuadStep], io[kFbQuadStep];
#pragma unroll
      for (int u = 0; u < kFbQuadStep; ++u) mo[u] = row.m(q + u), dO[u] = row.d(q + u), io[u] = row.i(q + u);
#pragma unroll
      for (int u = 0; u < kFbQuadStep; ++u) cell(q + u, mo[u], dO[u], io[u]);
    }
    for (; q < Q; ++q) cell(q, row.m(q), row.d(q), row.i(q));
    // D->D paths: one pass with the M->D contributions, then the serialized extensions: three
    // (M < 100), or until a pass changes no lane of the target. The E sum's D cells ride along
    // the last pass run (its values are the final ones: a pass that changes nothing leaves
    // them as they were).
    dcv = quad_rightshift(mask, dcv, l);
    row.d(0) = 0.0f;
    quad_d_pass(row, Q, [&](int q, float old) {
      const float d = fadd(dcv, old);
      dcv = fmul(d, __ldg(dd + 4 * q));
      return d;
    });
    float xs = xEv;
    for (int j = 1; j < 4; ++j) {
      dcv = quad_rightshift(mask, dcv, l);
      bool changed = false;
      xs = xEv;
      quad_d_pass(row, Q, [&](int q, float old) {
        const float sv = fadd(dcv, old);
        changed |= sv > old;
        dcv = fmul(dcv, __ldg(dd + 4 * q));
        xs = fadd(sv, xs);
        return sv;
      });
      if (p.M >= 100 && !(__ballot_sync(mask, changed) & mask)) break;
    }
    // esl_sse_hsum_ps: (a0 + a1) + (a2 + a3), the same bits in every lane (adds commute).
    const float pair = fadd(xs, __shfl_xor_sync(mask, xs, 1, 4));
    const float xE = fadd(pair, __shfl_xor_sync(mask, pair, 2, 4));
    const float s = hmm::fb_forward_specials(xE, xN, xJ, xB, xC, xf);
    if (s != 1.0f) {  // sparse rescaling
      const float f = recip(s);
      for (int k = 0; k < Q; ++k) row.m(k) = fmul(row.m(k), f), row.d(k) = fmul(row.d(k), f), row.i(k) = fmul(row.i(k), f);
    }
    if (l == 0) scale[r] = s;
  }
  if (l == 0) *xc_out = xC;
}

}  // namespace hpc::cuda
