#pragma once
// The Forward parser of one (model, target) job per thread block: hmm::fb_forward_parser
// (src/hmm/fb_parser_lanes.hpp) with the same float operations in the same order, so the same
// bits, but a row's independent cells spread over the block's threads. Of HMMER's striped row
// (Q segments of four lanes) the M and I cells and the M->D terms depend on the row above
// only: the block computes them, one cell a thread. The D->D passes and the E sums are chains
// in q per lane (SSE adds and multiplies in segment order): thread l < 4 runs lane l's, the
// lanes meeting at the right shifts between passes. The E sum of the D cells rides along each
// extension pass: the last pass either changes nothing or is the third, so its values are the
// final ones. Both rows live in shared memory.
// Included by fb_engine_cuda.cu only (built with -ftz=true and -fmad=false).
#include <cstdint>

#include "src/hmm/fb_parser_lanes.hpp"

namespace hpc::cuda {

constexpr int kFbForwardThreads = 128;  // a job's block
constexpr int kFbChainStep = 8;         // cells a chain loads ahead (shared memory latency)

// Shared memory the kernel needs for jobs of up to Q segments: two rows of M, D, I.
inline size_t fb_forward_block_smem(int Q) { return size_t(2) * 3 * 4 * size_t(Q) * sizeof(float) + 16 * sizeof(float); }

// One row buffer: cells of lane l of segment q at [4q + l].
struct BlockRow {
  float *m, *d, *i;
};

// Lane l's chain over segments q0..q1-1 of row cells `d` (stride 4 from lane l), `step(q, x)`
// called in q order with cell q's value, returning its new value; loads run ahead of the
// chain in groups of kFbChainStep.
template <class Step>
__device__ __forceinline__ void fb_lane_chain(float* d, int Q, int l, Step step) {
  int q = 0;
  for (; q + kFbChainStep <= Q; q += kFbChainStep) {
    float x[kFbChainStep];
#pragma unroll
    for (int u = 0; u < kFbChainStep; ++u) x[u] = d[4 * (q + u) + l];
#pragma unroll
    for (int u = 0; u < kFbChainStep; ++u) x[u] = step(q + u, x[u]);
#pragma unroll
    for (int u = 0; u < kFbChainStep; ++u) d[4 * (q + u) + l] = x[u];
  }
  for (; q < Q; ++q) d[4 * q + l] = step(q, d[4 * q + l]);
}

// The Forward parser of a target of L residues (codes `seq`) against profile `p` on this
// block (all kFbForwardThreads threads call this): the scale factor of rows 0..L to
// scale[0..L] and xC of row L to *xc_out, as fb_forward_parser's FbScaleSink and return value.
__device__ inline void fb_forward_block(const uint8_t* seq, int L, const hmm::FbLanesView& p, float* smem,
                                       float* scale, float* xc_out) {
  using namespace hmm::lanes;
  const int tid = int(threadIdx.x);
  const int Q = p.Q, K = 4 * Q;
  const float* tf = reinterpret_cast<const float*>(p.tfv);  // [(7q + j) * 4 + l], then D->D at [(7Q + q) * 4 + l]
  const float* dd = tf + size_t(7) * K;
  const BlockRow even{smem, smem + K, smem + 2 * K}, odd{smem + 3 * K, smem + 4 * K, smem + 5 * K};
  float* xchg = smem + 6 * K;  // [0..3]: the D chains' ends; [4..7]: the E sums' lanes
  const hmm::FbSpecialOdds xf = hmm::fb_special_odds(L, true);
  for (int k = tid; k < K; k += kFbForwardThreads) even.m[k] = even.d[k] = even.i[k] = 0.0f;
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.x[1][0], xC = 0.0f;
  if (tid == 0) scale[0] = 1.0f;
  __syncthreads();
  for (int r = 1; r <= L; ++r) {
    const BlockRow prev = (r & 1) ? even : odd, cur = (r & 1) ? odd : even;
    const float* rp = reinterpret_cast<const float*>(p.rfv + size_t(seq[r - 1]) * Q);
    // The cells that depend on the row above: M, I, and the M->D term of the next segment.
#pragma unroll 2
    for (int k = tid; k < K; k += kFbForwardThreads) {
      const int q = k >> 2, l = k & 3;
      // Segment q reads segment q-1 of the row above; segment 0 its last one shifted right a lane.
      const int src = q > 0 ? k - 4 : (l > 0 ? K - 5 + l : -1);
      const float mpv = src >= 0 ? prev.m[src] : 0.0f, ipv = src >= 0 ? prev.i[src] : 0.0f,
                  dpv = src >= 0 ? prev.d[src] : 0.0f;
      const float* t = tf + size_t(7) * 4 * q + l;
      float sv = fmul(xB, __ldg(t));
      sv = fadd(sv, fmul(mpv, __ldg(t + 4)));
      sv = fadd(sv, fmul(ipv, __ldg(t + 8)));
      sv = fadd(sv, fmul(dpv, __ldg(t + 12)));
      sv = fmul(sv, __ldg(rp + k));
      cur.m[k] = sv;
      const float md = fmul(sv, __ldg(t + 16));
      if (q + 1 < Q) cur.d[k + 4] = md; else xchg[l] = md;
      cur.i[k] = fadd(fmul(prev.m[k], __ldg(t + 20)), fmul(prev.i[k], __ldg(t + 24)));
    }
    __syncthreads();
    if (tid < 4) {
      const unsigned mask = 0xFu;
      const int l = tid;
      // The first D pass (with the M->D terms), and beside it this lane's E sum of the M cells.
      float dcv = l > 0 ? xchg[l - 1] : 0.0f, xm = 0.0f;
      cur.d[l] = 0.0f;
      for (int q = 0; q < Q; ++q) xm = fadd(xm, cur.m[4 * q + l]);
      fb_lane_chain(cur.d, Q, l, [&](int q, float old) {
        const float d = fadd(dcv, old);
        dcv = fmul(d, __ldg(dd + 4 * q + l));
        return d;
      });
      // The serialized D->D extensions: three passes, or (models of 100 nodes and more) until
      // a pass changes nothing; each pass also sums its D cells into the E sum.
      float xs = xm;
      for (int j = 1; j < 4; ++j) {
        dcv = __shfl_up_sync(mask, dcv, 1, 4);
        if (l == 0) dcv = 0.0f;
        bool changed = false;
        xs = xm;
        fb_lane_chain(cur.d, Q, l, [&](int q, float old) {
          const float sv = fadd(dcv, old);
          changed |= sv > old;
          dcv = fmul(dcv, __ldg(dd + 4 * q + l));
          xs = fadd(sv, xs);
          return sv;
        });
        if (p.M >= 100 && !__any_sync(mask, changed)) break;
      }
      xchg[4 + l] = xs;
    }
    __syncthreads();
    xE = fadd(fadd(xchg[4], xchg[5]), fadd(xchg[6], xchg[7]));
    const float s = hmm::fb_forward_specials(xE, xN, xJ, xB, xC, xf);
    if (s != 1.0f) {  // sparse rescaling
      const float f = recip(s);
      for (int k = tid; k < K; k += kFbForwardThreads)
        cur.m[k] = fmul(cur.m[k], f), cur.d[k] = fmul(cur.d[k], f), cur.i[k] = fmul(cur.i[k], f);
    }
    if (tid == 0) scale[r] = s;
    __syncthreads();  // the row is complete (and xchg free) before the next one reads it
  }
  if (tid == 0) *xc_out = xC;
}

}  // namespace hpc::cuda
