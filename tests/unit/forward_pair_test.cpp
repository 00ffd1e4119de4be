// The two-target Forward parser (src/hmm/forward_pair.hpp) against HMMER's SSE Forward parser
// (src/hmm/forward_backward.hpp) run on each target alone: scores bit for bit, under hmmsearch's
// float mode, for targets of unequal lengths (the shorter one's half runs on past its end),
// models under and over 100 nodes (the D->D passes stop per target there), rescaled rows in
// one target only, and scores out of the float range (the same error, the first target's first).
#include <gtest/gtest.h>

#include <random>

#include "fb_test_support.hpp"
#include "src/core/error.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/forward_pair.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

struct Coverage {
  int pairs = 0, unequal = 0, big_models = 0, rescaled_one = 0, out_of_range = 0;
};

// forward() of one target alone: its score, or its error's words.
struct Single {
  float nats = 0;
  std::string error;
  int rescales = 0;
};
Single alone(const FbProfile& base, const std::vector<uint8_t>& s) {
  const HmmerFloatMode mode;
  FbProfile p = base;
  const int L = int(s.size());
  p.configure(L, true);
  FbMatrix mx;
  Single r;
  try {
    r.nats = forward(s.data(), L, p, mx, false);
  } catch (const Error& e) {
    r.error = e.what();
  }
  for (int i = 1; i <= L && r.error.empty(); ++i) r.rescales += mx.x(i, kCellScale) > 1.0f;
  return r;
}

void compare(const FbProfile& p, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, Coverage& cov) {
  const Single sa = alone(p, a), sb = alone(p, b);
  const std::string where = "M " + std::to_string(p.M) + " L " + std::to_string(a.size()) + " and " +
                            std::to_string(b.size());
  std::vector<float> row;
  const HmmerFloatMode mode;
  const PairTarget ta{a.data(), int(a.size()), fb_special_odds(int(a.size()), true)};
  const PairTarget tb{b.data(), int(b.size()), fb_special_odds(int(b.size()), true)};
  if (!sa.error.empty() || !sb.error.empty()) {
    cov.out_of_range++;
    try {
      forward_pair(p, ta, tb, row);
      ADD_FAILURE() << where << ": no error, where forward() says " << sa.error << sb.error;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), sa.error.empty() ? sb.error : sa.error) << where;
    }
    return;
  }
  const std::array<float, 2> two = forward_pair(p, ta, tb, row);
  ASSERT_EQ(float_bits(two[0]), float_bits(sa.nats)) << where << ": first " << two[0] << " vs " << sa.nats;
  ASSERT_EQ(float_bits(two[1]), float_bits(sb.nats)) << where << ": second " << two[1] << " vs " << sb.nats;
  cov.pairs++;
  cov.unequal += a.size() != b.size();
  cov.big_models += p.M >= 100;
  cov.rescaled_one += (sa.rescales > 0) != (sb.rescales > 0);
}

// Every target with the next one (the last with the first), and each with itself.
void compare_all(const FbProfile& p, const std::vector<std::vector<uint8_t>>& targets, Coverage& cov) {
  for (size_t i = 0; i < targets.size(); ++i) {
    compare(p, targets[i], targets[(i + 1) % targets.size()], cov);
    compare(p, targets[i], targets[i], cov);
  }
}

}  // namespace

TEST(ForwardPair, RandomModelsEqualTheSseParser) {
  ASSERT_TRUE(forward_pair_available()) << "the test machine's CPU has no AVX";
  std::mt19937 rng(20261127);
  Coverage cov;
  for (int round = 0; round < 50; ++round) {
    const int M = round < 8 ? round + 1 : std::uniform_int_distribution<int>(1, 420)(rng);
    const double sharpness = round % 3 == 0 ? 0.95 : round % 3 == 1 ? 0.5 : 0.0;
    const HmmModel m = random_hmm(rng, M, sharpness);
    std::vector<std::vector<uint8_t>> targets = fb_targets(rng, m, 4, round % 10 == 0);
    targets.push_back({uint8_t(round % 20)});  // one residue
    compare_all(build_fb_profile(m), targets, cov);
    if (HasFatalFailure()) return;
  }
  std::cout << "pairs " << cov.pairs << ", unequal lengths " << cov.unequal << ", models >= 100 nodes "
            << cov.big_models << ", rescaled in one only " << cov.rescaled_one << "\n";
  EXPECT_GT(cov.unequal, 300);
  EXPECT_GT(cov.big_models, 200);
  EXPECT_GT(cov.rescaled_one, 50);
}

TEST(ForwardPair, DataModelsEqualTheSseParser) {
  std::mt19937 rng(11);
  Coverage cov;
  for (const HmmModel& m : data_models()) {
    compare_all(build_fb_profile(m), fb_targets(rng, m, 6, true), cov);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(cov.pairs, 150);
}

// Profiles no model gives (fb_parser_test's extreme ones): rescaling on nearly every row and
// scores out of the float range.
TEST(ForwardPair, ExtremeProfilesEqualTheSseParser) {
  std::mt19937 rng(5);
  Coverage cov;
  for (int round = 0; round < 30; ++round) {
    const int M = std::uniform_int_distribution<int>(1, 300)(rng);
    FbProfile p = build_fb_profile(random_hmm(rng, M, 0.5));
    const double lift = round % 2 ? 6.0 : -3.0;
    auto redraw = [&](__m128& v, double lo, double span) {
      alignas(16) float f[4];
      _mm_store_ps(f, v);
      for (float& x : f)
        if (x != 0.0f) x = float(std::pow(10.0, lo + span * std::uniform_real_distribution<double>(0, 1)(rng)));
      v = _mm_load_ps(f);
    };
    for (__m128& v : p.rfv) redraw(v, -3.0, 6.0);
    for (size_t j = 0; j < p.tfv.size(); ++j)
      redraw(p.tfv[j], j < size_t(7 * p.Q) && j % 7 == kFbBM ? lift : -3.0, round % 2 ? 6.0 : 3.0);
    compare_all(p, fb_targets(rng, random_hmm(rng, M, 0.9), 3, round % 8 == 0), cov);
    if (HasFatalFailure()) return;
  }
  std::cout << "pairs " << cov.pairs << ", out of range " << cov.out_of_range << "\n";
  EXPECT_GT(cov.pairs, 100);
  EXPECT_GT(cov.out_of_range, 0);
}
