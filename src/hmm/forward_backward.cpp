#include "src/hmm/forward_backward.hpp"

#include <cmath>

#include "src/core/error.hpp"

#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {
namespace {

// A D->D pass that starts from an all-zero carry adds +0 to every cell (no cell is -0) and
// carries zero on, so it and the passes after it change nothing: skipped, bit for bit.
bool all_zero(__m128 v) { return _mm_movemask_ps(_mm_cmpneq_ps(v, _mm_setzero_ps())) == 0; }

}  // namespace

float forward(const uint8_t* seq, int L, const FbProfile& p, FbMatrix& ox, bool full) {
  const int Q = p.Q;
  ox.resize(p.M, Q, L, full);
  ox.has_own_scales = true;
  const __m128 zerov = _mm_setzero_ps();
  __m128* dpc = ox.row(0);
  for (int q = 0; q < Q; ++q) mmo(dpc, q) = imo(dpc, q) = dmo(dpc, q) = zerov;
  float xE = ox.x(0, kCellE) = 0.0f;
  float xN = ox.x(0, kCellN) = 1.0f;
  float xJ = ox.x(0, kCellJ) = 0.0f;
  float xB = ox.x(0, kCellB) = p.xf[kXN][kMove];
  float xC = ox.x(0, kCellC) = 0.0f;
  ox.x(0, kCellScale) = 1.0f;
  ox.totscale = 0.0f;

  for (int i = 1; i <= L; ++i) {
    const __m128* dpp = dpc;
    dpc = ox.row(i);
    const __m128* rp = p.emit(seq[i - 1]);
    const __m128* tp = p.tfv.data();
    __m128 dcv = zerov, xEv = zerov, sv;
    const __m128 xBv = _mm_set1_ps(xB);
    __m128 mpv = sse_rightshift(mmo(dpp, Q - 1), zerov);
    __m128 dpv = sse_rightshift(dmo(dpp, Q - 1), zerov);
    __m128 ipv = sse_rightshift(imo(dpp, Q - 1), zerov);
    for (int q = 0; q < Q; ++q) {
      sv = _mm_mul_ps(xBv, *tp++);
      sv = _mm_add_ps(sv, _mm_mul_ps(mpv, *tp++));
      sv = _mm_add_ps(sv, _mm_mul_ps(ipv, *tp++));
      sv = _mm_add_ps(sv, _mm_mul_ps(dpv, *tp++));
      sv = _mm_mul_ps(sv, *rp++);
      xEv = _mm_add_ps(xEv, sv);
      mpv = mmo(dpp, q);
      dpv = dmo(dpp, q);
      ipv = imo(dpp, q);
      mmo(dpc, q) = sv;
      dmo(dpc, q) = dcv;
      dcv = _mm_mul_ps(sv, *tp++);
      sv = _mm_mul_ps(mpv, *tp++);
      imo(dpc, q) = _mm_add_ps(sv, _mm_mul_ps(ipv, *tp++));
    }
    // D->D paths: one pass with the M->D contributions, then serialized extensions.
    dcv = sse_rightshift(dcv, zerov);
    dmo(dpc, 0) = zerov;
    tp = p.tfv.data() + 7 * Q;
    for (int q = 0; q < Q; ++q) {
      dmo(dpc, q) = _mm_add_ps(dcv, dmo(dpc, q));
      dcv = _mm_mul_ps(dmo(dpc, q), *tp++);
    }
    if (p.M < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = sse_rightshift(dcv, zerov);
        if (all_zero(dcv)) break;
        tp = p.tfv.data() + 7 * Q;
        for (int q = 0; q < Q; ++q) {
          dmo(dpc, q) = _mm_add_ps(dcv, dmo(dpc, q));
          dcv = _mm_mul_ps(dcv, *tp++);
        }
      }
    } else {
      for (int j = 1; j < 4; ++j) {
        dcv = sse_rightshift(dcv, zerov);
        if (all_zero(dcv)) break;
        tp = p.tfv.data() + 7 * Q;
        __m128 cv = zerov;
        for (int q = 0; q < Q; ++q) {
          sv = _mm_add_ps(dcv, dmo(dpc, q));
          cv = _mm_or_ps(cv, _mm_cmpgt_ps(sv, dmo(dpc, q)));
          dmo(dpc, q) = sv;
          dcv = _mm_mul_ps(dcv, *tp++);
        }
        if (!_mm_movemask_ps(cv)) break;
      }
    }
    for (int q = 0; q < Q; ++q) xEv = _mm_add_ps(dmo(dpc, q), xEv);
    xE = sse_hsum(xEv);

    xN = xN * p.xf[kXN][kLoop];
    xC = (xC * p.xf[kXC][kLoop]) + (xE * p.xf[kXE][kMove]);
    xJ = (xJ * p.xf[kXJ][kLoop]) + (xE * p.xf[kXE][kLoop]);
    xB = (xJ * p.xf[kXJ][kMove]) + (xN * p.xf[kXN][kMove]);

    if (xE > 1.0e4) {  // sparse rescaling
      xN = xN / xE;
      xC = xC / xE;
      xJ = xJ / xE;
      xB = xB / xE;
      const __m128 s = _mm_set1_ps(float(1.0 / xE));
      for (int q = 0; q < Q; ++q) {
        mmo(dpc, q) = _mm_mul_ps(mmo(dpc, q), s);
        dmo(dpc, q) = _mm_mul_ps(dmo(dpc, q), s);
        imo(dpc, q) = _mm_mul_ps(imo(dpc, q), s);
      }
      ox.x(i, kCellScale) = xE;
      ox.totscale = float(ox.totscale + std::log(double(xE)));
      xE = 1.0f;
    } else {
      ox.x(i, kCellScale) = 1.0f;
    }
    ox.x(i, kCellE) = xE;
    ox.x(i, kCellN) = xN;
    ox.x(i, kCellJ) = xJ;
    ox.x(i, kCellB) = xB;
    ox.x(i, kCellC) = xC;
  }
  // HMMER stops with an error on these (never seen on real data: the rescaling prevents them).
  if (std::isnan(xC) || (L > 0 && xC == 0.0f) || std::isinf(xC))
    throw Error("Forward score out of range (NaN, 0 or infinity) on a target of " + std::to_string(L) + " residues");
  return float(ox.totscale + std::log(double(xC * p.xf[kXC][kMove])));
}

float backward(const uint8_t* seq, int L, const FbProfile& p, const FbMatrix& fwd, FbMatrix& bck, bool full) {
  const int Q = p.Q;
  bck.resize(p.M, Q, L, full);
  bck.has_own_scales = false;
  const __m128 zerov = _mm_setzero_ps();
  const __m128* tfv = p.tfv.data();
  __m128* dpc = bck.row(L);
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f;
  float xC = p.xf[kXC][kMove];
  float xE = xC * p.xf[kXE][kMove];
  __m128 xEv = _mm_set1_ps(xE), dcv = zerov, dpv, mpv, ipv, mcv, xBv;
  for (int q = 0; q < Q; ++q) mmo(dpc, q) = dmo(dpc, q) = xEv;
  for (int q = 0; q < Q; ++q) imo(dpc, q) = zerov;

  const __m128* tp = tfv + 8 * Q - 1;
  dpv = sse_leftshift_zero(dmo(dpc, Q - 1));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = _mm_mul_ps(dpv, *tp--);
    dmo(dpc, q) = _mm_add_ps(dmo(dpc, q), dcv);
    dpv = dmo(dpc, q);
  }
  for (int j = 1; j < 4; ++j) {
    tp = tfv + 8 * Q - 1;
    dcv = sse_leftshift_zero(dcv);
    if (all_zero(dcv)) break;
    for (int q = Q - 1; q >= 0; --q) {
      dcv = _mm_mul_ps(dcv, *tp--);
      dmo(dpc, q) = _mm_add_ps(dmo(dpc, q), dcv);
    }
  }
  tp = tfv + 7 * Q - 3;
  dcv = sse_leftshift_zero(dmo(dpc, 0));
  for (int q = Q - 1; q >= 0; --q) {
    mmo(dpc, q) = _mm_add_ps(mmo(dpc, q), _mm_mul_ps(dcv, *tp));
    tp -= 7;
    dcv = dmo(dpc, q);
  }
  const float scaleL = fwd.x(L, kCellScale);
  if (scaleL > 1.0f) {
    xE = xE / scaleL, xN = xN / scaleL, xC = xC / scaleL, xJ = xJ / scaleL, xB = xB / scaleL;
    xEv = _mm_set1_ps(float(1.0 / scaleL));
    for (int q = 0; q < Q; ++q) {
      mmo(dpc, q) = _mm_mul_ps(mmo(dpc, q), xEv);
      dmo(dpc, q) = _mm_mul_ps(dmo(dpc, q), xEv);
      imo(dpc, q) = _mm_mul_ps(imo(dpc, q), xEv);
    }
  }
  bck.x(L, kCellScale) = scaleL;
  bck.totscale = float(std::log(double(scaleL)));
  bck.x(L, kCellE) = xE, bck.x(L, kCellN) = xN, bck.x(L, kCellJ) = xJ, bck.x(L, kCellB) = xB, bck.x(L, kCellC) = xC;

  for (int i = L - 1; i >= 1; --i) {
    dpc = bck.row(i);
    const __m128* dpp = bck.row(i + 1);
    const __m128* rp = p.emit(seq[i]) + Q - 1;  // residue x_{i+1}
    tp = tfv + 7 * Q - 1;
    __m128 tmmv = sse_leftshift_zero(tfv[1]);
    __m128 timv = sse_leftshift_zero(tfv[2]);
    __m128 tdmv = sse_leftshift_zero(tfv[3]);
    mpv = sse_leftshift_zero(_mm_mul_ps(mmo(dpp, 0), p.emit(seq[i])[0]));
    xBv = zerov;
    for (int q = Q - 1; q >= 0; --q) {
      ipv = imo(dpp, q);
      imo(dpc, q) = _mm_add_ps(_mm_mul_ps(ipv, *tp), _mm_mul_ps(mpv, timv));
      tp--;
      dmo(dpc, q) = _mm_mul_ps(mpv, tdmv);
      mcv = _mm_add_ps(_mm_mul_ps(ipv, *tp), _mm_mul_ps(mpv, tmmv));
      tp -= 2;
      mpv = _mm_mul_ps(mmo(dpp, q), *rp--);
      mmo(dpc, q) = mcv;
      tdmv = *tp--;
      timv = *tp--;
      tmmv = *tp--;
      xBv = _mm_add_ps(xBv, _mm_mul_ps(mpv, *tp--));
    }
    xB = sse_hsum(xBv);
    xC = xC * p.xf[kXC][kLoop];
    xJ = (xB * p.xf[kXJ][kMove]) + (xJ * p.xf[kXJ][kLoop]);
    xN = (xB * p.xf[kXN][kMove]) + (xN * p.xf[kXN][kLoop]);
    xE = (xC * p.xf[kXE][kMove]) + (xJ * p.xf[kXE][kLoop]);
    xEv = _mm_set1_ps(xE);

    tp = tfv + 8 * Q - 1;
    dpv = sse_leftshift_zero(_mm_add_ps(dmo(dpc, 0), xEv));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = _mm_mul_ps(dpv, *tp--);
      dmo(dpc, q) = _mm_add_ps(dmo(dpc, q), _mm_add_ps(dcv, xEv));
      dpv = dmo(dpc, q);
      mmo(dpc, q) = _mm_add_ps(mmo(dpc, q), xEv);
    }
    for (int j = 1; j < 4; ++j) {
      dcv = sse_leftshift_zero(dcv);
      if (all_zero(dcv)) break;
      tp = tfv + 8 * Q - 1;
      for (int q = Q - 1; q >= 0; --q) {
        dcv = _mm_mul_ps(dcv, *tp--);
        dmo(dpc, q) = _mm_add_ps(dmo(dpc, q), dcv);
      }
    }
    dcv = sse_leftshift_zero(dmo(dpc, 0));
    tp = tfv + 7 * Q - 3;
    for (int q = Q - 1; q >= 0; --q) {
      mmo(dpc, q) = _mm_add_ps(mmo(dpc, q), _mm_mul_ps(dcv, *tp));
      tp -= 7;
      dcv = dmo(dpc, q);
    }

    if (xB > 1.0e16) bck.has_own_scales = true;  // fwd's scale factors are not enough [J3/119]
    float& scale = bck.x(i, kCellScale);
    scale = bck.has_own_scales ? (xB > 1.0e4 ? xB : 1.0f) : fwd.x(i, kCellScale);
    if (scale > 1.0f) {
      xE /= scale, xN /= scale, xJ /= scale, xB /= scale, xC /= scale;
      xBv = _mm_set1_ps(float(1.0 / scale));
      for (int q = 0; q < Q; ++q) {
        mmo(dpc, q) = _mm_mul_ps(mmo(dpc, q), xBv);
        dmo(dpc, q) = _mm_mul_ps(dmo(dpc, q), xBv);
        imo(dpc, q) = _mm_mul_ps(imo(dpc, q), xBv);
      }
      bck.totscale = float(bck.totscale + std::log(double(scale)));
    }
    bck.x(i, kCellE) = xE, bck.x(i, kCellN) = xN, bck.x(i, kCellJ) = xJ, bck.x(i, kCellB) = xB, bck.x(i, kCellC) = xC;
  }

  // i = 0: only N and B.
  const __m128* dpp = bck.row(1);
  tp = tfv;
  const __m128* rp = p.emit(seq[0]);
  xBv = zerov;
  for (int q = 0; q < Q; ++q) {
    mpv = _mm_mul_ps(mmo(dpp, q), *rp++);
    mpv = _mm_mul_ps(mpv, *tp);
    tp += 7;
    xBv = _mm_add_ps(xBv, mpv);
  }
  xB = sse_hsum(xBv);
  xN = (xB * p.xf[kXN][kMove]) + (xN * p.xf[kXN][kLoop]);
  bck.x(0, kCellB) = xB, bck.x(0, kCellC) = 0.0f, bck.x(0, kCellJ) = 0.0f, bck.x(0, kCellN) = xN,
  bck.x(0, kCellE) = 0.0f, bck.x(0, kCellScale) = 1.0f;
  if (std::isnan(xN) || (L > 0 && xN == 0.0f) || std::isinf(xN))
    throw Error("Backward score out of range (NaN, 0 or infinity) on a target of " + std::to_string(L) + " residues");
  return float(bck.totscale + std::log(double(xN)));
}

}  // namespace hpc::hmm
