#pragma once
// The Forward parser of one (model, target) job per warp: hmm::fb_forward_parser
// (src/hmm/fb_parser_lanes.hpp) with the same float operations in the same order, so the same
// bits, but a row's independent cells spread over the warp's threads. Of HMMER's striped row
// (Q segments of four lanes) the M and I cells and the M->D terms depend on the row above
// only: 32 threads compute them, one cell each. The D->D passes and the E sums are chains in
// q per lane (SSE adds and multiplies in segment order): thread l < 4 runs lane l's, the
// lanes meeting at the right shifts between passes. Both rows live in shared memory.
// Included by fb_engine_cuda.cu only (built with -ftz=true and -fmad=false).
#include <cstdint>

#include "src/hmm/fb_parser_lanes.hpp"

namespace hpc::cuda {

// Shared memory the kernel needs for jobs of up to Q segments: two rows of M, D, I.
inline size_t fb_forward_warp_smem(int Q) { return size_t(2) * 3 * 4 * size_t(Q) * sizeof(float) + 16 * sizeof(float); }

// One row buffer: cells of lane l of segment q at [4q + l].
struct WarpRow {
  float *m, *d, *i;
};

// The Forward parser of a target of L residues (codes `seq`) against profile `p` on this
// warp (all 32 threads of it call this): the scale factor of rows 0..L to scale[0..L] and
// xC of row L to *xc_out, as fb_forward_parser's FbScaleSink and return value.
__device__ inline void fb_forward_warp(const uint8_t* seq, int L, const hmm::FbLanesView& p, float* smem,
                                       float* scale, float* xc_out) {
  using namespace hmm::lanes;
  const int lane = int(threadIdx.x & 31);
  const int Q = p.Q, K = 4 * Q;
  const float* tf = reinterpret_cast<const float*>(p.tfv);  // [(7q + j) * 4 + l], then D->D at [(7Q + q) * 4 + l]
  const float* dd = tf + size_t(7) * K;
  const WarpRow even{smem, smem + K, smem + 2 * K}, odd{smem + 3 * K, smem + 4 * K, smem + 5 * K};
  float* xchg = smem + 6 * K;  // [0..3]: the D chains' ends; [4..7]: the E sums' lanes
  const hmm::FbSpecialOdds xf = hmm::fb_special_odds(L, true);
  for (int k = lane; k < K; k += 32) even.m[k] = even.d[k] = even.i[k] = 0.0f;
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.x[1][0], xC = 0.0f;
  if (lane == 0) scale[0] = 1.0f;
  __syncwarp();
  for (int r = 1; r <= L; ++r) {
    const WarpRow prev = (r & 1) ? even : odd, cur = (r & 1) ? odd : even;
    const float* rp = reinterpret_cast<const float*>(p.rfv + size_t(seq[r - 1]) * Q);
    // The cells that depend on the row above: M, I, and the M->D term of the next segment.
    for (int k = lane; k < K; k += 32) {
      const int q = k >> 2, l = k & 3;
      // Segment q reads segment q-1 of the row above; segment 0 its last one shifted right a lane.
      const int src = q > 0 ? k - 4 : (l > 0 ? K - 5 + l : -1);
      const float mpv = src >= 0 ? prev.m[src] : 0.0f, ipv = src >= 0 ? prev.i[src] : 0.0f,
                  dpv = src >= 0 ? prev.d[src] : 0.0f;
      const float* t = tf + size_t(7) * 4 * q + l;
      float sv = fmul(xB, t[0]);
      sv = fadd(sv, fmul(mpv, t[4]));
      sv = fadd(sv, fmul(ipv, t[8]));
      sv = fadd(sv, fmul(dpv, t[12]));
      sv = fmul(sv, rp[k]);
      cur.m[k] = sv;
      const float md = fmul(sv, t[16]);
      if (q + 1 < Q) cur.d[k + 4] = md; else xchg[l] = md;
      cur.i[k] = fadd(fmul(prev.m[k], t[20]), fmul(prev.i[k], t[24]));
    }
    __syncwarp();
    if (lane < 4) {
      const unsigned mask = 0xFu;
      const int l = lane;
      // The first D pass (with the M->D terms), and beside it this lane's E sum of the M cells.
      float dcv = l > 0 ? xchg[l - 1] : 0.0f, xm = 0.0f;
      cur.d[l] = 0.0f;
      for (int q = 0; q < Q; ++q) {
        const int k = 4 * q + l;
        xm = fadd(xm, cur.m[k]);
        const float d = fadd(dcv, cur.d[k]);
        cur.d[k] = d;
        dcv = fmul(d, dd[k]);
      }
      // The serialized D->D extensions: three passes, or (models of 100 nodes and more) until
      // a pass changes nothing.
      for (int j = 1; j < 4; ++j) {
        dcv = __shfl_up_sync(mask, dcv, 1, 4);
        if (l == 0) dcv = 0.0f;
        bool changed = false;
        for (int q = 0; q < Q; ++q) {
          const int k = 4 * q + l;
          const float old = cur.d[k];
          const float sv = fadd(dcv, old);
          changed |= sv > old;
          cur.d[k] = sv;
          dcv = fmul(dcv, dd[k]);
        }
        if (p.M >= 100 && !__any_sync(mask, changed)) break;
      }
      for (int q = 0; q < Q; ++q) xm = fadd(cur.d[4 * q + l], xm);
      xchg[4 + l] = xm;
    }
    __syncwarp();
    xE = fadd(fadd(xchg[4], xchg[5]), fadd(xchg[6], xchg[7]));
    xN = fmul(xN, xf.x[1][1]);
    xC = fadd(fmul(xC, xf.x[3][1]), fmul(xE, xf.x[0][0]));
    xJ = fadd(fmul(xJ, xf.x[2][1]), fmul(xE, xf.x[0][1]));
    xB = fadd(fmul(xJ, xf.x[2][0]), fmul(xN, xf.x[1][0]));
    float s = 1.0f;
    if (double(xE) > 1.0e4) {  // sparse rescaling
      xN = fdiv(xN, xE);
      xC = fdiv(xC, xE);
      xJ = fdiv(xJ, xE);
      xB = fdiv(xB, xE);
      const float f = recip(xE);
      for (int k = lane; k < K; k += 32) cur.m[k] = fmul(cur.m[k], f), cur.d[k] = fmul(cur.d[k], f), cur.i[k] = fmul(cur.i[k], f);
      s = xE;
    }
    if (lane == 0) scale[r] = s;
    __syncwarp();  // the row is complete (and xchg free) before the next one reads it
  }
  if (lane == 0) *xc_out = xC;
}

}  // namespace hpc::cuda
