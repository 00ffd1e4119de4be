#pragma once
// Easel 0.48's vector expf (esl_sse_expf, a Cephes polynomial after Pommier): HMMER 3.3.2
// converts its Forward/Backward profile scores to probabilities with it, so the last bits of
// every transition and emission odds depend on this exact approximation, not on libm's expf.
#include "kernels/cpu/simd_intrinsics.hpp"

namespace hpc::hmm {

__m128 sse_expf(__m128 x);

// Helpers HMMER's striped float kernels use (esl_sse.h), with its lane order.
inline __m128 sse_rightshift(__m128 a, __m128 b) {  // {b[0], a[0], a[1], a[2]}
  return _mm_move_ss(_mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 1, 0, 0)), b);
}
inline __m128 sse_leftshift_zero(__m128 a) {  // {a[1], a[2], a[3], 0}
  const __m128 v = _mm_move_ss(a, _mm_setzero_ps());
  return _mm_shuffle_ps(v, v, _MM_SHUFFLE(0, 3, 2, 1));
}
inline float sse_hsum(__m128 a) {
  a = _mm_add_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 3, 2, 1)));
  a = _mm_add_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_cvtss_f32(a);
}
inline float sse_hmax(__m128 a) {
  a = _mm_max_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 3, 2, 1)));
  a = _mm_max_ps(a, _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)));
  return _mm_cvtss_f32(a);
}
inline float lane(__m128 v, int r) {
  alignas(16) float f[4];
  _mm_store_ps(f, v);
  return f[r];
}
inline __m128 sse_select(__m128 a, __m128 b, __m128 mask) {  // mask ? b : a
  return _mm_or_ps(_mm_and_ps(mask, b), _mm_andnot_ps(mask, a));
}

}  // namespace hpc::hmm
