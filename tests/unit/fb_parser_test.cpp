// The lane-emulating Forward/Backward parsers (src/hmm/fb_parser_lanes.hpp, the code the GPU
// runs) against the SSE implementation (src/hmm/forward_backward.hpp, HMMER 3.3.2's striped
// code): scores in nats, every special row (E, N, J, B, C, scale) of both passes and
// Backward's own-scales flag, bit for bit, under hmmsearch's float mode.
#include <gtest/gtest.h>

#include <random>

#include "fb_test_support.hpp"
#include "src/core/error.hpp"
#include "src/hmm/fb_parser.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

struct Coverage {
  int pairs = 0, rescaled = 0, own_scales = 0, long_targets = 0, big_models = 0, out_of_range = 0;
  long rescales = 0;
};

void compare(const FbProfile& base, const uint8_t* seq, int L, Coverage& cov) {
  const HmmerFloatMode mode;
  FbProfile p = base;
  p.configure(L, true);
  FbMatrix fwd, bck;
  const FbLaneProfile lp = lane_profile(base);
  std::vector<Lanes4> row;
  const std::string where = "M " + std::to_string(p.M) + " L " + std::to_string(L);
  float fsc = 0, bsc = 0;
  try {
    fsc = forward(seq, L, p, fwd, false);
    bsc = backward(seq, L, p, fwd, bck, false);
  } catch (const Error& e) {  // out of range: the lane parsers must refuse it in the same words
    cov.out_of_range++;
    EXPECT_THROW(
        {
          try {
            parse_target(seq, L, lp, true, row);
          } catch (const Error& g) {
            EXPECT_EQ(std::string(g.what()), std::string(e.what())) << where;
            throw;
          }
        },
        Error)
        << where;
    return;
  }
  const FbParse g = parse_target(seq, L, lp, true, row);
  ASSERT_EQ(float_bits(fsc), float_bits(g.fwd_nats)) << where << ": forward " << fsc << " vs " << g.fwd_nats;
  ASSERT_EQ(float_bits(bsc), float_bits(g.bck_nats)) << where << ": backward " << bsc << " vs " << g.bck_nats;
  ASSERT_EQ(rows_difference(fwd.xmx.data(), g.fwd_x.data(), size_t(L) + 1), "") << where << " (Forward)";
  ASSERT_EQ(rows_difference(bck.xmx.data(), g.bck_x.data(), size_t(L) + 1), "") << where << " (Backward)";
  ASSERT_EQ(bck.has_own_scales, g.bck_own_scales) << where;
  ASSERT_TRUE(g.has_backward);

  std::vector<float> scales;
  ASSERT_EQ(float_bits(fsc), float_bits(forward_parser_nats(seq, L, lp, row, scales))) << where;
  for (int z = 0; z < 4; ++z)
    for (int m = 0; m < 2; ++m) ASSERT_EQ(float_bits(p.xf[z][m]), float_bits(fb_special_odds(L, true).x[z][m]));

  cov.pairs++;
  int n = 0;
  for (int i = 1; i <= L; ++i) n += fwd.x(i, kCellScale) > 1.0f;
  cov.rescaled += n > 0, cov.rescales += n;
  cov.own_scales += bck.has_own_scales;
  cov.long_targets += L >= 3000;
  cov.big_models += p.M >= 100;
}

}  // namespace

TEST(FbParserLanes, RandomModelsEqualTheSseParsers) {
  std::mt19937 rng(20261126);
  Coverage cov;
  for (int round = 0; round < 60; ++round) {
    const int M = round < 8 ? round + 1 : std::uniform_int_distribution<int>(1, 420)(rng);
    const double sharpness = round % 3 == 0 ? 0.95 : round % 3 == 1 ? 0.5 : 0.0;
    const HmmModel m = random_hmm(rng, M, sharpness);
    const FbProfile p = build_fb_profile(m);
    for (const auto& t : fb_targets(rng, m, 4, round % 10 == 0)) {
      compare(p, t.data(), int(t.size()), cov);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "pairs " << cov.pairs << ", with rescaling " << cov.rescaled << " (" << cov.rescales
            << " rescaled rows), Backward's own scales " << cov.own_scales << ", targets >= 3000 "
            << cov.long_targets << ", models >= 100 nodes " << cov.big_models << "\n";
  EXPECT_GT(cov.rescaled, cov.pairs / 10);
  EXPECT_GT(cov.rescales, 5000);
  EXPECT_GT(cov.long_targets, 3);
  EXPECT_GT(cov.big_models, 20);
}

TEST(FbParserLanes, DataModelsEqualTheSseParsers) {
  std::mt19937 rng(7);
  Coverage cov;
  const std::vector<HmmModel> models = data_models();
  ASSERT_GE(models.size(), 11u);
  for (const HmmModel& m : models) {
    const FbProfile p = build_fb_profile(m);
    for (const auto& t : fb_targets(rng, m, 6, true)) {
      compare(p, t.data(), int(t.size()), cov);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "pairs " << cov.pairs << ", with rescaling " << cov.rescaled << " (" << cov.rescales
            << " rescaled rows), Backward's own scales " << cov.own_scales << ", targets >= 3000 "
            << cov.long_targets << "\n";
  EXPECT_GT(cov.rescaled, int(models.size()));
  EXPECT_GT(cov.long_targets, int(models.size()) / 2);
}

// Profiles no model gives (emission odds 1e-3 to 1e3, transitions 1e-3 to 1, B->M entries
// up to 1e12): Forward rescales nearly every row, and some scores leave the float range (both
// implementations then refuse the target in the same words).
TEST(FbParserLanes, ExtremeProfilesEqualTheSseParsers) {
  std::mt19937 rng(3);
  Coverage cov;
  for (int round = 0; round < 40; ++round) {
    const int M = std::uniform_int_distribution<int>(1, 300)(rng);
    const FbProfile p = extreme_fb_profile(rng, M, round);
    for (const auto& s : fb_targets(rng, random_hmm(rng, M, 0.9), 3, round % 8 == 0)) {
      compare(p, s.data(), int(s.size()), cov);
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "pairs " << cov.pairs << ", with rescaling " << cov.rescaled << " (" << cov.rescales
            << " rescaled rows), Backward's own scales " << cov.own_scales << ", out of range "
            << cov.out_of_range << "\n";
  EXPECT_GT(cov.pairs, 100);
  EXPECT_GT(cov.rescales, 20000);
}
