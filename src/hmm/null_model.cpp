#include "src/hmm/null_model.hpp"

#include <cmath>
#include <cstring>

namespace hpc::hmm {

const std::array<float, kHmmAlphabet>& background_frequencies() {
  // p7_AminoFrequencies(): Swiss-Prot 50.8 (Oct 2006), in HMMER order ACDEFGHIKLMNPQRSTVWY.
  static const std::array<float, kHmmAlphabet> f = {
      0.0787945f, 0.0151600f, 0.0535222f, 0.0668298f, 0.0397062f, 0.0695071f, 0.0229198f,
      0.0590092f, 0.0594422f, 0.0963728f, 0.0237718f, 0.0414386f, 0.0482904f, 0.0395639f,
      0.0540978f, 0.0683364f, 0.0540687f, 0.0673417f, 0.0114135f, 0.0304133f};
  return f;
}

namespace {

int hmmer_index(char letter) {
  const char* p = std::strchr(kHmmResidues, letter);
  return p ? int(p - kHmmResidues) : -1;
}

std::array<ResidueClass, kHmmerAlphabetSize> make_classes() {
  std::array<ResidueClass, kHmmerAlphabetSize> classes{};
  auto add = [&](int code, const char* letters) {
    for (const char* c = letters; *c; ++c) classes[code].members[classes[code].count++] = int8_t(hmmer_index(*c));
  };
  for (int code = 0; code < kAlphabetSize; ++code) {
    const char letter = kAlphabetLetters[code];
    if (hmmer_index(letter) >= 0) add(code, std::string(1, letter).c_str());
  }
  // Easel's degeneracies; members listed in HMMER order, as Easel sums them.
  add(20, "DN");                    // B
  add(21, "EQ");                    // Z
  add(kCodeX, kHmmResidues);        // X
  add(kCodeU, "C");                 // selenocysteine
  add(kCodeO, "K");                 // pyrrolysine
  add(kCodeJ, "IL");
  return classes;                   // '*' stays empty: HMMER's nonresidue
}

}  // namespace

const std::array<ResidueClass, kHmmerAlphabetSize>& residue_classes() {
  static const auto classes = make_classes();
  return classes;
}

bool is_nonresidue(uint8_t code) { return code == kCodeStop; }

float null_one_score(int L) {
  // Callers go through targets in length order (a tile's, a batch's): the last length's score
  // is kept per thread, saving two logs a call on the same length.
  thread_local int last_length = -1;
  thread_local float last_score = 0.0f;
  if (L == last_length) return last_score;
  // p7_bg_SetLength + p7_bg_NullOne: p1 in float, the logs in double.
  const float p1 = float(L) / float(L + 1);
  last_score = float(double(float(L)) * std::log(double(p1)) + std::log(1.0 - double(p1)));
  last_length = L;
  return last_score;
}

BiasFilter::BiasFilter(int model_length, const std::array<float, kHmmAlphabet>& compo) {
  // p7_bg_SetFilter: state 0 = background, state 1 = model composition, mean length M/8.
  const auto& bg = background_frequencies();
  const float L1 = float(double(float(model_length)) / 8.0);
  t10_ = 1.0f / (L1 + 1.0f);
  t11_ = L1 / (L1 + 1.0f);
  // esl_hmm_Configure: odds e/f; degenerate symbols sum e over members / sum f; '*' = 1.
  const auto& classes = residue_classes();
  for (int code = 0; code < kHmmerAlphabetSize; ++code) {
    const ResidueClass& rc = classes[code];
    for (int s = 0; s < 2; ++s) {
      if (rc.count == 0) {
        odds_[code][s] = 1.0f;
      } else if (code < 20) {  // esl_hmm_Configure: degenerate codes (U and O too) below
        const int x = rc.members[0];
        odds_[code][s] = (s == 0 ? bg[x] : compo[x]) / bg[x];
      } else {
        float num = 0.0f, den = 0.0f;
        for (int y = 0; y < kHmmAlphabet; ++y) {
          bool member = false;
          for (int j = 0; j < rc.count; ++j) member |= rc.members[j] == y;
          if (!member) continue;
          num += (s == 0 ? bg[y] : compo[y]);
          den += bg[y];
        }
        odds_[code][s] = den > 0.0f ? num / den : 0.0f;
      }
    }
  }
}

float BiasFilter::score(const uint8_t* x, int L) const {
  // p7_bg_SetLength sets the background self-transition to p1; esl_hmm_Forward with
  // per-row scaling; then p7_bg_FilterScore imposes the length distribution.
  const float p1 = float(L) / float(L + 1);
  const float t[2][2] = {{p1, 1.0f - p1}, {t10_, t11_}};
  const float pi[2] = {0.999f, 0.001f};
  float dp[2], logsc = 0.0f;
  float mx = 0.0f;
  for (int k = 0; k < 2; ++k) {
    dp[k] = odds_[x[0]][k] * pi[k];
    mx = std::max(dp[k], mx);
  }
  for (int k = 0; k < 2; ++k) dp[k] /= mx;
  logsc += float(std::log(double(mx)));
  for (int i = 1; i < L; ++i) {
    float nd[2];
    mx = 0.0f;
    for (int k = 0; k < 2; ++k) {
      nd[k] = 0.0f;
      nd[k] += dp[0] * t[0][k];
      nd[k] += dp[1] * t[1][k];
      nd[k] *= odds_[x[i]][k];
      mx = std::max(nd[k], mx);
    }
    for (int k = 0; k < 2; ++k) dp[k] = nd[k] / mx;
    logsc += float(std::log(double(mx)));
  }
  float end = 0.0f;
  end += dp[0] * 1.0f;  // both states move to E with probability 1
  end += dp[1] * 1.0f;
  logsc += float(std::log(double(end)));
  return finish(logsc, L);
}

float BiasFilter::finish(float log_sum, int L) {
  const float p1 = float(L) / float(L + 1);
  const float len = float(L) * std::log(p1);
  return log_sum + len + std::log(float(1.0 - double(p1)));
}

double gumbel_survival(double x, double mu, double lambda) {
  const double y = lambda * (x - mu);
  const double ey = -std::exp(-y);
  // 1 - e^x ~ -x when e^-y is tiny (eslSMALLX1 = 5e-9), as Easel does.
  if (std::fabs(ey) < 5e-9) return -ey;
  return 1.0 - std::exp(ey);
}

}  // namespace hpc::hmm
