// The Forward parser of several targets at once (src/hmm/forward_group.hpp, every kernel this
// CPU runs: 2 or 4 targets with AVX (one register or two side by side), 4 or 8 with AVX-512)
// against HMMER's SSE Forward parser
// (src/hmm/forward_backward.hpp) run on each target alone: scores bit for bit, under hmmsearch's
// float mode, for groups of 1 to the width, targets of unequal lengths (a shorter one's lanes
// run on past its end), models under and over 100 nodes (the D->D passes stop per target
// there), rescaled rows in some targets only, and scores out of the float range (the same
// error, the first such target's). Each target's special rows (what Backward and domain
// definition read after the filter) equal forward()'s FbMatrix::xmx bit for bit too.
#include <gtest/gtest.h>

#include <random>

#include "fb_test_support.hpp"
#include "src/core/error.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/forward_group.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

struct Coverage {
  bool without_avx512 = false;  // the AVX kernels (forward_group's test switch)
  int groups = 0, unequal = 0, big_models = 0, rescaled_some = 0, out_of_range = 0;
};

// forward() of one target alone: its score, or its error's words.
struct Single {
  float nats = 0;
  std::string error;
  int rescales = 0;
  std::vector<float> rows;  // FbMatrix::xmx of rows 0..L
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
  r.rows.assign(mx.xmx.begin(), mx.xmx.begin() + (ptrdiff_t(L) + 1) * kXCells);
  return r;
}

void compare(const FbProfile& p, const std::vector<const std::vector<uint8_t>*>& group, Coverage& cov) {
  std::vector<Single> each;
  std::string where = "M " + std::to_string(p.M) + " L";
  std::string error;
  GroupTarget in[kMaxGroup];
  for (size_t t = 0; t < group.size(); ++t) {
    const std::vector<uint8_t>& s = *group[t];
    each.push_back(alone(p, s));
    if (error.empty()) error = each.back().error;
    where += " " + std::to_string(s.size());
    in[t] = {s.data(), int(s.size()), fb_special_odds(int(s.size()), true)};
  }
  std::vector<float> row;
  float nats[kMaxGroup];
  const HmmerFloatMode mode;
  if (!error.empty()) {
    cov.out_of_range++;
    try {
      forward_group(p, in, int(group.size()), row, nats, cov.without_avx512);
      ADD_FAILURE() << where << ": no error, where forward() says " << error;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), error) << where;
    }
    return;
  }
  std::vector<float> rows[kMaxGroup];
  forward_group(p, in, int(group.size()), row, nats, cov.without_avx512, rows);
  int rescaled = 0;
  for (size_t t = 0; t < group.size(); ++t) {
    ASSERT_EQ(float_bits(nats[t]), float_bits(each[t].nats))
        << where << ": target " << t << " " << nats[t] << " vs " << each[t].nats;
    ASSERT_EQ(rows[t].size(), each[t].rows.size()) << where << ": target " << t;
    const std::string diff = rows_difference(rows[t].data(), each[t].rows.data(), rows[t].size() / kXCells);
    ASSERT_TRUE(diff.empty()) << where << ": target " << t << "'s special rows differ: " << diff;
    rescaled += each[t].rescales > 0;
    cov.unequal += group[t]->size() != group[0]->size();
  }
  cov.groups++;
  cov.big_models += p.M >= 100;
  cov.rescaled_some += rescaled > 0 && rescaled < int(group.size());
}

// Groups of every size up to the width from consecutive targets (wrapping around), and a
// target with itself.
void compare_all(const FbProfile& p, const std::vector<std::vector<uint8_t>>& targets, Coverage& cov) {
  for (size_t i = 0; i < targets.size(); ++i) {
    for (int n = 1; n <= forward_group_width(cov.without_avx512); ++n) {
      std::vector<const std::vector<uint8_t>*> group;
      for (int t = 0; t < n; ++t) group.push_back(&targets[(i + size_t(t)) % targets.size()]);
      compare(p, group, cov);
      if (::testing::Test::HasFatalFailure()) return;
    }
    compare(p, {&targets[i], &targets[i]}, cov);
  }
}

// compare_all with every kernel: this CPU's widest ones, then the AVX ones (when it has AVX-512).
void compare_all_kernels(const FbProfile& p, const std::vector<std::vector<uint8_t>>& targets, Coverage& cov) {
  for (const bool without : {false, true}) {
    if (without && forward_group_width(true) == forward_group_width()) continue;
    cov.without_avx512 = without;
    compare_all(p, targets, cov);
    if (::testing::Test::HasFatalFailure()) return;
  }
  cov.without_avx512 = false;
}

}  // namespace

TEST(ForwardGroup, RandomModelsEqualTheSseParser) {
  ASSERT_GE(forward_group_width(), 2) << "the test machine's CPU has no AVX";
  std::mt19937 rng(20261127);
  Coverage cov;
  for (int round = 0; round < 50; ++round) {
    const int M = round < 8 ? round + 1 : std::uniform_int_distribution<int>(1, 420)(rng);
    const double sharpness = round % 3 == 0 ? 0.95 : round % 3 == 1 ? 0.5 : 0.0;
    const HmmModel m = random_hmm(rng, M, sharpness);
    std::vector<std::vector<uint8_t>> targets = fb_targets(rng, m, 4, round % 10 == 0);
    targets.push_back({uint8_t(round % 20)});  // one residue
    compare_all_kernels(build_fb_profile(m), targets, cov);
    if (HasFatalFailure()) return;
  }
  std::cout << "width " << forward_group_width() << ": groups " << cov.groups << ", unequal lengths " << cov.unequal
            << ", models >= 100 nodes " << cov.big_models << ", rescaled in some targets only " << cov.rescaled_some
            << "\n";
  EXPECT_GT(cov.unequal, 400);
  EXPECT_GT(cov.big_models, 200);
  EXPECT_GT(cov.rescaled_some, 50);
}

TEST(ForwardGroup, DataModelsEqualTheSseParser) {
  std::mt19937 rng(11);
  Coverage cov;
  for (const HmmModel& m : data_models()) {
    compare_all_kernels(build_fb_profile(m), fb_targets(rng, m, 6, true), cov);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(cov.groups, 150);
}

// Profiles no model gives (fb_parser_test's extreme ones): rescaling on nearly every row and
// scores out of the float range.
TEST(ForwardGroup, ExtremeProfilesEqualTheSseParser) {
  std::mt19937 rng(5);
  Coverage cov;
  for (int round = 0; round < 30; ++round) {
    const int M = std::uniform_int_distribution<int>(1, 300)(rng);
    const FbProfile p = extreme_fb_profile(rng, M, round);
    compare_all_kernels(p, fb_targets(rng, random_hmm(rng, M, 0.9), 3, round % 8 == 0), cov);
    if (HasFatalFailure()) return;
  }
  std::cout << "groups " << cov.groups << ", out of range " << cov.out_of_range << "\n";
  EXPECT_GT(cov.groups, 100);
  EXPECT_GT(cov.out_of_range, 0);
}
