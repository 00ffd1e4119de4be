#include "src/hmm/forward_backward.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "src/core/error.hpp"

#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {
namespace {

// A D->D pass that starts from an all-zero carry adds +0 to every cell (no cell is -0) and
// carries zero on, so it and the passes after it change nothing: skipped, bit for bit.
bool all_zero(__m128 v) { return _mm_movemask_ps(_mm_cmpneq_ps(v, _mm_setzero_ps())) == 0; }

// forward() one row at a time (start, row(1..L) in order, score).
class ForwardRows {
 public:
  // xf: the target's special transitions (FbProfile::xf as configured for it).
  ForwardRows(const uint8_t* seq, int L, const FbProfile& p, const float (*xf)[2], FbMatrix& ox, bool full)
      : seq_(seq), L_(L), p_(p), ox_(ox) {
    std::memcpy(xf_, xf, sizeof xf_);
    const int Q = p.Q;
    ox.resize(p.M, Q, L, full);
    ox.has_own_scales = true;
    const __m128 zerov = _mm_setzero_ps();
    dpc_ = ox.row(0);
    for (int q = 0; q < Q; ++q) mmo(dpc_, q) = imo(dpc_, q) = dmo(dpc_, q) = zerov;
    xE_ = ox.x(0, kCellE) = 0.0f;
    xN_ = ox.x(0, kCellN) = 1.0f;
    xJ_ = ox.x(0, kCellJ) = 0.0f;
    xB_ = ox.x(0, kCellB) = xf_[kXN][kMove];
    xC_ = ox.x(0, kCellC) = 0.0f;
    ox.x(0, kCellScale) = 1.0f;
    ox.totscale = 0.0f;
  }

  void row(int i) {
    main_pass(i);
    first_dd_pass();
    finish_row(i);
  }

  // The first D->D pass: a serial chain of adds and multiplies.
  void first_dd_pass() {
    const int Q = p_.Q;
    const __m128* tp = p_.tfv.data() + 7 * Q;
    __m128* dpc = dpc_;
    __m128 dcv = dcv_;
    for (int q = 0; q < Q; ++q) {
      dmo(dpc, q) = _mm_add_ps(dcv, dmo(dpc, q));
      dcv = _mm_mul_ps(dmo(dpc, q), tp[q]);
    }
    dcv_ = dcv;
  }

  // The row up to its first D->D pass: M and I, D's M->D terms; leaves the pass's carry.
  void main_pass(int i) {
    const FbProfile& p = p_;
    FbMatrix& ox = ox_;
    const int Q = p.Q;
    const __m128 zerov = _mm_setzero_ps();
    const __m128* dpp = dpc_;
    __m128* dpc = dpc_ = ox.row(i);
    const __m128* rp = p.emit(seq_[i - 1]);
    const __m128* tp = p.tfv.data();
    __m128 dcv = zerov, xEv = zerov, sv;
    const __m128 xBv = _mm_set1_ps(xB_);
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
    dcv_ = sse_rightshift(dcv, zerov);
    dmo(dpc, 0) = zerov;
    xEv_ = xEv;
  }

  // The row after its first D->D pass: the extensions, E, the specials, the rescaling.
  void finish_row(int i) {
    const FbProfile& p = p_;
    FbMatrix& ox = ox_;
    const int Q = p.Q;
    const __m128 zerov = _mm_setzero_ps();
    __m128* dpc = dpc_;
    __m128 dcv = dcv_, xEv = xEv_, sv;
    const __m128* tp;
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
    float xE = sse_hsum(xEv);

    float &xN = xN_, &xC = xC_, &xJ = xJ_, &xB = xB_;
    xN = xN * xf_[kXN][kLoop];
    xC = (xC * xf_[kXC][kLoop]) + (xE * xf_[kXE][kMove]);
    xJ = (xJ * xf_[kXJ][kLoop]) + (xE * xf_[kXE][kLoop]);
    xB = (xJ * xf_[kXJ][kMove]) + (xN * xf_[kXN][kMove]);

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

  float score() const {
    const float xC = xC_;
    // HMMER stops with an error on these (never seen on real data: the rescaling prevents them).
    if (std::isnan(xC) || (L_ > 0 && xC == 0.0f) || std::isinf(xC))
      throw Error("Forward score out of range (NaN, 0 or infinity) on a target of " + std::to_string(L_) + " residues");
    return float(ox_.totscale + std::log(double(xC * xf_[kXC][kMove])));
  }

 private:
  const uint8_t* seq_;
  int L_;
  const FbProfile& p_;
  FbMatrix& ox_;
  __m128* dpc_;
  __m128 dcv_, xEv_;
  float xE_, xN_, xJ_, xB_, xC_;
  float xf_[4][2];
};

// backward() one row at a time (start: row L; row(L-1..1) in order; score: row 0).
class BackwardRows {
 public:
  BackwardRows(const uint8_t* seq, int L, const FbProfile& p, const float (*xf)[2], const FbMatrix& fwd, FbMatrix& bck,
               bool full)
      : seq_(seq), L_(L), p_(p), fwd_(fwd), bck_(bck) {
    std::memcpy(xf_, xf, sizeof xf_);
    const int Q = p.Q;
    bck.resize(p.M, Q, L, full);
    bck.has_own_scales = false;
    const __m128 zerov = _mm_setzero_ps();
    const __m128* tfv = p.tfv.data();
    __m128* dpc = bck.row(L);
    float &xJ = xJ_, &xB = xB_, &xN = xN_, &xC = xC_, &xE = xE_;
    xJ = 0.0f, xB = 0.0f, xN = 0.0f;
    xC = xf_[kXC][kMove];
    xE = xC * xf_[kXE][kMove];
    __m128 xEv = _mm_set1_ps(xE), dcv = zerov, dpv;
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
  }

  void row(int i) {
    main_pass(i);
    BackwardRows* const self[1] = {this};
    first_dd_pass(self, 1);
    finish_row(i);
  }

  // The first D->D pass of `n` targets' rows (1 or 2, one profile) in one loop: each target's
  // chain of adds and multiplies in its own order, the two chains side by side.
  static void first_dd_pass(BackwardRows* const* t, int n) {
    const FbProfile& p = t[0]->p_;
    const int Q = p.Q;
    const __m128* dd = p.tfv.data() + 7 * Q;
    if (n == 1) {
      __m128* dpc = t[0]->dpc_;
      const __m128 xEv = t[0]->xEv_;
      __m128 dcv = _mm_setzero_ps(), dpv = sse_leftshift_zero(_mm_add_ps(dmo(dpc, 0), xEv));
      for (int q = Q - 1; q >= 0; --q) {
        dcv = _mm_mul_ps(dpv, dd[q]);
        dmo(dpc, q) = _mm_add_ps(dmo(dpc, q), _mm_add_ps(dcv, xEv));
        dpv = dmo(dpc, q);
        mmo(dpc, q) = _mm_add_ps(mmo(dpc, q), xEv);
      }
      t[0]->dcv_ = dcv;
      return;
    }
    __m128 *ra = t[0]->dpc_, *rb = t[1]->dpc_;
    const __m128 ea = t[0]->xEv_, eb = t[1]->xEv_;
    __m128 ca = _mm_setzero_ps(), cb = ca;
    __m128 pa = sse_leftshift_zero(_mm_add_ps(dmo(ra, 0), ea)), pb = sse_leftshift_zero(_mm_add_ps(dmo(rb, 0), eb));
    for (int q = Q - 1; q >= 0; --q) {
      ca = _mm_mul_ps(pa, dd[q]), cb = _mm_mul_ps(pb, dd[q]);
      pa = _mm_add_ps(dmo(ra, q), _mm_add_ps(ca, ea)), pb = _mm_add_ps(dmo(rb, q), _mm_add_ps(cb, eb));
      dmo(ra, q) = pa, dmo(rb, q) = pb;
      mmo(ra, q) = _mm_add_ps(mmo(ra, q), ea), mmo(rb, q) = _mm_add_ps(mmo(rb, q), eb);
    }
    t[0]->dcv_ = ca, t[1]->dcv_ = cb;
  }

  // The row up to its first D->D pass: M, I, D's M->D terms and the specials.
  void main_pass(int i) {
    const FbProfile& p = p_;
    FbMatrix& bck = bck_;
    const int Q = p.Q;
    const __m128 zerov = _mm_setzero_ps();
    const __m128* tfv = p.tfv.data();
    float &xJ = xJ_, &xB = xB_, &xN = xN_, &xC = xC_, &xE = xE_;
    __m128 mpv, ipv, mcv, xBv;
    __m128* dpc = bck.row(i);
    const __m128* dpp = bck.row(i + 1);
    const __m128* rp = p.emit(seq_[i]) + Q - 1;  // residue x_{i+1}
    const __m128* tp = tfv + 7 * Q - 1;
    __m128 tmmv = sse_leftshift_zero(tfv[1]);
    __m128 timv = sse_leftshift_zero(tfv[2]);
    __m128 tdmv = sse_leftshift_zero(tfv[3]);
    mpv = sse_leftshift_zero(_mm_mul_ps(mmo(dpp, 0), p.emit(seq_[i])[0]));
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
    xC = xC * xf_[kXC][kLoop];
    xJ = (xB * xf_[kXJ][kMove]) + (xJ * xf_[kXJ][kLoop]);
    xN = (xB * xf_[kXN][kMove]) + (xN * xf_[kXN][kLoop]);
    xE = (xC * xf_[kXE][kMove]) + (xJ * xf_[kXE][kLoop]);
    xEv_ = _mm_set1_ps(xE);
    dpc_ = dpc;
  }

  // The row after its first D->D pass: the extensions, M's D terms, the rescaling.
  void finish_row(int i) {
    const FbProfile& p = p_;
    FbMatrix& bck = bck_;
    const int Q = p.Q;
    const __m128* tfv = p.tfv.data();
    float &xJ = xJ_, &xB = xB_, &xN = xN_, &xC = xC_, &xE = xE_;
    __m128* dpc = dpc_;
    __m128 dcv = dcv_, xBv;
    const __m128* tp;
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
    scale = bck.has_own_scales ? (xB > 1.0e4 ? xB : 1.0f) : fwd_.x(i, kCellScale);
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

  // Row 0 (only N and B) and the score.
  float score() {
    const FbProfile& p = p_;
    FbMatrix& bck = bck_;
    const int Q = p.Q;
    const __m128* dpp = bck.row(1);
    const __m128* tp = p.tfv.data();
    const __m128* rp = p.emit(seq_[0]);
    __m128 xBv = _mm_setzero_ps(), mpv;
    for (int q = 0; q < Q; ++q) {
      mpv = _mm_mul_ps(mmo(dpp, q), *rp++);
      mpv = _mm_mul_ps(mpv, *tp);
      tp += 7;
      xBv = _mm_add_ps(xBv, mpv);
    }
    const float xB = sse_hsum(xBv);
    const float xN = (xB * xf_[kXN][kMove]) + (xN_ * xf_[kXN][kLoop]);
    bck.x(0, kCellB) = xB, bck.x(0, kCellC) = 0.0f, bck.x(0, kCellJ) = 0.0f, bck.x(0, kCellN) = xN,
    bck.x(0, kCellE) = 0.0f, bck.x(0, kCellScale) = 1.0f;
    if (std::isnan(xN) || (L_ > 0 && xN == 0.0f) || std::isinf(xN))
      throw Error("Backward score out of range (NaN, 0 or infinity) on a target of " + std::to_string(L_) + " residues");
    return float(bck.totscale + std::log(double(xN)));
  }

 private:
  const uint8_t* seq_;
  int L_;
  const FbProfile& p_;
  const FbMatrix& fwd_;
  FbMatrix& bck_;
  __m128* dpc_;
  __m128 dcv_, xEv_;
  float xE_, xN_, xJ_, xB_, xC_;
  float xf_[4][2];
};

}  // namespace

float forward(const uint8_t* seq, int L, const FbProfile& p, FbMatrix& ox, bool full) {
  ForwardRows f(seq, L, p, p.xf, ox, full);
  for (int i = 1; i <= L; ++i) f.row(i);
  return f.score();
}

float backward(const uint8_t* seq, int L, const FbProfile& p, const FbMatrix& fwd, FbMatrix& bck, bool full) {
  BackwardRows b(seq, L, p, p.xf, fwd, bck, full);
  for (int i = L - 1; i >= 1; --i) b.row(i);
  return b.score();
}

// Rows alternate between the two targets: each row's D->D pass is a serial chain (an add and
// a multiply a segment), and the other target's row, independent of it, fills its latency.
void backward_pair(const FbTargetPair& t, const FbProfile& p, const FbMatrix& fwda, const FbMatrix& fwdb,
                   FbMatrix& bcka, FbMatrix& bckb, bool full, float sc[2]) {
  BackwardRows a(t.seq[0], t.L[0], p, t.xf[0].x, fwda, bcka, full), b(t.seq[1], t.L[1], p, t.xf[1].x, fwdb, bckb, full);
  int ia = t.L[0] - 1, ib = t.L[1] - 1;
  BackwardRows* const both[2] = {&a, &b};
  for (; ia >= 1 && ib >= 1; --ia, --ib) {
    a.main_pass(ia), b.main_pass(ib);
    BackwardRows::first_dd_pass(both, 2);
    a.finish_row(ia), b.finish_row(ib);
  }
  for (; ia >= 1; --ia) a.row(ia);
  for (; ib >= 1; --ib) b.row(ib);
  sc[0] = a.score(), sc[1] = b.score();
}

}  // namespace hpc::hmm
