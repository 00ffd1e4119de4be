#include "src/hmm/forward_group.hpp"

#include "src/core/error.hpp"
#include "src/hmm/fb_parser.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {
namespace {

// One target's special states and rows, as forward() sets them row by row: `rows` holds
// FbMatrix::xmx's special rows (E, N, J, B, C, scale) of rows 0..L.
struct GroupSpecials {
  const GroupTarget* t = nullptr;
  std::vector<float>* rows = nullptr;
  float xN = 1.0f, xJ = 0.0f, xB = 0.0f, xC = 0.0f;
  void start(const GroupTarget& target, std::vector<float>& r) {
    t = &target, rows = &r;
    rows->resize((size_t(t->L) + 1) * kFbXCells);
    xN = 1.0f, xJ = 0.0f, xB = t->xf.x[1][0], xC = 0.0f;
    FbRowsSink{rows->data()}.row(0, 0.0f, xN, xJ, xB, xC, 1.0f);
  }
  // Row i's specials from its E sum; returns the rescaling factor (1: none).
  float row(int i, float xE) {
    const float scale = fb_forward_specials(xE, xN, xJ, xB, xC, t->xf);
    FbRowsSink{rows->data()}.row(i, scale != 1.0f ? 1.0f : xE, xN, xJ, xB, xC, scale);
    return scale;
  }
  float nats() const { return fb_forward_nats(rows->data() + kFbXCells - 1, kFbXCells, t->L, xC, t->xf); }
};

}  // namespace

// Each width compiled with a target pragma (the file's flags stay baseline; -ffp-contract=off
// as for all of src/hmm: no fused multiply-adds) and only called after its CPU check.
#pragma GCC push_options
#pragma GCC target("avx")
namespace group_avx {

struct V {  // 2 targets in 256 bits
  using Reg = __m256;
  static constexpr int kTargets = 2;
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg both(const __m128* v) { return _mm256_broadcast_ps(v); }
  static Reg gather(const __m128* const* r, int q) { return _mm256_insertf128_ps(_mm256_castps128_ps256(r[0][q]), r[1][q], 1); }
  static Reg per_target(const float* s) { return _mm256_set_m128(_mm_set1_ps(s[1]), _mm_set1_ps(s[0])); }
  static Reg rightshift(Reg v) {
    return _mm256_blend_ps(_mm256_shuffle_ps(v, v, _MM_SHUFFLE(2, 1, 0, 0)), _mm256_setzero_ps(), 0x11);
  }
  using Lanes = uint8_t;
  static Lanes greater_lanes(Reg a, Reg b) { return Lanes(_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ))); }
  static unsigned targets_of(Lanes m) { return unsigned((m & 0x0F) != 0) | unsigned((m & 0xF0) != 0) << 1; }
  static unsigned greater(Reg a, Reg b) { return targets_of(greater_lanes(a, b)); }
  static Reg blend(Reg a, Reg b, unsigned targets) {
    switch (targets) {
      case 1: return _mm256_blend_ps(a, b, 0x0F);
      case 2: return _mm256_blend_ps(a, b, 0xF0);
      case 3: return b;
      default: return a;
    }
  }
  static float hsum(Reg v, int t) { return sse_hsum(t == 0 ? _mm256_castps256_ps128(v) : _mm256_extractf128_ps(v, 1)); }
};
#include "src/hmm/forward_group_kernel.hpp"

}  // namespace group_avx
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace group_avx512 {

struct V {  // 4 targets in 512 bits
  using Reg = __m512;
  static constexpr int kTargets = 4;
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg both(const __m128* v) {
    return _mm512_maskz_broadcast_f32x4(__mmask16(0xFFFF), _mm_load_ps(reinterpret_cast<const float*>(v)));
  }
  static Reg quad(__m128 a, __m128 b, __m128 c, __m128 d) {
    return _mm512_insertf32x4(_mm512_insertf32x4(_mm512_insertf32x4(_mm512_castps128_ps512(a), b, 1), c, 2), d, 3);
  }
  static Reg gather(const __m128* const* r, int q) { return quad(r[0][q], r[1][q], r[2][q], r[3][q]); }
  static Reg per_target(const float* s) {
    return quad(_mm_set1_ps(s[0]), _mm_set1_ps(s[1]), _mm_set1_ps(s[2]), _mm_set1_ps(s[3]));
  }
  static Reg rightshift(Reg v) { return _mm512_maskz_shuffle_ps(__mmask16(0xEEEE), v, v, _MM_SHUFFLE(2, 1, 0, 0)); }
  using Lanes = uint16_t;
  static Lanes greater_lanes(Reg a, Reg b) { return Lanes(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)); }
  static unsigned targets_of(Lanes k) {
    unsigned t = 0;
    for (int j = 0; j < 4; ++j) t |= unsigned(((k >> (4 * j)) & 0xF) != 0) << j;
    return t;
  }
  static unsigned greater(Reg a, Reg b) { return targets_of(greater_lanes(a, b)); }
  static Reg blend(Reg a, Reg b, unsigned targets) {
    unsigned k = 0;
    for (int j = 0; j < 4; ++j)
      if (targets >> j & 1) k |= 0xFu << (4 * j);
    return _mm512_mask_blend_ps(__mmask16(k), a, b);
  }
  static float hsum(Reg v, int t) {
    switch (t) {
      case 0: return sse_hsum(_mm512_maskz_extractf32x4_ps(__mmask8(0xF), v, 0));  // maskz: the plain forms trip -Wmaybe-uninitialized
      case 1: return sse_hsum(_mm512_maskz_extractf32x4_ps(__mmask8(0xF), v, 1));
      case 2: return sse_hsum(_mm512_maskz_extractf32x4_ps(__mmask8(0xF), v, 2));
      default: return sse_hsum(_mm512_maskz_extractf32x4_ps(__mmask8(0xF), v, 3));
    }
  }
};
#include "src/hmm/forward_group_kernel.hpp"

}  // namespace group_avx512
#pragma GCC pop_options

namespace {
bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f");
  return yes;
}
bool has_avx() {
  static const bool yes = __builtin_cpu_supports("avx");
  return yes;
}
}  // namespace

int forward_group_width(bool without_avx512) {
  return has_avx512() && !without_avx512 ? 8 : has_avx() ? 4 : 0;
}

void forward_group(const FbProfile& p, const GroupTarget* targets, int n, std::vector<float>& row, float* nats,
                   bool without_avx512, std::vector<float>* special_rows) {
  const int most = forward_group_width(without_avx512);
  if (n < 1 || n > most) throw Error("internal: forward_group of " + std::to_string(n) + " targets, width " + std::to_string(most));
  // The narrowest kernel that holds the group: one register of 2 (AVX) or 4 targets (AVX-512),
  // or two side by side.
  const bool wide = most == 8;
  const int width = n <= 2 ? 2 : n <= 4 ? 4 : 8;
  // A group short of the width repeats its last target (that score is not returned).
  GroupTarget in[kMaxGroup];
  for (int t = 0; t < width; ++t) in[t] = targets[std::min(t, n - 1)];
  thread_local std::vector<float> own_rows[kMaxGroup];
  GroupSpecials sp[kMaxGroup];
  for (int t = 0; t < width; ++t) sp[t].start(in[t], special_rows && t < n ? special_rows[t] : own_rows[t]);
  if (wide && width == 8)
    group_avx512::run_group<group_avx512::Twice<group_avx512::V>>(p, in, row, sp);
  else if (wide && width == 4)
    group_avx512::run_group<group_avx512::V>(p, in, row, sp);
  else if (width == 4)
    group_avx::run_group<group_avx::Twice<group_avx::V>>(p, in, row, sp);
  else
    group_avx::run_group<group_avx::V>(p, in, row, sp);
  for (int t = 0; t < n; ++t) nats[t] = sp[t].nats();
}

}  // namespace hpc::hmm

#else  // not x86: no AVX

namespace hpc::hmm {

int forward_group_width(bool) { return 0; }

void forward_group(const FbProfile&, const GroupTarget*, int, std::vector<float>&, float*, bool, std::vector<float>*) {
  throw Error("internal: forward_group needs AVX (check forward_group_width)");
}

}  // namespace hpc::hmm

#endif
