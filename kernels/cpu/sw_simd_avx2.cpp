// AVX2 instantiations of the inter-sequence kernel: 16 targets per 256-bit vector in
// 16-bit lanes, 32 in 8-bit lanes. Compiled for AVX2 with a target pragma (the file's
// build flags stay baseline) and only called after __builtin_cpu_supports("avx2").
#include "kernels/cpu/sw_simd_isa.hpp"

#if defined(__x86_64__) || defined(__i386__)  // 256-bit AVX2 exists on x86 only
#include "kernels/cpu/simd_intrinsics.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")
#include "kernels/cpu/sw_simd_kernel.hpp"

namespace hpc::sw_detail {
namespace {

using Reg = __m256i;

Reg load(const void* p) { return _mm256_load_si256(static_cast<const Reg*>(p)); }

// Byte shuffles look up 16 entries; codes run to 24, so each table row is split in two
// halves. For a vector of codes, the low index keeps bit 7 clear only for codes 0..15
// (pshufb yields 0 where it is set), the high index only for codes 16..31; OR-ing the
// two lookups gives the row entry.
struct SplitIndex {
  Reg low, high;
  explicit SplitIndex(Reg codes)
      : low(_mm256_add_epi8(codes, _mm256_set1_epi8(0x70))), high(_mm256_sub_epi8(codes, _mm256_set1_epi8(16))) {}
  Reg lookup(const void* table_low, const void* table_high) const {
    return _mm256_or_si256(_mm256_shuffle_epi8(load(table_low), low), _mm256_shuffle_epi8(load(table_high), high));
  }
};

struct Avx2Words {
  using Reg = __m256i;
  static constexpr int kLanes = kAvx2Lanes;
  Reg open_extend, extend;
  explicit Avx2Words(const SwTables& t)
      : open_extend(_mm256_set1_epi16(t.gap_open_extend)), extend(_mm256_set1_epi16(t.gap_extend)) {}
  static Reg zero() { return _mm256_setzero_si256(); }
  static Reg add_score(Reg h, Reg s) { return _mm256_adds_epi16(h, s); }
  static Reg subs_floor0(Reg a, Reg b) { return _mm256_subs_epu16(a, b); }
  static Reg max(Reg a, Reg b) { return _mm256_max_epi16(a, b); }
  // The end-score kernel's (signed, no floor).
  static Reg splat(int v) { return _mm256_set1_epi16(int16_t(v < -32768 ? -32768 : v > 32767 ? 32767 : v)); }
  static Reg subs(Reg a, Reg b) { return _mm256_subs_epi16(a, b); }
  static Reg eq(Reg a, Reg b) { return _mm256_cmpeq_epi16(a, b); }
  static Reg gt(Reg a, Reg b) { return _mm256_cmpgt_epi16(a, b); }
  static bool any(Reg mask) { return _mm256_movemask_epi8(mask) != 0; }
  static Reg select(Reg mask, Reg a, Reg b) { return _mm256_blendv_epi8(b, a, mask); }
  static Reg load_lanes(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const Reg*>(p)); }
  static void store_best(int32_t* out, Reg v) {
    alignas(32) int16_t lane[kLanes];
    _mm256_store_si256(reinterpret_cast<Reg*>(lane), v);
    for (int l = 0; l < kLanes; ++l) out[l] = lane[l];
  }

  // out[a * stride] = scores of letter a against the 16 target codes.
  static void build_profile(const SwTables& t, const uint8_t* codes, Reg* out, int stride) {
    if (!t.fits_int8) {
      alignas(32) int16_t lane[kLanes];
      for (int a = 0; a < kAlphabetSize; ++a) {
        for (int l = 0; l < kLanes; ++l) lane[l] = t.score16[a][codes[l]];
        out[a * stride] = load(lane);
      }
      return;
    }
    const SplitIndex idx(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes))));
    for (int pair = 0; pair < kAlphabetSize / 2; ++pair) {
      // letter 2*pair in the low half, 2*pair+1 in the high half; widen each to words
      const Reg bytes = idx.lookup(t.shuffle8[pair][0], t.shuffle8[pair][1]);
      out[(2 * pair) * stride] = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(bytes));
      out[(2 * pair + 1) * stride] = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(bytes, 1));
    }
  }
};

struct Avx2Bytes {
  using Reg = __m256i;
  static constexpr int kLanes = 2 * kAvx2Lanes;
  Reg open_extend, extend, bias;
  explicit Avx2Bytes(const SwTables& t)
      : open_extend(_mm256_set1_epi8(char(t.byte_open_extend))),
        extend(_mm256_set1_epi8(char(t.byte_extend))),
        bias(_mm256_set1_epi8(char(t.byte_bias))) {}
  static Reg zero() { return _mm256_setzero_si256(); }
  // Profile entries are score + bias: add, then take the bias back off (floored at 0).
  Reg add_score(Reg h, Reg s) const { return _mm256_subs_epu8(_mm256_adds_epu8(h, s), bias); }
  static Reg subs_floor0(Reg a, Reg b) { return _mm256_subs_epu8(a, b); }
  static Reg max(Reg a, Reg b) { return _mm256_max_epu8(a, b); }
  static void store_best(int32_t* out, Reg v) {
    alignas(32) uint8_t lane[kLanes];
    _mm256_store_si256(reinterpret_cast<Reg*>(lane), v);
    for (int l = 0; l < kLanes; ++l) out[l] = lane[l];
  }
  static void build_profile(const SwTables& t, const uint8_t* codes, Reg* out, int stride) {
    const SplitIndex idx(_mm256_loadu_si256(reinterpret_cast<const Reg*>(codes)));
    for (int a = 0; a < kAlphabetSize; ++a) out[a * stride] = idx.lookup(t.byte_shuffle[a][0], t.byte_shuffle[a][1]);
  }
};

}  // namespace

void group_scores_avx2_16(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                          void* work, int32_t* best) {
  group_scores_generic<Avx2Words, kColumnsPerPass>(t, query, m, columns, ncols, work, best);
}

void group_scores_avx2_8(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                         void* work, int32_t* best) {
  group_scores_generic<Avx2Bytes, kColumnsPerPass>(t, query, m, columns, ncols, work, best);
}

void group_end_scores_avx2_16(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                              const int16_t* lane_len, bool semi, void* work, int32_t* out) {
  group_end_scores<Avx2Words>(t, query, m, columns, ncols, lane_len, semi, work, out);
}

}  // namespace hpc::sw_detail
#pragma GCC pop_options

#endif  // x86
