#include "src/hmm/stochastic_trace.hpp"

#include <limits>
#include <stdexcept>

#include "src/hmm/sse_expf.hpp"
#include "src/hmm/striped_cells.hpp"

namespace hpc::hmm {
namespace {

uint32_t mix3(uint32_t a, uint32_t b, uint32_t c) {  // esl_rnd_mix3 (Bob Jenkins' mix)
  a -= b; a -= c; a ^= (c >> 13);
  b -= c; b -= a; b ^= (a << 8);
  c -= a; c -= b; c ^= (b >> 13);
  a -= b; a -= c; a ^= (c >> 12);
  b -= c; b -= a; b ^= (a << 16);
  c -= a; c -= b; c ^= (b >> 5);
  a -= b; a -= c; a ^= (c >> 3);
  b -= c; b -= a; b ^= (a << 10);
  c -= a; c -= b; c ^= (b >> 15);
  return c;
}

// esl_vec_FNorm with esl_vec_FSum's compensated sum.
void normalize(float* v, int n) {
  float sum = 0.0f, c = 0.0f;
  for (int i = 0; i < n; ++i) {
    const float y = v[i] - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  if (sum != 0.0f)
    for (int i = 0; i < n; ++i) v[i] /= sum;
  else
    for (int i = 0; i < n; ++i) v[i] = float(1.0 / double(float(n)));
}

struct Sampler {
  EaselFastRng& rng;
  const FbProfile& p;
  const FbMatrix& ox;
  int Q;

  int pick(float* path, int n, const int* states) {
    normalize(path, n);
    return states[rng.choose(path, n)];
  }
  int select_m(int i, int k) {
    const StripedCell c(k, Q);
    const __m128* tp = p.tfv.data() + 7 * c.q;
    const __m128 xBv = _mm_set1_ps(ox.x(i - 1, kCellB));
    const PreviousNode prev(ox.row(i - 1), c.q, Q);
    float path[4] = {lane(_mm_mul_ps(xBv, tp[0]), c.r), lane(_mm_mul_ps(prev.m, tp[1]), c.r),
                     lane(_mm_mul_ps(prev.i, tp[2]), c.r), lane(_mm_mul_ps(prev.d, tp[3]), c.r)};
    static const int states[4] = {kStB, kStM, kStI, kStD};
    return pick(path, 4, states);
  }
  int select_d(int i, int k) {
    const StripedCell c(k, Q);
    const PreviousNode prev(ox.row(i), c.q, Q);
    const IntoDelete t(p, c.q);
    float path[2] = {lane(_mm_mul_ps(prev.m, t.md), c.r), lane(_mm_mul_ps(prev.d, t.dd), c.r)};
    static const int states[2] = {kStM, kStD};
    return pick(path, 2, states);
  }
  int select_i(int i, int k) {
    const int q = (k - 1) % Q, r = (k - 1) / Q;
    const __m128* prev = ox.row(i - 1);
    const __m128* tp = p.tfv.data() + 7 * q + kFbMI;
    float path[2] = {lane(_mm_mul_ps(mmo(prev, q), tp[0]), r), lane(_mm_mul_ps(imo(prev, q), tp[1]), r)};
    static const int states[2] = {kStM, kStI};
    return pick(path, 2, states);
  }
  int select_c(int i) {
    float path[2] = {ox.x(i - 1, kCellC) * p.xf[kXC][kLoop],
                     ox.x(i, kCellE) * p.xf[kXE][kMove] * ox.x(i, kCellScale)};
    static const int states[2] = {kStC, kStE};
    return pick(path, 2, states);
  }
  int select_j(int i) {
    float path[2] = {ox.x(i - 1, kCellJ) * p.xf[kXJ][kLoop],
                     ox.x(i, kCellE) * p.xf[kXE][kLoop] * ox.x(i, kCellScale)};
    static const int states[2] = {kStJ, kStE};
    return pick(path, 2, states);
  }
  int select_e(int i, int* ret_k) {
    double sum = 0.0;
    const double roll = rng.uniform();
    const double norm = 1.0 / ox.x(i, kCellE);
    const __m128 xEv = _mm_set1_ps(float(norm));
    const __m128* cur = ox.row(i);
    alignas(16) float u[4];
    for (int guard = 0; guard < 1000; ++guard) {  // HMMER loops until the roll is reached
      for (int q = 0; q < Q; ++q) {
        _mm_store_ps(u, _mm_mul_ps(mmo(cur, q), xEv));
        for (int r = 0; r < 4; ++r) {
          sum += u[r];
          if (roll < sum) return *ret_k = r * Q + q + 1, kStM;
        }
        _mm_store_ps(u, _mm_mul_ps(dmo(cur, q), xEv));
        for (int r = 0; r < 4; ++r) {
          sum += u[r];
          if (roll < sum) return *ret_k = r * Q + q + 1, kStD;
        }
      }
    }
    throw std::runtime_error("stochastic traceback: E state choice failed");
  }
  int select_b(int i) {
    float path[2] = {ox.x(i, kCellN) * p.xf[kXN][kMove], ox.x(i, kCellJ) * p.xf[kXJ][kMove]};
    static const int states[2] = {kStN, kStJ};
    return pick(path, 2, states);
  }
};

}  // namespace

void EaselFastRng::reset(uint32_t seed) {
  x_ = mix3(seed, 87654321u, 12345678u);
  if (x_ == 0) x_ = 42;
}

int EaselFastRng::choose(const float* p, int n) {
  double norm = 0.0, sum = 0.0;
  const double roll = uniform();
  for (int i = 0; i < n; ++i) norm += p[i];
  for (int i = 0; i + 1 < n; ++i) {
    sum += double(p[i]);
    if (roll < sum / norm) return i;
  }
  // The last sum is norm itself (the same additions in the same order), so sum / norm is 1
  // exactly and the roll (< 1) below it, whenever norm is a positive finite number.
  if (norm > 0.0 && norm <= std::numeric_limits<double>::max()) return n - 1;
  throw std::runtime_error("stochastic traceback: choice failed");
}

void stochastic_trace(EaselFastRng& rng, int L, const FbProfile& p, const FbMatrix& fwd,
                      Trace& tr) {
  Sampler s{rng, p, fwd, p.Q};
  trace_back(s, L, tr);
}

}  // namespace hpc::hmm
