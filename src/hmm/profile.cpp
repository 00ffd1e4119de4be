#include "src/hmm/profile.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/hmm/null_model.hpp"

namespace hpc::hmm {
namespace {

constexpr double kLn2 = 0.69314718055994529;  // eslCONST_LOG2
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// p7_hmm_CalculateOccupancy: probability that match state k is used (float, with the
// (1 - occ) term in double, as HMMER writes it).
std::vector<float> match_occupancy(const HmmModel& m) {
  std::vector<float> occ(m.length + 1, 0.0f);
  occ[1] = m.t[0][kTMI] + m.t[0][kTMM];
  for (int k = 2; k <= m.length; ++k)
    occ[k] = float(double(occ[k - 1] * (m.t[k - 1][kTMM] + m.t[k - 1][kTMI])) +
                   (1.0 - double(occ[k - 1])) * double(m.t[k - 1][kTDM]));
  return occ;
}

float log_prob(float p) { return float(std::log(double(p))); }

// std::round (half away from zero) inline, the same bits for every number (all 2^32 floats
// checked): the library call was a tenth of building a model's filters (62 roundings a node).
inline float round_half_away(float x) {
  if (!(std::fabs(x) < 8388608.0f)) return x;  // 2^23 and beyond: an integer already (or inf, NaN)
  const float t = float(int32_t(x));            // toward zero, exact
  const float d = x - t;                        // exact: the fraction, with x's sign
  // Without branches (a fraction's size and sign are a coin's toss): t, t + 1 or t - 1, exact.
  return std::copysign(t + std::copysign(float(std::fabs(d) >= 0.5f), x), x);
}

}  // namespace

uint8_t unbiased_byte(float scale, float score) {
  const float cost = -1.0f * round_half_away(scale * score);
  return cost > 255.0f ? 255 : uint8_t(int(cost));
}

uint8_t biased_byte(float scale, uint8_t bias, float score) {
  const float cost = -1.0f * round_half_away(scale * score);
  // HMMER casts the (possibly negative) cost to a byte and adds the bias modulo 256.
  return cost > float(255 - bias) ? 255 : uint8_t(int(cost) + bias);
}

int16_t word_score(float scale, float score) {
  const float s = round_half_away(scale * score);
  if (s >= 32767.0f) return 32767;
  if (s <= -32768.0f) return -32768;
  return int16_t(s);
}

std::vector<float> local_entry_scores(const HmmModel& model) {
  const int M = model.length;
  const auto occ = match_occupancy(model);
  float Z = 0.0f;
  for (int k = 1; k <= M; ++k) Z += occ[k] * float(M - k + 1);
  std::vector<float> tsc_bm(M + 1, kNegInf);
  for (int k = 1; k <= M; ++k) tsc_bm[k - 1] = float(std::log(double(occ[k] / Z)));
  return tsc_bm;
}

std::vector<std::vector<float>> match_scores(const HmmModel& model) {
  const int M = model.length;
  const auto& bg = background_frequencies();
  const auto& classes = residue_classes();
  // The degenerate codes' members in HMMER's order, and the denominators of their means (the
  // same sums at every node): the scores below take the same steps as a test of every member at
  // every node, which had been most of a model's profile building.
  std::array<std::array<int8_t, kHmmAlphabet>, kHmmerAlphabetSize> in_order{};  // members, HMMER's order
  std::array<int, kHmmerAlphabetSize> count{};
  std::array<float, kHmmerAlphabetSize> denom{};
  for (int code = 20; code < kHmmerAlphabetSize; ++code) {
    const ResidueClass& rc = classes[code];
    for (int y = 0; y < kHmmAlphabet; ++y)
      if (std::find(rc.members.begin(), rc.members.begin() + rc.count, y) != rc.members.begin() + rc.count)
        in_order[code][count[code]++] = int8_t(y), denom[code] += bg[y];
  }
  std::vector<std::vector<float>> sc(kHmmerAlphabetSize, std::vector<float>(M + 1, kNegInf));
  std::array<float, kHmmAlphabet> s{};
  for (int k = 1; k <= M; ++k) {
    for (int x = 0; x < kHmmAlphabet; ++x) s[x] = float(std::log(double(model.mat[k][x]) / double(bg[x])));
    for (int code = 0; code < kHmmerAlphabetSize; ++code) {
      const ResidueClass& rc = classes[code];
      if (rc.count == 0) continue;  // '*': -infinity
      if (code < 20) {
        sc[code][k] = s[rc.members[0]];
        continue;
      }
      // esl_abc_FExpectScore (Easel 0.48): the background-weighted mean over the members,
      // summed in HMMER's residue order (U and O too: one member, s*p/p, not always s).
      float result = 0.0f;
      for (int j = 0; j < count[code]; ++j) result += s[in_order[code][j]] * bg[in_order[code][j]];
      sc[code][k] = result / denom[code];
    }
  }
  return sc;
}

ModelScores model_scores(const HmmModel& model) {
  ModelScores s;
  const int M = s.M = model.length;
  s.match = match_scores(model);
  s.entry = local_entry_scores(model);
  s.trans.assign(size_t(M) + 1, {});
  for (int k = 1; k < M; ++k)
    for (int which = 0; which < kHmmTransitions; ++which) s.trans[k][which] = log_prob(model.t[k][which]);
  return s;
}

MsvProfile build_msv_profile(const HmmModel& model) { return build_msv_profile(model_scores(model)); }

MsvProfile build_msv_profile(const ModelScores& scores) {
  MsvProfile p;
  const int M = p.M = scores.M;
  const auto& sc = scores.match;
  // The bias comes from the largest score over the 20 residues' match and insert scores;
  // inserts score 0, and HMMER starts its max at 0.
  float max = 0.0f;
  for (int code = 0; code < 20; ++code)
    for (int k = 1; k <= M; ++k) max = std::max(max, sc[code][k]);
  p.scale = float(3.0 / kLn2);
  p.base = 190;
  p.bias = unbiased_byte(p.scale, -1.0f * max);
  p.cost.assign(size_t(kHmmerAlphabetSize) * (M + 1), 255);
  for (int code = 0; code < kHmmerAlphabetSize; ++code)
    for (int k = 1; k <= M; ++k) p.cost[size_t(code) * (M + 1) + k] = biased_byte(p.scale, p.bias, sc[code][k]);
  p.tbm = unbiased_byte(p.scale, std::log(2.0f / (float(M) * float(M + 1))));
  p.tec = unbiased_byte(p.scale, std::log(0.5f));
  return p;
}

uint8_t MsvProfile::tjb(int L) const {
  // The last (length, scale) per thread: callers ask in length order, mostly at one scale.
  thread_local int last_length = -1;
  thread_local float last_scale = 0.0f;
  thread_local uint8_t last_byte = 0;
  if (L != last_length || scale != last_scale)
    last_byte = unbiased_byte(scale, std::log(3.0f / float(L + 3))), last_length = L, last_scale = scale;
  return last_byte;
}

VitProfile build_vit_profile(const HmmModel& model) { return build_vit_profile(model_scores(model)); }

VitProfile build_vit_profile(const ModelScores& scores) {
  VitProfile p;
  const int M = p.M = scores.M;
  p.scale = float(500.0 / kLn2);
  p.base = 12000;
  const auto& sc = scores.match;
  p.emit.assign(size_t(kHmmerAlphabetSize) * (M + 1), -32768);
  for (int code = 0; code < kHmmerAlphabetSize; ++code)
    for (int k = 1; k <= M; ++k) p.emit[size_t(code) * (M + 1) + k] = word_score(p.scale, sc[code][k]);

  // Profile transition scores (float), node 0 and node M transitions impossible except B->M.
  // tsc_bm[k] is the local entry into M_{k+1} (HMMER stores it off by one).
  const std::vector<float>& tsc_bm = scores.entry;
  const auto tsc = [&](int k, int which) { return scores.tsc(k, which); };
  auto word = [&](float s, int16_t maxval) { return std::min<int16_t>(word_score(p.scale, s), maxval); };

  p.bm.assign(M + 1, -32768), p.mm = p.im = p.dm = p.md = p.mi = p.ii = p.dd = p.bm;
  for (int k = 1; k <= M; ++k) {
    p.bm[k] = word(tsc_bm[k - 1], 0);
    p.mm[k] = word(tsc(k - 1, kTMM), 0);
    p.im[k] = word(tsc(k - 1, kTIM), 0);
    p.dm[k] = word(tsc(k - 1, kTDM), 0);
    p.md[k] = word(tsc(k, kTMD), 0);
    p.mi[k] = word(tsc(k, kTMI), 0);
    p.ii[k] = word(tsc(k, kTII), -1);  // HMMER forbids a zero-cost I->I loop
    p.dd[k] = word(tsc(k, kTDD), 0);
  }
  p.e_loop = p.e_move = word_score(p.scale, float(-kLn2));
  for (int k = 2; k < M - 1; ++k) {
    const int b = int(word_score(p.scale, tsc(k, kTDD))) + int(word_score(p.scale, tsc(k + 1, kTDM))) -
                  int(word_score(p.scale, tsc_bm[k + 1]));
    p.ddbound = std::max(p.ddbound, b);
  }
  return p;
}

int16_t VitProfile::move(int L) const {
  const float pmove = (2.0f + 1.0f) / (float(L) + 2.0f + 1.0f);  // nj = 1 (multihit)
  return word_score(scale, std::log(pmove));
}

}  // namespace hpc::hmm
