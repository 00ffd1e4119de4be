#include "kernels/cpu/sw_profile_simd.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/simd_intrinsics.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

constexpr int kLanes = 8;
constexpr int16_t kNegInf = -32768;
constexpr int16_t kPadScore = -16384;  // query positions past the end: never part of a best path

inline __m128i shift_in(__m128i v, int16_t first) {  // lanes move up one; lane 0 = first
  return _mm_insert_epi16(_mm_slli_si128(v, 2), first, 0);
}
inline bool any_greater(__m128i a, __m128i b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
inline int16_t horizontal_max(__m128i v) {
  alignas(16) int16_t lanes[kLanes];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), v);
  return *std::max_element(lanes, lanes + kLanes);
}

}  // namespace

SwProfileScorer::SwProfileScorer(const QueryProfile& profile, GapCosts g) : profile_(profile), gaps_(g) {
  if (profile.length == 0) throw Error("profile kernel: empty query profile");
  const int32_t hi = profile.max_score(), lo = profile.min_score();
  vector_ok_ = hi < 8192 && lo > -8192 && g.open + g.extend < 8192 && g.extend >= 0;
  overflow_limit_ = 32767 - std::max(hi, 1);
  segments_ = (profile.length + kLanes - 1) / kLanes;
  // Striped: lane l of segment s holds query position s + l * segments.
  striped_.assign(size_t(kAlphabetSize) * segments_ * kLanes, kPadScore);
  for (int c = 0; c < kAlphabetSize; ++c)
    for (uint32_t s = 0; s < segments_; ++s)
      for (int l = 0; l < kLanes; ++l) {
        const uint32_t i = s + uint32_t(l) * segments_;
        if (i < profile.length && vector_ok_)
          striped_[(size_t(c) * segments_ + s) * kLanes + l] = int16_t(profile(i, uint8_t(c)));
      }
  work_.resize(size_t(3) * segments_ * kLanes);
}

int32_t SwProfileScorer::score(SeqView target) const {
  if (!vector_ok_) return profile_reference_score(profile_, target, gaps_);
  const uint32_t segs = segments_;
  __m128i* h_store = reinterpret_cast<__m128i*>(work_.data());
  __m128i* h_load = h_store + segs;
  __m128i* e_col = h_load + segs;
  const __m128i zero = _mm_setzero_si128();
  const __m128i neg_inf = _mm_set1_epi16(kNegInf);
  const __m128i open_extend = _mm_set1_epi16(int16_t(gaps_.open + gaps_.extend));
  const __m128i extend = _mm_set1_epi16(int16_t(gaps_.extend));
  for (uint32_t s = 0; s < segs; ++s) {
    _mm_storeu_si128(h_store + s, zero);
    _mm_storeu_si128(e_col + s, neg_inf);
  }
  __m128i best = zero;
  for (uint32_t j = 0; j < target.length; ++j) {
    const __m128i* prof = reinterpret_cast<const __m128i*>(striped_.data() + size_t(target.data[j]) * segs * kLanes);
    // H(i-1, j-1) for the first segment: the previous column's last segment moved up a lane.
    __m128i h = shift_in(_mm_loadu_si128(h_store + segs - 1), 0);
    std::swap(h_store, h_load);
    __m128i f = neg_inf;
    for (uint32_t s = 0; s < segs; ++s) {
      h = _mm_adds_epi16(h, _mm_loadu_si128(prof + s));
      __m128i e = _mm_loadu_si128(e_col + s);
      h = _mm_max_epi16(_mm_max_epi16(h, e), _mm_max_epi16(f, zero));
      best = _mm_max_epi16(best, h);
      _mm_storeu_si128(h_store + s, h);
      const __m128i h_open = _mm_subs_epi16(h, open_extend);
      e = _mm_max_epi16(_mm_subs_epi16(e, extend), h_open);
      _mm_storeu_si128(e_col + s, e);
      f = _mm_max_epi16(_mm_subs_epi16(f, extend), h_open);
      h = _mm_loadu_si128(h_load + s);
    }
    // Lazy F (Farrar): carry the vertical gaps across the segment boundaries until they can
    // no longer raise any H.
    f = shift_in(f, kNegInf);
    uint32_t s = 0;
    while (any_greater(f, _mm_subs_epi16(_mm_loadu_si128(h_store + s), open_extend))) {
      const __m128i h_new = _mm_max_epi16(_mm_loadu_si128(h_store + s), f);
      _mm_storeu_si128(h_store + s, h_new);
      best = _mm_max_epi16(best, h_new);
      // E of the next column starts from the raised H.
      _mm_storeu_si128(e_col + s, _mm_max_epi16(_mm_loadu_si128(e_col + s), _mm_subs_epi16(h_new, open_extend)));
      f = _mm_subs_epi16(f, extend);
      if (++s == segs) {
        s = 0;
        f = shift_in(f, kNegInf);
      }
    }
  }
  const int32_t result = horizontal_max(best);
  if (result >= overflow_limit_) return profile_reference_score(profile_, target, gaps_);
  return result;
}

void SwProfileScorer::score(const SeqView* targets, size_t n, int32_t* scores) const {
  for (size_t k = 0; k < n; ++k) scores[k] = score(targets[k]);
}

}  // namespace hpc
