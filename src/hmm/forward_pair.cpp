#include "src/hmm/forward_pair.hpp"

#include "src/core/error.hpp"
#include "src/hmm/fb_parser.hpp"
#include "src/hmm/sse_expf.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <algorithm>

namespace hpc::hmm {

bool forward_pair_available() {
  static const bool avx = __builtin_cpu_supports("avx");
  return avx;
}

// Compiled for AVX with a target pragma (the file's flags stay baseline; -ffp-contract=off
// as for all of src/hmm, and no FMA enabled) and only called after the check above.
#pragma GCC push_options
#pragma GCC target("avx")

namespace {

// A's 4-lane vector in the low half, B's in the high half.
inline __m256 halves(__m128 a, __m128 b) { return _mm256_insertf128_ps(_mm256_castps128_ps256(a), b, 1); }
// One 4-lane vector (a transition) for both targets.
inline __m256 both(const __m128* v) { return _mm256_broadcast_ps(v); }
// esl_sse_rightshift_ps(v, zero) in each half: {0, v0, v1, v2}.
inline __m256 rightshift(__m256 v) {
  return _mm256_blend_ps(_mm256_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_ps(), 0x11);
}
// Blend masks: the half of A (low), of B (high).
constexpr int kHalfA = 0x0F, kHalfB = 0xF0;

// One target's special states, scale factors and progress through its rows.
struct Specials {
  const PairTarget& t;
  std::vector<float>& scales;
  float xN = 1.0f, xJ = 0.0f, xB, xC = 0.0f;
  Specials(const PairTarget& target, std::vector<float>& s) : t(target), scales(s), xB(target.xf.x[1][0]) {
    scales.assign(size_t(t.L) + 1, 1.0f);
  }
  // Row i's specials from its E sum; the rescaling factor (1: none), as forward() sets them.
  float row(int i, float xE) {
    const float scale = fb_forward_specials(xE, xN, xJ, xB, xC, t.xf);
    scales[size_t(i)] = scale;
    return scale;
  }
  float nats() const { return fb_forward_nats(scales.data(), 1, t.L, xC, t.xf); }
};

}  // namespace

std::array<float, 2> forward_pair(const FbProfile& p, const PairTarget& a, const PairTarget& b,
                                  std::vector<float>& row) {
  const int Q = p.Q;
  // 3Q cells of 8 floats (M, D, I of segment q at 3q, 3q+1, 3q+2), 32-byte aligned.
  row.resize(size_t(3 * Q) * 8 + 8);
  float* base = row.data();
  while (reinterpret_cast<uintptr_t>(base) % 32) ++base;
  __m256* dp = reinterpret_cast<__m256*>(base);
  auto M = [&](int q) -> __m256& { return dp[3 * q]; };
  auto D = [&](int q) -> __m256& { return dp[3 * q + 1]; };
  auto I = [&](int q) -> __m256& { return dp[3 * q + 2]; };
  const __m256 zerov = _mm256_setzero_ps();
  for (int j = 0; j < 3 * Q; ++j) dp[j] = zerov;

  thread_local std::vector<float> scales_a, scales_b;
  Specials sa(a, scales_a), sb(b, scales_b);
  const __m128* tfv = p.tfv.data();
  const __m128* dd = tfv + 7 * Q;
  const int rows = std::max(a.L, b.L);
  for (int i = 1; i <= rows; ++i) {
    // A target past its last row runs on (its half is never read again) on residue code 0.
    const bool on_a = i <= a.L, on_b = i <= b.L;
    const __m128* ra = p.emit(on_a ? a.seq[i - 1] : uint8_t(0));
    const __m128* rb = p.emit(on_b ? b.seq[i - 1] : uint8_t(0));
    const __m128* tp = tfv;
    __m256 dcv = zerov, xEv = zerov, sv;
    const __m256 xBv = halves(_mm_set1_ps(sa.xB), _mm_set1_ps(sb.xB));
    __m256 mpv = rightshift(M(Q - 1)), dpv = rightshift(D(Q - 1)), ipv = rightshift(I(Q - 1));
    for (int q = 0; q < Q; ++q) {
      sv = _mm256_mul_ps(xBv, both(tp++));
      sv = _mm256_add_ps(sv, _mm256_mul_ps(mpv, both(tp++)));
      sv = _mm256_add_ps(sv, _mm256_mul_ps(ipv, both(tp++)));
      sv = _mm256_add_ps(sv, _mm256_mul_ps(dpv, both(tp++)));
      sv = _mm256_mul_ps(sv, halves(ra[q], rb[q]));
      xEv = _mm256_add_ps(xEv, sv);
      mpv = M(q), dpv = D(q), ipv = I(q);
      M(q) = sv;
      D(q) = dcv;
      dcv = _mm256_mul_ps(sv, both(tp++));
      sv = _mm256_mul_ps(mpv, both(tp++));
      I(q) = _mm256_add_ps(sv, _mm256_mul_ps(ipv, both(tp++)));
    }
    // D->D paths: one pass with the M->D contributions, then serialized extensions; for
    // M >= 100 each target stops after its first pass that changes none of its cells.
    dcv = rightshift(dcv);
    D(0) = zerov;
    for (int q = 0; q < Q; ++q) {  // the chain through d in registers, not through the row's memory
      const __m256 d = _mm256_add_ps(dcv, D(q));
      D(q) = d;
      dcv = _mm256_mul_ps(d, both(dd + q));
    }
    if (p.M < 100) {
      for (int j = 1; j < 4; ++j) {
        dcv = rightshift(dcv);
        for (int q = 0; q < Q; ++q) {
          D(q) = _mm256_add_ps(dcv, D(q));
          dcv = _mm256_mul_ps(dcv, both(dd + q));
        }
      }
    } else {
      bool run_a = true, run_b = true;
      for (int j = 1; j < 4 && (run_a || run_b); ++j) {
        dcv = rightshift(dcv);
        __m256 cv = zerov;
        for (int q = 0; q < Q; ++q) {
          sv = _mm256_add_ps(dcv, D(q));
          cv = _mm256_or_ps(cv, _mm256_cmp_ps(sv, D(q), _CMP_GT_OQ));
          D(q) = run_a && run_b ? sv : run_a ? _mm256_blend_ps(D(q), sv, kHalfA) : _mm256_blend_ps(D(q), sv, kHalfB);
          dcv = _mm256_mul_ps(dcv, both(dd + q));
        }
        const int changed = _mm256_movemask_ps(cv);
        run_a = run_a && (changed & kHalfA);
        run_b = run_b && (changed & kHalfB);
      }
    }
    for (int q = 0; q < Q; ++q) xEv = _mm256_add_ps(D(q), xEv);
    const float scale_a = on_a ? sa.row(i, sse_hsum(_mm256_castps256_ps128(xEv))) : 1.0f;
    const float scale_b = on_b ? sb.row(i, sse_hsum(_mm256_extractf128_ps(xEv, 1))) : 1.0f;
    if (scale_a != 1.0f || scale_b != 1.0f) {  // sparse rescaling, of the half (or halves) that needs it
      const __m256 s = halves(_mm_set1_ps(lanes::recip(scale_a)), _mm_set1_ps(lanes::recip(scale_b)));
      for (int j = 0; j < 3 * Q; ++j) {
        const __m256 scaled = _mm256_mul_ps(dp[j], s);
        dp[j] = scale_b == 1.0f   ? _mm256_blend_ps(dp[j], scaled, kHalfA)
                : scale_a == 1.0f ? _mm256_blend_ps(dp[j], scaled, kHalfB)
                                  : scaled;
      }
    }
  }
  return {sa.nats(), sb.nats()};
}

#pragma GCC pop_options

}  // namespace hpc::hmm

#else  // not x86: no AVX

namespace hpc::hmm {

bool forward_pair_available() { return false; }

std::array<float, 2> forward_pair(const FbProfile&, const PairTarget&, const PairTarget&, std::vector<float>&) {
  throw Error("internal: forward_pair needs AVX (check forward_pair_available)");
}

}  // namespace hpc::hmm

#endif
