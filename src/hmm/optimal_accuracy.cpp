#include "src/hmm/optimal_accuracy.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "src/hmm/sse_expf.hpp"
#include "src/hmm/striped_cells.hpp"

namespace hpc::hmm {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// sv where the transition is possible (t > 0), else 0.0 bits (HMMER's and/cmpgt idiom).
inline __m128 allowed(__m128 t, __m128 v) { return _mm_and_ps(_mm_cmpgt_ps(t, _mm_setzero_ps()), v); }

}  // namespace

float optimal_accuracy(const FbProfile& p, const FbMatrix& pp, FbMatrix& ox) {
  const int Q = p.Q, L = pp.L;
  ox.resize(p.M, Q, L, true);
  const __m128 infv = _mm_set1_ps(kNegInf);
  __m128* dpc = ox.row(0);
  for (int q = 0; q < Q; ++q) mmo(dpc, q) = imo(dpc, q) = dmo(dpc, q) = infv;
  ox.x(0, kCellE) = kNegInf, ox.x(0, kCellN) = 0.0f, ox.x(0, kCellJ) = kNegInf, ox.x(0, kCellB) = 0.0f,
  ox.x(0, kCellC) = kNegInf;
  for (int i = 1; i <= L; ++i) {
    const __m128* dpp = dpc;
    dpc = ox.row(i);
    const __m128* ppp = pp.row(i);
    const __m128* tp = p.tfv.data();
    __m128 dcv = infv, xEv = infv, sv;
    const __m128 xBv = _mm_set1_ps(ox.x(i - 1, kCellB));
    __m128 mpv = sse_rightshift(mmo(dpp, Q - 1), infv);
    __m128 dpv = sse_rightshift(dmo(dpp, Q - 1), infv);
    __m128 ipv = sse_rightshift(imo(dpp, Q - 1), infv);
    for (int q = 0; q < Q; ++q) {
      sv = allowed(*tp++, xBv);
      sv = _mm_max_ps(sv, allowed(*tp++, mpv));
      sv = _mm_max_ps(sv, allowed(*tp++, ipv));
      sv = _mm_max_ps(sv, allowed(*tp++, dpv));
      sv = _mm_add_ps(sv, *ppp);
      ppp += 2;
      xEv = _mm_max_ps(xEv, sv);
      mpv = mmo(dpp, q);
      dpv = dmo(dpp, q);
      ipv = imo(dpp, q);
      mmo(dpc, q) = sv;
      dmo(dpc, q) = dcv;
      dcv = allowed(*tp++, sv);
      sv = allowed(*tp++, mpv);
      sv = _mm_max_ps(sv, allowed(*tp++, ipv));
      imo(dpc, q) = _mm_add_ps(sv, *ppp);
      ppp++;
    }
    dcv = sse_rightshift(dcv, infv);
    tp = p.tfv.data() + 7 * Q;
    for (int q = 0; q < Q; ++q) {
      dmo(dpc, q) = _mm_max_ps(dcv, dmo(dpc, q));
      dcv = allowed(*tp++, dmo(dpc, q));
    }
    for (int j = 1; j < 4; ++j) {
      dcv = sse_rightshift(dcv, infv);
      tp = p.tfv.data() + 7 * Q;
      for (int q = 0; q < Q; ++q) {
        dmo(dpc, q) = _mm_max_ps(dcv, dmo(dpc, q));
        dcv = allowed(*tp++, dcv);
      }
    }
    for (int q = 0; q < Q; ++q) xEv = _mm_max_ps(xEv, dmo(dpc, q));
    ox.x(i, kCellE) = sse_hmax(xEv);
    float t1, t2;
    t1 = p.xf[kXJ][kLoop] == 0.0f ? 0.0f : ox.x(i - 1, kCellJ) + pp.x(i, kCellJ);
    t2 = p.xf[kXE][kLoop] == 0.0f ? 0.0f : ox.x(i, kCellE);
    ox.x(i, kCellJ) = std::max(t1, t2);
    t1 = p.xf[kXC][kLoop] == 0.0f ? 0.0f : ox.x(i - 1, kCellC) + pp.x(i, kCellC);
    t2 = p.xf[kXE][kMove] == 0.0f ? 0.0f : ox.x(i, kCellE);
    ox.x(i, kCellC) = std::max(t1, t2);
    ox.x(i, kCellN) = p.xf[kXN][kLoop] == 0.0f ? 0.0f : ox.x(i - 1, kCellN) + pp.x(i, kCellN);
    t1 = p.xf[kXN][kMove] == 0.0f ? 0.0f : ox.x(i, kCellN);
    t2 = p.xf[kXJ][kMove] == 0.0f ? 0.0f : ox.x(i, kCellJ);
    ox.x(i, kCellB) = std::max(t1, t2);
  }
  return ox.x(L, kCellC);
}

namespace {

struct OaTracer {
  const FbProfile& p;
  const FbMatrix& pp;
  const FbMatrix& ox;
  int Q;

  static float or_inf(float t, float v) { return t == 0.0f ? kNegInf : v; }
  int select_m(int i, int k) const {
    const StripedCell c(k, Q);
    const __m128* tp = p.tfv.data() + 7 * c.q;
    const PreviousNode prev(ox.row(i - 1), c.q, Q);
    const int r = c.r;
    // In order of preference on ties: M, I, D, B (esl_vec_FArgMax takes the first maximum).
    const float path[4] = {or_inf(lane(tp[1], r), lane(prev.m, r)), or_inf(lane(tp[2], r), lane(prev.i, r)),
                           or_inf(lane(tp[3], r), lane(prev.d, r)), or_inf(lane(tp[0], r), ox.x(i - 1, kCellB))};
    static const int states[4] = {kStM, kStI, kStD, kStB};
    int best = 0;
    for (int j = 1; j < 4; ++j)
      if (path[j] > path[best]) best = j;
    return states[best];
  }
  int select_d(int i, int k) const {
    const StripedCell c(k, Q);
    const PreviousNode prev(ox.row(i), c.q, Q);
    const IntoDelete t(p, c.q);
    const float m = or_inf(lane(t.md, c.r), lane(prev.m, c.r)), d = or_inf(lane(t.dd, c.r), lane(prev.d, c.r));
    return m >= d ? kStM : kStD;
  }
  int select_i(int i, int k) const {
    const int q = (k - 1) % Q, r = (k - 1) / Q;
    const __m128* prev = ox.row(i - 1);
    const __m128* tp = p.tfv.data() + 7 * q + kFbMI;
    const float m = or_inf(lane(tp[0], r), lane(mmo(prev, q), r));
    const float ii = or_inf(lane(tp[1], r), lane(imo(prev, q), r));
    return m >= ii ? kStM : kStI;
  }
  int select_c(int i) const {
    const float c = p.xf[kXC][kLoop] == 0.0f ? kNegInf : ox.x(i - 1, kCellC) + pp.x(i, kCellC);
    const float e = p.xf[kXE][kMove] == 0.0f ? kNegInf : ox.x(i, kCellE);
    return c > e ? kStC : kStE;
  }
  int select_j(int i) const {
    const float j = p.xf[kXJ][kLoop] == 0.0f ? kNegInf : ox.x(i - 1, kCellJ) + pp.x(i, kCellJ);
    const float e = p.xf[kXE][kLoop] == 0.0f ? kNegInf : ox.x(i, kCellE);
    return j > e ? kStJ : kStE;
  }
  int select_e(int i, int* ret_k) const {
    const __m128* cur = ox.row(i);
    float max = kNegInf;
    int smax = -1, kmax = 0;
    alignas(16) float u[4];
    for (int q = 0; q < Q; ++q) {  // M beats D on ties (>= for M, > for D)
      _mm_store_ps(u, mmo(cur, q));
      for (int r = 0; r < 4; ++r)
        if (u[r] >= max) max = u[r], smax = kStM, kmax = r * Q + q + 1;
      _mm_store_ps(u, dmo(cur, q));
      for (int r = 0; r < 4; ++r)
        if (u[r] > max) max = u[r], smax = kStD, kmax = r * Q + q + 1;
    }
    *ret_k = kmax;
    return smax;
  }
  int select_b(int i) const {
    const float n = p.xf[kXN][kMove] == 0.0f ? kNegInf : ox.x(i, kCellN);
    const float j = p.xf[kXJ][kMove] == 0.0f ? kNegInf : ox.x(i, kCellJ);
    return n > j ? kStN : kStJ;
  }
};

}  // namespace

void optimal_accuracy_trace(const FbProfile& p, const FbMatrix& pp, const FbMatrix& ox, Trace& tr) {
  const OaTracer t{p, pp, ox, p.Q};
  trace_back(t, ox.L, tr);
}

}  // namespace hpc::hmm
