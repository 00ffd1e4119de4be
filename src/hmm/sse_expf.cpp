#include "src/hmm/sse_expf.hpp"

#include <limits>

namespace hpc::hmm {

__m128 sse_expf(__m128 x) {
  static const float p[6] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                             4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};
  static const float c0 = 0.693359375f, c1 = -2.12194440e-4f;
  static const float maxlogf = 88.3762626647949f, minlogf = -88.3762626647949f;
  const __m128 maxmask = _mm_cmpgt_ps(x, _mm_set1_ps(maxlogf));
  const __m128 minmask = _mm_cmple_ps(x, _mm_set1_ps(minlogf));

  // exp(x) = 2^k e^f, k = floor(0.5 + x / log 2)
  __m128 fx = _mm_mul_ps(x, _mm_set1_ps(float(1.44269504088896341)));  // eslCONST_LOG2R
  fx = _mm_add_ps(fx, _mm_set1_ps(0.5f));
  __m128i k = _mm_cvttps_epi32(fx);
  __m128 tmp = _mm_cvtepi32_ps(k);
  __m128 mask = _mm_and_ps(_mm_cmpgt_ps(tmp, fx), _mm_set1_ps(1.0f));
  fx = _mm_sub_ps(tmp, mask);
  k = _mm_cvttps_epi32(fx);

  tmp = _mm_mul_ps(fx, _mm_set1_ps(c0));
  __m128 z = _mm_mul_ps(fx, _mm_set1_ps(c1));
  x = _mm_sub_ps(x, tmp);
  x = _mm_sub_ps(x, z);
  z = _mm_mul_ps(x, x);
  __m128 y = _mm_set1_ps(p[0]);
  y = _mm_mul_ps(y, x);
  for (int j = 1; j < 5; ++j) y = _mm_mul_ps(_mm_add_ps(y, _mm_set1_ps(p[j])), x);
  y = _mm_mul_ps(_mm_add_ps(y, _mm_set1_ps(p[5])), z);
  y = _mm_add_ps(y, x);
  y = _mm_add_ps(y, _mm_set1_ps(1.0f));

  k = _mm_slli_epi32(_mm_add_epi32(k, _mm_set1_epi32(127)), 23);
  y = _mm_mul_ps(y, _mm_castsi128_ps(k));
  y = sse_select(y, _mm_set1_ps(std::numeric_limits<float>::infinity()), maxmask);
  y = sse_select(y, _mm_setzero_ps(), minmask);
  return y;
}

}  // namespace hpc::hmm
