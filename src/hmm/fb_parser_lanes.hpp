#pragma once
// HMMER 3.3.2's Forward and Backward parsers (forward_backward.cpp with full = false: one
// vector row overwritten in place, every special row kept) written once for the host and
// the GPU. Each __m128 is four floats (Lanes4) and each SSE operation its scalar equivalent
// lane by lane, in the same order: _mm_mul_ps/_mm_add_ps per lane, esl_sse_rightshift_ps,
// the left shift with zero fill, the horizontal sum (a0+a1)+(a2+a3), the any-lane-greater
// test of movemask, and the double-precision reciprocal of the rescaling. So the results
// equal the SSE code bit for bit, provided the arithmetic is plain IEEE single precision
// with denormals flushed on inputs and results, as hmmsearch runs: on the host, code built
// with -ffp-contract=off (src/hmm) under HmmerFloatMode; on the GPU, the _rn intrinsics
// (never fused) in a file built with -ftz=true.
//
// The parsers do not take logarithms: they hand each special row (E, N, J, B, C, scale) to a
// sink and return the last cell; the host turns scale factors and that cell into nats with
// libm's log, as the SSE code does (fb_parser.hpp).
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define FB_LANE_FN __host__ __device__ __forceinline__
#else
#define FB_LANE_FN inline
#endif

namespace hpc::hmm {

struct alignas(16) Lanes4 {
  float v[4];
};

// The striped profile (FbProfile's rfv and tfv, same layout) and the per-target special
// transitions (FbProfile::xf after configure).
struct FbLanesView {
  int M = 0, Q = 0;
  const Lanes4* rfv = nullptr;  // [code * Q + q]
  const Lanes4* tfv = nullptr;  // 8Q: 7 transitions per q, then Q D->D
};
struct FbSpecialOdds {
  float x[4][2];  // [E, N, J, C][move, loop], FbSpecial x FbMove
};

namespace lanes {

#if defined(__CUDA_ARCH__)
FB_LANE_FN float fmul(float a, float b) { return __fmul_rn(a, b); }
FB_LANE_FN float fadd(float a, float b) { return __fadd_rn(a, b); }
FB_LANE_FN float fdiv(float a, float b) { return __fdiv_rn(a, b); }
FB_LANE_FN float recip(float a) { return __double2float_rn(__ddiv_rn(1.0, double(a))); }
#else
FB_LANE_FN float fmul(float a, float b) { return a * b; }
FB_LANE_FN float fadd(float a, float b) { return a + b; }
FB_LANE_FN float fdiv(float a, float b) { return a / b; }
FB_LANE_FN float recip(float a) { return float(1.0 / double(a)); }
#endif

FB_LANE_FN Lanes4 set1(float x) { return Lanes4{{x, x, x, x}}; }
FB_LANE_FN Lanes4 zero() { return set1(0.0f); }
FB_LANE_FN Lanes4 add(const Lanes4& a, const Lanes4& b) {
  return Lanes4{{fadd(a.v[0], b.v[0]), fadd(a.v[1], b.v[1]), fadd(a.v[2], b.v[2]), fadd(a.v[3], b.v[3])}};
}
FB_LANE_FN Lanes4 mul(const Lanes4& a, const Lanes4& b) {
  return Lanes4{{fmul(a.v[0], b.v[0]), fmul(a.v[1], b.v[1]), fmul(a.v[2], b.v[2]), fmul(a.v[3], b.v[3])}};
}
// esl_sse_rightshift_ps(a, b): {b0, a0, a1, a2}
FB_LANE_FN Lanes4 rightshift(const Lanes4& a, const Lanes4& b) { return Lanes4{{b.v[0], a.v[0], a.v[1], a.v[2]}}; }
// sse_leftshift_zero: {a1, a2, a3, 0}
FB_LANE_FN Lanes4 leftshift_zero(const Lanes4& a) { return Lanes4{{a.v[1], a.v[2], a.v[3], 0.0f}}; }
// esl_sse_hsum_ps: lane 0 of (a + a.1230) + its .2301 shuffle
FB_LANE_FN float hsum(const Lanes4& a) { return fadd(fadd(a.v[0], a.v[1]), fadd(a.v[2], a.v[3])); }
// _mm_movemask_ps(_mm_cmpgt_ps(a, b)) != 0
FB_LANE_FN bool any_greater(const Lanes4& a, const Lanes4& b) {
  return (a.v[0] > b.v[0]) | (a.v[1] > b.v[1]) | (a.v[2] > b.v[2]) | (a.v[3] > b.v[3]);
}

}  // namespace lanes

// p7_oprofile_Reconfig{Multihit,Unihit}'s specials for a target of L residues.
FB_LANE_FN FbSpecialOdds fb_special_odds(int L, bool multihit) {
  FbSpecialOdds s;
  s.x[0][0] = multihit ? 0.5f : 1.0f;
  s.x[0][1] = multihit ? 0.5f : 0.0f;
  const float nj = multihit ? 1.0f : 0.0f;
  const float pmove = lanes::fdiv(lanes::fadd(2.0f, nj), lanes::fadd(lanes::fadd(float(L), 2.0f), nj));
  const float ploop = lanes::fadd(1.0f, -pmove);
  for (int z = 1; z < 4; ++z) s.x[z][0] = pmove, s.x[z][1] = ploop;
  return s;
}

// Sinks of the special rows: all six cells per row (FbMatrix::xmx's layout: E, N, J, B, C,
// scale), or the scale factors only (what the Forward score needs).
constexpr int kFbXCells = 6;
struct FbRowsSink {
  float* x;
  FB_LANE_FN void row(int i, float e, float n, float j, float b, float c, float scale) {
    float* r = x + size_t(i) * kFbXCells;
    r[0] = e, r[1] = n, r[2] = j, r[3] = b, r[4] = c, r[5] = scale;
  }
};
struct FbScaleSink {
  float* s;
  FB_LANE_FN void row(int i, float, float, float, float, float, float scale) { s[i] = scale; }
};
// The Forward parser's scale factors as Backward reads them, from its rows.
struct FbRowsScale {
  const float* x;
  FB_LANE_FN float operator()(int i) const { return x[size_t(i) * kFbXCells + kFbXCells - 1]; }
};

// The row: 3Q vectors, M, D, I of segment q at 3q, 3q+1, 3q+2. `Row` provides
// Lanes4 get(int) and set(int, Lanes4) (plain memory on the host, interleaved per thread on
// the GPU). `Sink` takes row(i, E, N, J, B, C, scale).
enum : int { kLaneM = 0, kLaneD = 1, kLaneI = 2 };

// Every vector of the row times s (the rescaling of a row).
template <class Row>
FB_LANE_FN void fb_scale_row(Row& row, int Q, const Lanes4& s) {
  for (int j = 0; j < 3 * Q; ++j) row.set(j, lanes::mul(row.get(j), s));
}

// A Forward row's special states from its E sum xE (N, C, J, B of the row above in place),
// then the sparse rescaling: where xE > 1e4 they are divided by it, and it is returned (the
// caller multiplies the row by recip of it); else 1.
FB_LANE_FN float fb_forward_specials(float xE, float& xN, float& xJ, float& xB, float& xC, const FbSpecialOdds& xf) {
  using namespace lanes;
  xN = fmul(xN, xf.x[1][1]);
  xC = fadd(fmul(xC, xf.x[3][1]), fmul(xE, xf.x[0][0]));
  xJ = fadd(fmul(xJ, xf.x[2][1]), fmul(xE, xf.x[0][1]));
  xB = fadd(fmul(xJ, xf.x[2][0]), fmul(xN, xf.x[1][0]));
  if (!(double(xE) > 1.0e4)) return 1.0f;
  xN = fdiv(xN, xE);
  xC = fdiv(xC, xE);
  xJ = fdiv(xJ, xE);
  xB = fdiv(xB, xE);
  return xE;
}

// forward(seq, L, p, mx, false): returns xC of row L (the score is log(xC * C->T) plus the
// logs of the scale factors > 1 of rows 1..L).
template <class Row, class Sink>
FB_LANE_FN float fb_forward_parser(const uint8_t* seq, int L, const FbLanesView& p, const FbSpecialOdds& xf,
                                   Row& row, Sink& out) {
  using namespace lanes;
  const int Q = p.Q;
  const Lanes4 zerov = zero();
  for (int q = 0; q < Q; ++q) row.set(3 * q + kLaneM, zerov), row.set(3 * q + kLaneD, zerov), row.set(3 * q + kLaneI, zerov);
  float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xB = xf.x[1][0], xC = 0.0f;
  out.row(0, xE, xN, xJ, xB, xC, 1.0f);

  for (int i = 1; i <= L; ++i) {
    const Lanes4* rp = p.rfv + size_t(seq[i - 1]) * Q;
    const Lanes4* tp = p.tfv;
    Lanes4 dcv = zerov, xEv = zerov, sv;
    const Lanes4 xBv = set1(xB);
    Lanes4 mpv = rightshift(row.get(3 * (Q - 1) + kLaneM), zerov);
    Lanes4 dpv = rightshift(row.get(3 * (Q - 1) + kLaneD), zerov);
    Lanes4 ipv = rightshift(row.get(3 * (Q - 1) + kLaneI), zerov);
    for (int q = 0; q < Q; ++q) {
      sv = mul(xBv, tp[0]);
      sv = add(sv, mul(mpv, tp[1]));
      sv = add(sv, mul(ipv, tp[2]));
      sv = add(sv, mul(dpv, tp[3]));
      sv = mul(sv, rp[q]);
      xEv = add(xEv, sv);
      mpv = row.get(3 * q + kLaneM);
      dpv = row.get(3 * q + kLaneD);
      ipv = row.get(3 * q + kLaneI);
      row.set(3 * q + kLaneM, sv);
      row.set(3 * q + kLaneD, dcv);
      dcv = mul(sv, tp[4]);
      sv = mul(mpv, tp[5]);
      row.set(3 * q + kLaneI, add(sv, mul(ipv, tp[6])));
      tp += 7;
    }
    // D->D paths: one pass with the M->D contributions, then serialized extensions.
    const Lanes4* dd = p.tfv + 7 * Q;
    dcv = rightshift(dcv, zerov);
    row.set(kLaneD, zerov);
    for (int q = 0; q < Q; ++q) {
      const Lanes4 d = add(dcv, row.get(3 * q + kLaneD));
      row.set(3 * q + kLaneD, d);
      dcv = mul(d, dd[q]);
    }
    if (p.M < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = rightshift(dcv, zerov);
        for (int q = 0; q < Q; ++q) {
          row.set(3 * q + kLaneD, add(dcv, row.get(3 * q + kLaneD)));
          dcv = mul(dcv, dd[q]);
        }
      }
    } else {
      for (int j = 1; j < 4; ++j) {
        dcv = rightshift(dcv, zerov);
        bool changed = false;
        for (int q = 0; q < Q; ++q) {
          const Lanes4 old = row.get(3 * q + kLaneD);
          sv = add(dcv, old);
          changed = changed | any_greater(sv, old);
          row.set(3 * q + kLaneD, sv);
          dcv = mul(dcv, dd[q]);
        }
        if (!changed) break;
      }
    }
    for (int q = 0; q < Q; ++q) xEv = add(row.get(3 * q + kLaneD), xEv);
    xE = hsum(xEv);

    const float scale = fb_forward_specials(xE, xN, xJ, xB, xC, xf);
    if (scale != 1.0f) {  // sparse rescaling
      fb_scale_row(row, Q, set1(recip(scale)));
      xE = 1.0f;
    }
    out.row(i, xE, xN, xJ, xB, xC, scale);
  }
  return xC;
}

struct FbBackwardEnd {
  float xN;             // row 0's N: the score is log(xN) plus the logs of the scale factors > 1
  bool has_own_scales;  // the Backward pass rescaled on its own from some row on
};

// backward(seq, L, p, fwd, bck, false), L >= 1: `fwd_scale(i)` is the Forward parser's scale
// factor of row i.
template <class Row, class FwdScale, class Sink>
FB_LANE_FN FbBackwardEnd fb_backward_parser(const uint8_t* seq, int L, const FbLanesView& p,
                                            const FbSpecialOdds& xf, const FwdScale& fwd_scale, Row& row,
                                            Sink& out) {
  using namespace lanes;
  const int Q = p.Q;
  const Lanes4 zerov = zero();
  const Lanes4* tfv = p.tfv;
  float xJ = 0.0f, xB = 0.0f, xN = 0.0f;
  float xC = xf.x[3][0];
  float xE = fmul(xC, xf.x[0][0]);
  Lanes4 xEv = set1(xE), dcv = zerov, dpv, mpv, ipv, mcv, xBv;
  for (int q = 0; q < Q; ++q) row.set(3 * q + kLaneM, xEv), row.set(3 * q + kLaneD, xEv);
  for (int q = 0; q < Q; ++q) row.set(3 * q + kLaneI, zerov);

  int tp = 8 * Q - 1;
  dpv = leftshift_zero(row.get(3 * (Q - 1) + kLaneD));
  for (int q = Q - 1; q >= 0; --q) {
    dcv = mul(dpv, tfv[tp--]);
    dpv = add(row.get(3 * q + kLaneD), dcv);
    row.set(3 * q + kLaneD, dpv);
  }
  for (int j = 1; j < 4; ++j) {
    tp = 8 * Q - 1;
    dcv = leftshift_zero(dcv);
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dcv, tfv[tp--]);
      row.set(3 * q + kLaneD, add(row.get(3 * q + kLaneD), dcv));
    }
  }
  tp = 7 * Q - 3;
  dcv = leftshift_zero(row.get(kLaneD));
  for (int q = Q - 1; q >= 0; --q) {
    row.set(3 * q + kLaneM, add(row.get(3 * q + kLaneM), mul(dcv, tfv[tp])));
    tp -= 7;
    dcv = row.get(3 * q + kLaneD);
  }
  const float scaleL = fwd_scale(L);
  if (scaleL > 1.0f) {
    xE = fdiv(xE, scaleL), xN = fdiv(xN, scaleL), xC = fdiv(xC, scaleL), xJ = fdiv(xJ, scaleL),
    xB = fdiv(xB, scaleL);
    xEv = set1(recip(scaleL));
    fb_scale_row(row, Q, xEv);
  }
  out.row(L, xE, xN, xJ, xB, xC, scaleL);

  bool own = false;
  for (int i = L - 1; i >= 1; --i) {
    const Lanes4* rp = p.rfv + size_t(seq[i]) * Q;  // residue x_{i+1}
    tp = 7 * Q - 1;
    Lanes4 tmmv = leftshift_zero(tfv[1]);
    Lanes4 timv = leftshift_zero(tfv[2]);
    Lanes4 tdmv = leftshift_zero(tfv[3]);
    mpv = leftshift_zero(mul(row.get(kLaneM), rp[0]));
    xBv = zerov;
    for (int q = Q - 1; q >= 0; --q) {
      ipv = row.get(3 * q + kLaneI);
      row.set(3 * q + kLaneI, add(mul(ipv, tfv[tp]), mul(mpv, timv)));
      tp--;
      row.set(3 * q + kLaneD, mul(mpv, tdmv));
      mcv = add(mul(ipv, tfv[tp]), mul(mpv, tmmv));
      tp -= 2;
      mpv = mul(row.get(3 * q + kLaneM), rp[q]);
      row.set(3 * q + kLaneM, mcv);
      tdmv = tfv[tp--];
      timv = tfv[tp--];
      tmmv = tfv[tp--];
      xBv = add(xBv, mul(mpv, tfv[tp--]));
    }
    xB = hsum(xBv);
    xC = fmul(xC, xf.x[3][1]);
    xJ = fadd(fmul(xB, xf.x[2][0]), fmul(xJ, xf.x[2][1]));
    xN = fadd(fmul(xB, xf.x[1][0]), fmul(xN, xf.x[1][1]));
    xE = fadd(fmul(xC, xf.x[0][0]), fmul(xJ, xf.x[0][1]));
    xEv = set1(xE);

    tp = 8 * Q - 1;
    dpv = leftshift_zero(add(row.get(kLaneD), xEv));
    for (int q = Q - 1; q >= 0; --q) {
      dcv = mul(dpv, tfv[tp--]);
      dpv = add(row.get(3 * q + kLaneD), add(dcv, xEv));
      row.set(3 * q + kLaneD, dpv);
      row.set(3 * q + kLaneM, add(row.get(3 * q + kLaneM), xEv));
    }
    for (int j = 1; j < 4; ++j) {
      dcv = leftshift_zero(dcv);
      tp = 8 * Q - 1;
      for (int q = Q - 1; q >= 0; --q) {
        dcv = mul(dcv, tfv[tp--]);
        row.set(3 * q + kLaneD, add(row.get(3 * q + kLaneD), dcv));
      }
    }
    dcv = leftshift_zero(row.get(kLaneD));
    tp = 7 * Q - 3;
    for (int q = Q - 1; q >= 0; --q) {
      row.set(3 * q + kLaneM, add(row.get(3 * q + kLaneM), mul(dcv, tfv[tp])));
      tp -= 7;
      dcv = row.get(3 * q + kLaneD);
    }

    if (double(xB) > 1.0e16) own = true;  // fwd's scale factors are not enough [J3/119]
    const float scale = own ? (double(xB) > 1.0e4 ? xB : 1.0f) : fwd_scale(i);
    if (scale > 1.0f) {
      xE = fdiv(xE, scale), xN = fdiv(xN, scale), xJ = fdiv(xJ, scale), xB = fdiv(xB, scale), xC = fdiv(xC, scale);
      xBv = set1(recip(scale));
      fb_scale_row(row, Q, xBv);
    }
    out.row(i, xE, xN, xJ, xB, xC, scale);
  }

  // i = 0: only N and B.
  const Lanes4* rp = p.rfv + size_t(seq[0]) * Q;
  xBv = zerov;
  for (int q = 0; q < Q; ++q) {
    mpv = mul(row.get(3 * q + kLaneM), rp[q]);
    mpv = mul(mpv, tfv[7 * q]);
    xBv = add(xBv, mpv);
  }
  xB = hsum(xBv);
  xN = fadd(fmul(xB, xf.x[1][0]), fmul(xN, xf.x[1][1]));
  out.row(0, 0.0f, xN, 0.0f, xB, 0.0f, 1.0f);
  return FbBackwardEnd{xN, own};
}

}  // namespace hpc::hmm
