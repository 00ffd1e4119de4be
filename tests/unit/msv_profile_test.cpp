// HMMER-exact profiles and filters: rounding rules, byte/word profile constants, the SSV
// shortcut against the full MSV recursion, and the pipeline on sequences we know the answer for.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "io/hmm_file.hpp"
#include "kernels/cpu/msv_filters.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "test_support.hpp"

using namespace hpc;
using hpc::test::data_path;
using namespace hpc::hmm;

namespace {

const HmmModel& globins() {
  static const HmmModel m = read_hmm_file(data_path("hmm/globins4.hmm")).at(0);
  return m;
}

std::vector<uint8_t> encode(const std::string& s) {
  std::vector<uint8_t> v;
  for (char c : s) v.push_back(encode_residue(static_cast<unsigned char>(c)));
  return v;
}

// Random sequence with background composition.
std::vector<uint8_t> random_seq(std::mt19937& rng, int L) {
  const auto& f = background_frequencies();
  std::discrete_distribution<int> pick(f.begin(), f.end());
  std::string s;
  for (int i = 0; i < L; ++i) s += kHmmResidues[pick(rng)];
  return encode(s);
}

// The model's consensus sequence (most probable residue per node).
std::vector<uint8_t> consensus(const HmmModel& m) {
  std::string s;
  for (int k = 1; k <= m.length; ++k) {
    int best = 0;
    for (int x = 1; x < kHmmAlphabet; ++x)
      if (m.mat[k][x] > m.mat[k][best]) best = x;
    s += kHmmResidues[best];
  }
  return encode(s);
}

}  // namespace

TEST(MsvProfile, RoundingFollowsHmmer) {
  const float scale = float(3.0 / 0.69314718055994529);
  EXPECT_EQ(unbiased_byte(scale, std::log(0.5f)), 3);  // tec: 3 third-bits
  EXPECT_EQ(unbiased_byte(scale, -1000.0f), 255);      // saturates
  EXPECT_EQ(unbiased_byte(scale, 0.0f), 0);
  EXPECT_EQ(biased_byte(scale, 10, 1.0f), 10 - 4);     // +1 nat = 4.33 third-bits -> cost -4 + bias
  EXPECT_EQ(biased_byte(scale, 10, -1.0f), 10 + 4);
  EXPECT_EQ(biased_byte(scale, 10, -INFINITY), 255);
  const float wscale = float(500.0 / 0.69314718055994529);
  EXPECT_EQ(word_score(wscale, float(-0.69314718055994529)), -500);
  EXPECT_EQ(word_score(wscale, -INFINITY), -32768);
  EXPECT_EQ(word_score(wscale, 1000.0f), 32767);
}

// The byte and word scores round half away from zero as std::round does (HMMER's roundf), for
// every half (each exact multiple of 1/2048 up to 2^12 in size) and for random scores.
TEST(MsvProfile, RoundingEqualsStdRound) {
  const auto byte_cost = [](float scale, float score) { return -1.0f * std::round(scale * score); };
  const auto expect_all = [&](float scale, float score) {
    const float unbiased = byte_cost(scale, score);
    ASSERT_EQ(unbiased_byte(scale, score), unbiased > 255.0f ? 255 : uint8_t(int(unbiased))) << score;
    for (uint8_t bias : {0, 10, 200})
      ASSERT_EQ(biased_byte(scale, bias, score), unbiased > float(255 - bias) ? 255 : uint8_t(int(unbiased) + bias)) << score;
    const float w = std::round(scale * score);
    ASSERT_EQ(word_score(scale, score), w >= 32767.0f ? 32767 : w <= -32768.0f ? -32768 : int16_t(w)) << score;
  };
  for (int i = -(1 << 23); i <= (1 << 23); ++i) expect_all(1.0f, float(i) / 2048.0f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> score(-40.0f, 40.0f);
  for (float scale : {float(3.0 / 0.69314718055994529), float(500.0 / 0.69314718055994529)})
    for (int i = 0; i < 200000; ++i) expect_all(scale, score(rng));
}

TEST(MsvProfile, Globins4ByteProfile) {
  const MsvProfile p = build_msv_profile(globins());
  EXPECT_EQ(p.M, 149);
  EXPECT_EQ(p.base, 190);
  EXPECT_EQ(p.tec, 3);
  // tbm = round(-3/ln2 * ln(2/(149*150))) = round(40.26...) = 40.
  EXPECT_EQ(p.tbm, 40);
  // tjb(L) = round(-3/ln2 * ln(3/(L+3))): L=100 -> 15, L=400 -> 21.
  EXPECT_EQ(p.tjb(100), 15);
  EXPECT_EQ(p.tjb(400), 21);
  // bias = largest match score in third-bits; every real cost stays below 255 and the best
  // residue at each node costs at most the bias.
  const auto sc = match_scores(globins());
  float max = 0;
  for (int c = 0; c < 20; ++c)
    for (int k = 1; k <= p.M; ++k) max = std::max(max, sc[c][k]);
  EXPECT_EQ(p.bias, uint8_t(std::lround(max * p.scale)));
  for (int k = 1; k <= p.M; ++k) {
    int best = 255;
    for (int c = 0; c < 20; ++c) best = std::min<int>(best, p.row(uint8_t(c))[k]);
    EXPECT_GE(best, 0);
    EXPECT_LE(best, p.bias);
    // '*' is HMMER's nonresidue: impossible.
    EXPECT_EQ(p.row(kCodeStop)[k], 255);
  }
  // HMMER's degenerate residues: the background-weighted mean over their members, summed in
  // float in HMMER's order (esl_abc_FExpectScore): U = {C}, O = {K}, J = {I, L}, B = {D, N}.
  const auto& bg = background_frequencies();
  const auto mean = [&](int k, std::initializer_list<std::pair<char, int>> members) {
    float r = 0, d = 0;
    for (auto [letter, hmmer] : members) r += sc[encode_residue(letter)][k] * bg[hmmer], d += bg[hmmer];
    return r / d;
  };
  for (int k = 1; k <= p.M; ++k) {
    EXPECT_EQ(sc[kCodeU][k], mean(k, {{'C', 1}}));
    EXPECT_EQ(sc[kCodeO][k], mean(k, {{'K', 8}}));
    EXPECT_EQ(sc[kCodeJ][k], mean(k, {{'I', 7}, {'L', 9}}));
    EXPECT_EQ(sc[20][k], mean(k, {{'D', 2}, {'N', 11}}));
    EXPECT_NEAR(sc[kCodeU][k], sc[encode_residue('C')][k], 1e-5f);
    EXPECT_EQ(p.row(kCodeU)[k], biased_byte(p.scale, p.bias, sc[kCodeU][k]));
  }
  // X is the background-weighted mean of the 20 scores, so its cost sits between them.
  for (int k = 1; k <= p.M; ++k) {
    float lo = 1e9f, hi = -1e9f;
    for (int c = 0; c < 20; ++c) lo = std::min(lo, sc[c][k]), hi = std::max(hi, sc[c][k]);
    EXPECT_GE(sc[kCodeX][k], lo);
    EXPECT_LE(sc[kCodeX][k], hi);
  }
}

TEST(MsvProfile, SsvShortcutAgreesWithFullMsv) {
  // HMMER returns the SSV score when the J state cannot matter; it only differs from the
  // full recursion below the begin level (the SSV clamps there), never above it.
  const MsvProfile p = build_msv_profile(globins());
  std::mt19937 rng(7);
  FilterWorkspace ws;
  int equal = 0;
  for (int n = 0; n < 300; ++n) {
    const auto s = random_seq(rng, 50 + int(rng() % 600));
    const float a = msv_filter_score(p, s.data(), int(s.size()), ws);
    const float b = msv_full_score(p, s.data(), int(s.size()), ws);
    EXPECT_GE(a, b);
    equal += (a == b);
  }
  EXPECT_GT(equal, 250);
}

TEST(MsvProfile, ConsensusPassesAndRandomMostlyFails) {
  const ModelFilters f(globins());
  FilterSettings s;
  FilterWorkspace ws;
  const auto cons = consensus(globins());
  const PairResult hit = run_filters(f, cons.data(), int(cons.size()), s, ws);
  EXPECT_TRUE(hit.passed);
  EXPECT_GT(hit.msv_bits, 50.0f);
  EXPECT_LT(hit.msv_pvalue, 1e-10);
  std::mt19937 rng(11);
  int msv = 0, vit = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const auto r = random_seq(rng, 300);
    const PairResult res = run_filters(f, r.data(), int(r.size()), s, ws);
    msv += res.msv_pass;
    vit += res.passed;
    EXPECT_FALSE(std::isnan(res.msv_bits));
  }
  // The MSV P-values are calibrated: about F1 = 2% of random sequences pass.
  EXPECT_GT(msv, n * 0.005);
  EXPECT_LT(msv, n * 0.06);
  EXPECT_LT(vit, msv);
}

TEST(MsvProfile, EmptyTargetNeverPasses) {
  const ModelFilters f(globins());
  FilterWorkspace ws;
  EXPECT_FALSE(run_filters(f, nullptr, 0, FilterSettings{}, ws).passed);
}

// null_one_score and tjb keep the last length's value per thread (callers go in length
// order): asked in any order, at two scales, each equals its formula's value bit for bit.
TEST(MsvProfile, LengthTermsKeptPerThreadEqualTheirFormulas) {
  const auto null_one = [](int L) {
    const float p1 = float(L) / float(L + 1);
    return float(double(float(L)) * std::log(double(p1)) + std::log(1.0 - double(p1)));
  };
  const MsvProfile a = build_msv_profile(globins());
  MsvProfile b = a;
  b.scale = a.scale * 2.0f;
  const auto tjb = [](const MsvProfile& p, int L) { return unbiased_byte(p.scale, std::log(3.0f / float(L + 3))); };
  for (int L : {100, 100, 7, 35000, 7, 1, 100, 2, 2, 400}) {
    EXPECT_EQ(null_one_score(L), null_one(L)) << L;
    EXPECT_EQ(a.tjb(L), tjb(a, L)) << L;
    EXPECT_EQ(b.tjb(L), tjb(b, L)) << L;
    EXPECT_EQ(a.tjb(L), tjb(a, L)) << L;
  }
  EXPECT_NE(a.tjb(400), b.tjb(400));  // the scales give different bytes: a stale byte would show
}

TEST(MsvProfile, NullModels) {
  // null1 = L ln(L/(L+1)) + ln(1/(L+1)).
  EXPECT_NEAR(null_one_score(100), 100 * std::log(100.0 / 101) + std::log(1.0 / 101), 1e-4);
  // The bias filter null rewards the model's composition: a run of the residue most
  // enriched in the model scores far above null1, a background sequence does not.
  const HmmModel& m = globins();
  const BiasFilter bf(m.length, m.compo);
  const auto& bg = background_frequencies();
  int enriched = 0;
  for (int x = 1; x < kHmmAlphabet; ++x)
    if (m.compo[x] / bg[x] > m.compo[enriched] / bg[enriched]) enriched = x;
  const auto biased = encode(std::string(200, kHmmResidues[enriched]));
  std::mt19937 rng(3);
  const auto plain = random_seq(rng, 200);
  const float gain_biased = bf.score(biased.data(), 200) - null_one_score(200);
  const float gain_plain = bf.score(plain.data(), 200) - null_one_score(200);
  EXPECT_GT(gain_biased, 10.0f);
  EXPECT_LT(gain_plain, 1.0f);
  EXPECT_NEAR(gumbel_survival(0.0, 0.0, 1.0), 1.0 - std::exp(-1.0), 1e-12);
  EXPECT_NEAR(gumbel_survival(40.0, 0.0, 1.0), std::exp(-40.0), 1e-25);
}

// The pipeline given a bias score from elsewhere (the GPU twin's) is the pipeline that scores it
// itself, field for field, and it does use the score: a null far above a finite MSV score (an
// overflowed one passes whatever the null) fails the pair.
TEST(MsvProfile, PipelineGivenTheBiasScoreEqualsItsOwn) {
  const ModelFilters f(globins());
  const FilterSettings s;
  FilterWorkspace ws;
  std::mt19937 rng(25);
  int past_msv = 0;
  auto check = [&](const std::vector<uint8_t>& t) {
    const int L = int(t.size());
    const float usc = f.simd.msv(f.msv, t.data(), L, ws);
    const PairResult a = run_filters_until_viterbi(f, t.data(), L, usc, s);
    const PairResult b = run_filters_until_viterbi(f, L, usc, f.bias.score(t.data(), L), s);
    EXPECT_EQ(a.msv_pass, b.msv_pass);
    EXPECT_EQ(a.bias_pass, b.bias_pass);
    EXPECT_EQ(a.needs_viterbi, b.needs_viterbi);
    EXPECT_EQ(a.passed, b.passed);
    EXPECT_TRUE(a.filter_nats == b.filter_nats || (std::isnan(a.filter_nats) && std::isnan(b.filter_nats)));
    if (!a.msv_pass) return;
    ++past_msv;
    if (std::isfinite(usc)) EXPECT_FALSE(run_filters_until_viterbi(f, L, usc, usc + 100.0f, s).bias_pass);
  };
  check(consensus(globins()));
  for (int i = 0; i < 1000; ++i) check(random_seq(rng, 50 + i % 400));
  EXPECT_GT(past_msv, 5);
}

TEST(MsvProfile, StageNames) {
  EXPECT_EQ(parse_stages("msv"), unsigned(kStageMsv));
  EXPECT_EQ(stages_name(parse_stages("msv,bias,vit")), "msv,bias,vit");
  EXPECT_THROW(parse_stages("vit"), hpc::Error);
}
