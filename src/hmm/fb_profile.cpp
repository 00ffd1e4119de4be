#include "src/hmm/fb_profile.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "src/core/alphabet.hpp"
#include "src/hmm/alignment_display.hpp"
#include "src/hmm/fb_parser_lanes.hpp"
#include "src/hmm/profile.hpp"
#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

__m128 odds4(const float v[4]) { return sse_expf(_mm_setr_ps(v[0], v[1], v[2], v[3])); }

}  // namespace

FbProfile build_fb_profile(const HmmModel& model) { return build_fb_profile(model, model_scores(model)); }

FbProfile build_fb_profile(const HmmModel& model, const ModelScores& scores) {
  FbProfile p;
  const int M = p.M = model.length, Q = p.Q = fb_segments(M);
  const auto& msc = scores.match;
  p.rfv.resize(size_t(kHmmerAlphabetSize) * Q);
  float v[4];
  for (int code = 0; code < kHmmerAlphabetSize; ++code)
    for (int q = 0; q < Q; ++q) {
      for (int z = 0; z < 4; ++z) {
        const int k = q + 1 + z * Q;
        v[z] = k <= M ? msc[code][k] : kNegInf;
      }
      p.rfv[size_t(code) * Q + q] = odds4(v);
    }

  // Generic profile transitions: node 0 and node M have none (but B->M_1, stored at [0]).
  const std::vector<float>& tsc_bm = scores.entry;
  const auto tsc = [&](int k, int which) { return scores.tsc(k, which); };
  p.tfv.resize(size_t(8) * Q);
  size_t j = 0;
  for (int q = 0; q < Q; ++q) {
    const int k = q + 1;
    for (int t = kFbBM; t <= kFbII; ++t) {
      for (int z = 0; z < 4; ++z) {
        // BM, MM, IM, DM come from node k-1 (HMMER rotates them by one); the rest from k.
        const int kb = (t <= kFbDM ? k - 1 : k) + z * Q;
        float s = kNegInf;
        if (kb < M) {
          switch (t) {
            case kFbBM: s = tsc_bm[kb]; break;
            case kFbMM: s = tsc(kb, kTMM); break;
            case kFbIM: s = tsc(kb, kTIM); break;
            case kFbDM: s = tsc(kb, kTDM); break;
            case kFbMD: s = tsc(kb, kTMD); break;
            case kFbMI: s = tsc(kb, kTMI); break;
            default: s = tsc(kb, kTII); break;
          }
        }
        v[z] = s;
      }
      p.tfv[j++] = odds4(v);
    }
  }
  for (int q = 0; q < Q; ++q) {
    for (int z = 0; z < 4; ++z) {
      const int kb = q + 1 + z * Q;
      v[z] = kb < M ? tsc(kb, kTDD) : kNegInf;
    }
    p.tfv[j++] = odds4(v);
  }
  p.consensus = model_consensus(model);
  p.configure(100, true);
  return p;
}

void FbProfile::configure(int L, bool multihit) {
  const FbSpecialOdds s = fb_special_odds(L, multihit);  // the same steps as the lane parsers
  std::memcpy(xf, s.x, sizeof xf);
  nj = multihit ? 1.0f : 0.0f;
}

}  // namespace hpc::hmm
