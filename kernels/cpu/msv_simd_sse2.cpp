// SSE2 instantiation of the striped HMMER filters: 16 byte lanes (MSV) and 8 word lanes
// (Viterbi) per vector, as HMMER's impl_sse. SSE2 is part of x86-64's baseline; elsewhere
// SIMDe maps it onto NEON (simd_intrinsics.hpp).
#include "kernels/cpu/msv_simd_isa.hpp"
#include "kernels/cpu/simd_intrinsics.hpp"
#include "kernels/cpu/msv_simd_kernel.hpp"

namespace hpc::hmm::msv_detail {
namespace {

struct Sse2 {
  using Reg = __m128i;
  static constexpr int kBytes = 16;
  static Reg load(const void* p) { return _mm_load_si128(static_cast<const Reg*>(p)); }
  static void store(void* p, Reg v) { _mm_store_si128(static_cast<Reg*>(p), v); }
  static Reg zero() { return _mm_setzero_si128(); }
  static Reg set1_8(int x) { return _mm_set1_epi8(char(x)); }
  static Reg set1_16(int x) { return _mm_set1_epi16(short(x)); }
  static Reg or_(Reg a, Reg b) { return _mm_or_si128(a, b); }
  static Reg subs_i8(Reg a, Reg b) { return _mm_subs_epi8(a, b); }
  static Reg max_u8(Reg a, Reg b) { return _mm_max_epu8(a, b); }
  static Reg adds_u8(Reg a, Reg b) { return _mm_adds_epu8(a, b); }
  static Reg subs_u8(Reg a, Reg b) { return _mm_subs_epu8(a, b); }
  static Reg adds_i16(Reg a, Reg b) { return _mm_adds_epi16(a, b); }
  static Reg max_i16(Reg a, Reg b) { return _mm_max_epi16(a, b); }
  static void ssv_cell(Reg& sv, const Reg* cost, Reg& xE) {
    sv = _mm_subs_epi8(sv, load(cost));
    xE = _mm_max_epu8(xE, sv);
  }
  static Reg up1_8(Reg v) { return _mm_slli_si128(v, 1); }
  static Reg up1_16(Reg v) { return _mm_slli_si128(v, 2); }
  static int hmax_u8(Reg v) {
    v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
    return _mm_cvtsi128_si32(v) & 0xFF;
  }
  static int hmax_i16(Reg v) {
    v = _mm_max_epi16(v, _mm_srli_si128(v, 8));
    v = _mm_max_epi16(v, _mm_srli_si128(v, 4));
    v = _mm_max_epi16(v, _mm_srli_si128(v, 2));
    return int16_t(_mm_cvtsi128_si32(v) & 0xFFFF);
  }
  static bool any_gt_i16(Reg a, Reg b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
};

}  // namespace

const KernelSet kSse2Kernels = Striped<Sse2>::kernels();

}  // namespace hpc::hmm::msv_detail
