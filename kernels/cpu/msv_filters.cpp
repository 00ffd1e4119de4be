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

// p7_SSVFilter's answer, or nullopt-like `false` when HMMER falls back to the full MSV.
// The SSV computes, over every diagonal, the best ungapped run restarted at the begin
// score (a Kadane maximum clamped at 0); `g` below is that run relative to the begin level.
bool ssv_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws, float* out) {
  const int M = p.M, bias = p.bias, base = p.base, tec = p.tec;
  const int tjb = p.tjb(L), tbm = p.tbm;
  if (tjb + tbm + tec + bias >= 127) return false;
  // Per step the diagonal moves by bias - cost; SSV's signed bytes clamp the cost at 127.
  const int overflow_at = 127 - bias;  // xE >= 255 - bias in HMMER's shifted bytes
  ws.a.assign(M + 1, 0);
  ws.b.assign(M + 1, 0);
  int16_t* prev = ws.a.data();
  int16_t* cur = ws.b.data();
  int best = 0;
  for (int i = 0; i < L; ++i) {
    const uint8_t* cost = p.row(seq[i]);
    int16_t rowmax = 0;
    for (int k = 1; k <= M; ++k) {
      const int16_t step = int16_t(bias - std::min<int>(cost[k], 127 + bias));
      const int16_t g = std::max<int16_t>(0, int16_t(prev[k - 1] + step));
      cur[k] = g;
      rowmax = std::max(rowmax, g);
    }
    best = std::max<int>(best, rowmax);
    if (best >= overflow_at) {
      if (base - tjb - tbm < 128) return false;  // unsure: the full filter decides
      *out = kInf;
      return true;
    }
    std::swap(prev, cur);
  }
  const int xE = base - tjb - tbm + best;
  if (xE >= 255 - bias) {
    *out = kInf;
    return true;
  }
  const int xJ = xE - tec;
  if (xJ > base) return false;  // the J state may have been used
  *out = msv_nats(p, xJ, tjb);
  return true;
}

}  // namespace

float msv_full_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  const int M = p.M, bias = p.bias, base = p.base, tec = p.tec;
  const int tjb = p.tjb(L);
  const int tjbm = (tjb + p.tbm) & 0xFF;  // HMMER adds them as bytes
  ws.a.assign(M + 1, 0);
  ws.b.assign(M + 1, 0);
  int16_t* prev = ws.a.data();
  int16_t* cur = ws.b.data();
  int xJ = 0;
  int xB = std::max(0, base - tjbm);
  for (int i = 0; i < L; ++i) {
    const uint8_t* cost = p.row(seq[i]);
    int16_t xE = 0;
    const int16_t xb = int16_t(xB);
    for (int k = 1; k <= M; ++k) {
      int16_t sv = std::max(prev[k - 1], xb);
      sv = std::min<int16_t>(int16_t(sv + bias), 255);
      sv = std::max<int16_t>(int16_t(sv - cost[k]), 0);
      cur[k] = sv;
      xE = std::max(xE, sv);
    }
    if (xE + bias >= 255) return kInf;  // the byte range overflowed: a high-scoring hit
    const int e = std::max(0, xE - tec);
    xJ = std::max(xJ, e);
    xB = std::max(0, std::max(base, xJ) - tjbm);
    std::swap(prev, cur);
  }
  return msv_nats(p, xJ, tjb);
}

float msv_filter_score(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) {
  float sc;
  if (ssv_score(p, seq, L, ws, &sc)) return sc;
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
  const int16_t move = p.move(L);
  // Special states are int16 in HMMER; loops N->N, C->C, J->J score 0 (-3 nat approximation).
  int16_t xN = p.base, xJ = kNeg, xC = kNeg;
  int16_t xB = int16_t(xN + move);
  for (int i = 0; i < L; ++i) {
    const int16_t* e = p.row(seq[i]);
    int16_t xE = kNeg, Dmax = kNeg;
    Dc[1] = kNeg;
    for (int k = 1; k <= M; ++k) {
      int16_t sv = sat16(xB + p.bm[k]);
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
    xC = int16_t(std::max(int(xC), xE + p.e_move));
    xJ = int16_t(std::max(int(xJ), xE + p.e_loop));
    xB = int16_t(std::max(xJ + move, xN + move));
    // Lazy F: D->D paths only when they could beat entering from B on the next row.
    if (Dmax + p.ddbound > xB)
      for (int k = 2; k <= M; ++k) Dc[k] = std::max(Dc[k], sat16(Dc[k - 1] + p.dd[k - 1]));
    std::swap(Mp, Mc), std::swap(Ip, Ic), std::swap(Dp, Dc);
  }
  return viterbi_filter_nats(p, xC, move);
}

float viterbi_filter_nats(const VitProfile& p, int xC, int16_t move) {
  if (xC <= -32768) return -std::numeric_limits<float>::infinity();
  float sc = float(xC) + float(move) - float(p.base);
  sc /= p.scale;
  return float(double(sc) - 3.0);
}

}  // namespace hpc::hmm
