#include "kernels/cpu/msv_filters.hpp"

#include <algorithm>
#include <limits>

namespace hpc::hmm {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

float msv_nats(const MsvProfile& p, int xJ, int tjb) {
  // C->T, then the -3 nat approximation of the NN/CC/JJ loops (as HMMER).
  float sc = float(xJ - tjb) - float(p.base);
  sc /= p.scale;
  return float(double(sc) - 3.0);
}

}  // namespace

bool ssv_applies(const MsvProfile& p, int L) { return p.tjb(L) + p.tbm + p.tec + p.bias < 127; }

std::optional<float> ssv_verdict(const MsvProfile& p, int L, int best) {
  const int tjb = p.tjb(L), begin = p.base - tjb - p.tbm;
  if (best >= 127 - p.bias) {     // xE >= 255 - bias in HMMER's shifted bytes: may have overflowed
    if (begin < 128) return std::nullopt;  // unsure: the full filter decides
    return kInf;
  }
  const int xE = begin + best;
  if (xE >= 255 - p.bias) return kInf;
  const int xJ = xE - p.tec;
  if (xJ > p.base) return std::nullopt;  // the J state may have been used
  return msv_nats(p, xJ, tjb);
}

// p7_SSVFilter: over every diagonal, the best ungapped run restarted at the begin score (a
// Kadane maximum clamped at 0); `g` below is that run relative to the begin level.
std::optional<float> ssv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  if (!ssv_applies(p, L)) return std::nullopt;
  const int M = p.M, bias = p.bias;
  const int overflow_at = 127 - bias;  // past it HMMER's bytes may wrap: ssv_verdict decides
  ws.a.assign(M + 1, 0);
  ws.b.assign(M + 1, 0);
  int16_t* prev = ws.a.data();
  int16_t* cur = ws.b.data();
  int best = 0;
  for (int i = 0; i < L && best < overflow_at; ++i) {
    const uint8_t* cost = p.row(seq[i]);
    int16_t rowmax = 0;
    for (int k = 1; k <= M; ++k) {
      // Per step the diagonal moves by bias - cost; SSV's signed bytes clamp the cost at 127.
      const int16_t step = int16_t(bias - std::min<int>(cost[k], 127 + bias));
      const int16_t g = std::max<int16_t>(0, int16_t(prev[k - 1] + step));
      cur[k] = g;
      rowmax = std::max(rowmax, g);
    }
    best = std::max<int>(best, rowmax);
    std::swap(prev, cur);
  }
  return ssv_verdict(p, L, best);
}

MsvRowState::MsvRowState(const MsvProfile& p, int L) : tjb(p.tjb(L)) {
  tjbm = (tjb + p.tbm) & 0xFF;  // HMMER adds them as bytes
  xB = std::max(0, p.base - tjbm);
}

float MsvRowState::nats(const MsvProfile& p) const { return msv_nats(p, xJ, tjb); }

float msv_full_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  const int M = p.M, bias = p.bias;
  ws.a.assign(M + 1, 0);
  ws.b.assign(M + 1, 0);
  int16_t* prev = ws.a.data();
  int16_t* cur = ws.b.data();
  MsvRowState st(p, L);
  for (int i = 0; i < L; ++i) {
    const uint8_t* cost = p.row(seq[i]);
    int16_t xE = 0;
    const int16_t xb = int16_t(st.xB);
    for (int k = 1; k <= M; ++k) {
      int16_t sv = std::max(prev[k - 1], xb);
      sv = std::min<int16_t>(int16_t(sv + bias), 255);
      sv = std::max<int16_t>(int16_t(sv - cost[k]), 0);
      cur[k] = sv;
      xE = std::max(xE, sv);
    }
    if (!st.row(p, xE)) return kInf;
    std::swap(prev, cur);
  }
  return st.nats(p);
}

float msv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  if (const std::optional<float> sc = ssv_filter_score(p, seq, L, ws)) return *sc;
  return msv_full_score(p, seq, L, ws);
}

namespace {

inline int16_t sat16(int v) { return int16_t(std::clamp(v, -32768, 32767)); }

}  // namespace

float viterbi_filter_score(const VitProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  const int M = p.M;
  constexpr int16_t kNeg = -32768;
  for (auto* v : {&ws.a, &ws.b, &ws.c, &ws.d, &ws.e, &ws.f}) v->assign(M + 2, kNeg);
  int16_t *Mp = ws.a.data(), *Ip = ws.b.data(), *Dp = ws.c.data();  // previous row
  int16_t *Mc = ws.d.data(), *Ic = ws.e.data(), *Dc = ws.f.data();  // current row
  VitRowState st(p, L);
  for (int i = 0; i < L; ++i) {
    const int16_t* e = p.row(seq[i]);
    int16_t xE = kNeg, Dmax = kNeg;
    Dc[1] = kNeg;
    for (int k = 1; k <= M; ++k) {
      int16_t sv = sat16(st.xB + p.bm[k]);
      sv = std::max(sv, sat16(Mp[k - 1] + p.mm[k]));
      sv = std::max(sv, sat16(Ip[k - 1] + p.im[k]));
      sv = std::max(sv, sat16(Dp[k - 1] + p.dm[k]));
      sv = sat16(sv + e[k]);
      xE = std::max(xE, sv);
      Mc[k] = sv;
      const int16_t dc = sat16(sv + p.md[k]);  // M_k -> D_{k+1}, delayed store
      Dmax = std::max(Dmax, dc);
      Dc[k + 1] = dc;
      Ic[k] = std::max(sat16(Mp[k] + p.mi[k]), sat16(Ip[k] + p.ii[k]));
    }
    if (xE >= 32767) return std::numeric_limits<float>::infinity();
    st.row(p, xE);
    if (st.needs_dd(p, Dmax))
      for (int k = 2; k <= M; ++k) Dc[k] = std::max(Dc[k], sat16(Dc[k - 1] + p.dd[k - 1]));
    std::swap(Mp, Mc), std::swap(Ip, Ic), std::swap(Dp, Dc);
  }
  return st.nats(p);
}

float viterbi_filter_nats(const VitProfile& p, int xC, int16_t move) {
  if (xC <= -32768) return -std::numeric_limits<float>::infinity();
  float sc = float(xC) + float(move) - float(p.base);
  sc /= p.scale;
  return float(double(sc) - 3.0);
}

}  // namespace hpc::hmm
