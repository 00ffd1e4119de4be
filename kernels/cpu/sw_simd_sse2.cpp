// SSE2 instantiations of the inter-sequence kernel: 8 targets per 128-bit vector in
// 16-bit lanes, 16 in 8-bit lanes. SSE2 is part of x86-64's baseline, so these run on
// every x86-64 machine; elsewhere SIMDe maps them onto NEON (simd_intrinsics.hpp).
#include "kernels/cpu/simd_intrinsics.hpp"
#include "kernels/cpu/sw_simd_isa.hpp"
#include "kernels/cpu/sw_simd_kernel.hpp"

namespace hpc::sw_detail {
namespace {

// SSE2 has no byte shuffle: profiles are gathered lane by lane from the tables.
struct Sse2Words {
  using Reg = __m128i;
  static constexpr int kLanes = kSse2Lanes;
  Reg open_extend, extend;
  explicit Sse2Words(const SwTables& t)
      : open_extend(_mm_set1_epi16(t.gap_open_extend)), extend(_mm_set1_epi16(t.gap_extend)) {}
  static Reg zero() { return _mm_setzero_si128(); }
  static Reg add_score(Reg h, Reg s) { return _mm_adds_epi16(h, s); }
  static Reg subs_floor0(Reg a, Reg b) { return _mm_subs_epu16(a, b); }
  static Reg max(Reg a, Reg b) { return _mm_max_epi16(a, b); }
  // The end-score kernel's (signed, no floor).
  static Reg splat(int v) { return _mm_set1_epi16(int16_t(v < -32768 ? -32768 : v > 32767 ? 32767 : v)); }
  static Reg subs(Reg a, Reg b) { return _mm_subs_epi16(a, b); }
  static Reg eq(Reg a, Reg b) { return _mm_cmpeq_epi16(a, b); }
  static Reg gt(Reg a, Reg b) { return _mm_cmpgt_epi16(a, b); }
  static bool any(Reg mask) { return _mm_movemask_epi8(mask) != 0; }
  static Reg select(Reg mask, Reg a, Reg b) { return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b)); }
  static Reg load_lanes(const int16_t* p) { return _mm_loadu_si128(reinterpret_cast<const Reg*>(p)); }
  static void store_best(int32_t* out, Reg v) {
    alignas(16) int16_t lane[kLanes];
    _mm_store_si128(reinterpret_cast<Reg*>(lane), v);
    for (int l = 0; l < kLanes; ++l) out[l] = lane[l];
  }
  static void build_profile(const SwTables& t, const uint8_t* codes, Reg* out, int stride) {
    for (int a = 0; a < kAlphabetSize; ++a) {
      const int16_t* row = t.score16[a];
      out[a * stride] = _mm_setr_epi16(row[codes[0]], row[codes[1]], row[codes[2]], row[codes[3]],
                                       row[codes[4]], row[codes[5]], row[codes[6]], row[codes[7]]);
    }
  }
};

struct Sse2Bytes {
  using Reg = __m128i;
  static constexpr int kLanes = 2 * kSse2Lanes;
  Reg open_extend, extend, bias;
  explicit Sse2Bytes(const SwTables& t)
      : open_extend(_mm_set1_epi8(char(t.byte_open_extend))),
        extend(_mm_set1_epi8(char(t.byte_extend))),
        bias(_mm_set1_epi8(char(t.byte_bias))) {}
  static Reg zero() { return _mm_setzero_si128(); }
  Reg add_score(Reg h, Reg s) const { return _mm_subs_epu8(_mm_adds_epu8(h, s), bias); }
  static Reg subs_floor0(Reg a, Reg b) { return _mm_subs_epu8(a, b); }
  static Reg max(Reg a, Reg b) { return _mm_max_epu8(a, b); }
  static void store_best(int32_t* out, Reg v) {
    alignas(16) uint8_t lane[kLanes];
    _mm_store_si128(reinterpret_cast<Reg*>(lane), v);
    for (int l = 0; l < kLanes; ++l) out[l] = lane[l];
  }
  static void build_profile(const SwTables& t, const uint8_t* codes, Reg* out, int stride) {
    for (int a = 0; a < kAlphabetSize; ++a) {
      alignas(16) uint8_t lane[kLanes];
      for (int l = 0; l < kLanes; ++l) lane[l] = t.byte_score[a][codes[l]];
      out[a * stride] = _mm_load_si128(reinterpret_cast<const Reg*>(lane));
    }
  }
};

}  // namespace

void group_scores_sse2_16(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                          void* work, int32_t* best) {
  group_scores_generic<Sse2Words, kColumnsPerPass>(t, query, m, columns, ncols, work, best);
}

void group_scores_sse2_8(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                         void* work, int32_t* best) {
  group_scores_generic<Sse2Bytes, kColumnsPerPass>(t, query, m, columns, ncols, work, best);
}

void group_end_scores_sse2_16(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                              const int16_t* lane_len, bool semi, void* work, int32_t* out) {
  group_end_scores<Sse2Words>(t, query, m, columns, ncols, lane_len, semi, work, out);
}

}  // namespace hpc::sw_detail
