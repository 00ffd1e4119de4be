// AVX2 instantiation of the striped HMMER filters: 32 byte lanes (MSV) and 16 word lanes
// (Viterbi) per vector, twice HMMER's SSE width. Compiled for AVX2 with a target pragma (the
// file's build flags stay baseline) and only called after __builtin_cpu_supports("avx2").
#include "kernels/cpu/msv_simd_isa.hpp"

#if defined(__x86_64__) || defined(__i386__)  // 256-bit AVX2 exists on x86 only
#include <array>
#include <limits>
#include <utility>

#include "kernels/cpu/simd_intrinsics.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")
#include "kernels/cpu/msv_simd_kernel.hpp"

namespace hpc::hmm::msv_detail {
namespace {

struct Avx2 {
  using Reg = __m256i;
  static constexpr int kBytes = 32;
  static Reg load(const void* p) { return _mm256_load_si256(static_cast<const Reg*>(p)); }
  static void store(void* p, Reg v) { _mm256_store_si256(static_cast<Reg*>(p), v); }
  static Reg zero() { return _mm256_setzero_si256(); }
  static Reg set1_8(int x) { return _mm256_set1_epi8(char(x)); }
  static Reg set1_16(int x) { return _mm256_set1_epi16(short(x)); }
  static Reg or_(Reg a, Reg b) { return _mm256_or_si256(a, b); }
  static Reg subs_i8(Reg a, Reg b) { return _mm256_subs_epi8(a, b); }
  static Reg max_u8(Reg a, Reg b) { return _mm256_max_epu8(a, b); }
  static Reg adds_u8(Reg a, Reg b) { return _mm256_adds_epu8(a, b); }
  static Reg subs_u8(Reg a, Reg b) { return _mm256_subs_epu8(a, b); }
  static Reg adds_i16(Reg a, Reg b) { return _mm256_adds_epi16(a, b); }
  static Reg max_i16(Reg a, Reg b) { return _mm256_max_epi16(a, b); }
  // sv -= *cost (signed, saturating); xE = max(xE, sv), both updated in place: GCC otherwise
  // copies every loop-carried register once per row.
  static void ssv_cell(Reg& sv, const Reg* cost, Reg& xE) {
    asm("vpsubsb %2, %0, %0\n\tvpmaxub %0, %1, %1" : "+x"(sv), "+x"(xE) : "m"(*cost));
  }
  // Byte shifts stay within 128-bit halves: the low half's top bytes cross over through a
  // permute that puts the low half high and zero low.
  static Reg up1_8(Reg v) { return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 15); }
  static Reg up1_16(Reg v) { return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, v, 0x08), 14); }
  static int hmax_u8(Reg v) {
    __m128i h = _mm_max_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    h = _mm_max_epu8(h, _mm_srli_si128(h, 8));
    h = _mm_max_epu8(h, _mm_srli_si128(h, 4));
    h = _mm_max_epu8(h, _mm_srli_si128(h, 2));
    h = _mm_max_epu8(h, _mm_srli_si128(h, 1));
    return _mm_cvtsi128_si32(h) & 0xFF;
  }
  static int hmax_i16(Reg v) {
    __m128i h = _mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    h = _mm_max_epi16(h, _mm_srli_si128(h, 8));
    h = _mm_max_epi16(h, _mm_srli_si128(h, 4));
    h = _mm_max_epi16(h, _mm_srli_si128(h, 2));
    return int16_t(_mm_cvtsi128_si32(h) & 0xFFFF);
  }
  static bool any_gt_i16(Reg a, Reg b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
};

}  // namespace

const KernelSet kAvx2Kernels = Striped<Avx2>::kernels();

}  // namespace hpc::hmm::msv_detail
#pragma GCC pop_options

#endif  // x86
