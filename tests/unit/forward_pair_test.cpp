// Two targets' Backward side by side (backward_pair, and the survivors' stage from Backward on
// after the group Forward filter, PostFilterPipeline::score_forwarded, on one or two targets)
// against one at a time: every score, special row, matrix cell and hit field bit for bit, under
// hmmsearch's float mode.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "fb_test_support.hpp"
#include "src/core/error.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/forward_group.hpp"
#include "src/hmm/hmmer_float_mode.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"
#include "src/hmm/null_model.hpp"

using namespace hpc;
using namespace hpc::hmm;
using namespace hpc::test;

namespace {

std::string matrix_difference(const FbMatrix& a, const FbMatrix& b, int L) {
  if (float_bits(a.totscale) != float_bits(b.totscale)) return "totscale";
  if (a.has_own_scales != b.has_own_scales) return "own scales";
  const std::string rows = rows_difference(a.xmx.data(), b.xmx.data(), size_t(L) + 1);
  if (!rows.empty()) return rows;
  const size_t cells = (a.full ? size_t(L) + 1 : 1) * 3 * a.Q;
  return std::memcmp(a.dp.data(), b.dp.data(), cells * sizeof(__m128)) == 0 ? "" : "vector cells";
}

// Each target alone, then the two as a pair (each with its own special transitions) on their
// own Forward matrices.
void compare_pair(const FbProfile& base, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, bool full,
                  int& pairs) {
  const HmmerFloatMode mode;
  const std::vector<uint8_t>* t[2] = {&a, &b};
  FbProfile p = base;
  FbMatrix fwd[2], bck[2];
  float fsc[2], bsc[2];
  FbTargetPair pair{{a.data(), b.data()}, {int(a.size()), int(b.size())}, {}};
  for (int k = 0; k < 2; ++k) {
    const int L = int(t[k]->size());
    p.configure(L, true);
    std::memcpy(pair.xf[k].x, p.xf, sizeof p.xf);
    fsc[k] = forward(t[k]->data(), L, p, fwd[k], full);
    bsc[k] = backward(t[k]->data(), L, p, fwd[k], bck[k], full);
  }
  p.configure(1, false);  // the pair reads its own specials, never p's
  FbMatrix pb[2];
  float pbsc[2];
  backward_pair(pair, p, fwd[0], fwd[1], pb[0], pb[1], full, pbsc);
  for (int k = 0; k < 2; ++k) {
    const int L = int(t[k]->size());
    const std::string where = "M " + std::to_string(p.M) + " L " + std::to_string(L) + " target " + std::to_string(k) +
                              " (Forward " + std::to_string(fsc[k]) + ")";
    ASSERT_EQ(float_bits(bsc[k]), float_bits(pbsc[k])) << where;
    ASSERT_EQ(matrix_difference(bck[k], pb[k], L), "") << where << " (Backward)";
  }
  pairs++;
}

void expect_same_hit(const PostFilterResult& a, const PostFilterResult& b, const std::string& where) {
  ASSERT_EQ(a.past_fwd, b.past_fwd) << where;
  ASSERT_EQ(bool(a.hit), bool(b.hit)) << where;
  if (!a.hit) return;
  const TargetHit &x = *a.hit, &y = *b.hit;
  EXPECT_EQ(float_bits(x.score), float_bits(y.score)) << where;
  EXPECT_EQ(float_bits(x.pre_score), float_bits(y.pre_score)) << where;
  EXPECT_EQ(float_bits(x.sum_score), float_bits(y.sum_score)) << where;
  EXPECT_EQ(float_bits(x.nexpected), float_bits(y.nexpected)) << where;
  EXPECT_EQ(x.lnP, y.lnP) << where;
  EXPECT_EQ(x.nregions, y.nregions) << where;
  EXPECT_EQ(x.nclustered, y.nclustered) << where;
  EXPECT_EQ(x.noverlaps, y.noverlaps) << where;
  EXPECT_EQ(x.nenvelopes, y.nenvelopes) << where;
  EXPECT_EQ(x.name, y.name) << where;
  ASSERT_EQ(x.domains.size(), y.domains.size()) << where;
  for (size_t d = 0; d < x.domains.size(); ++d) {
    const DomainHit &u = x.domains[d], &v = y.domains[d];
    EXPECT_EQ(float_bits(u.bitscore), float_bits(v.bitscore)) << where;
    EXPECT_EQ(float_bits(u.env.envsc), float_bits(v.env.envsc)) << where;
    EXPECT_EQ(float_bits(u.env.oasc), float_bits(v.env.oasc)) << where;
    EXPECT_EQ(float_bits(u.env.domcorrection), float_bits(v.env.domcorrection)) << where;
    EXPECT_EQ(u.env.ienv, v.env.ienv) << where;
    EXPECT_EQ(u.env.jenv, v.env.jenv) << where;
    EXPECT_EQ(u.env.iali, v.env.iali) << where;
    EXPECT_EQ(u.env.jali, v.env.jali) << where;
    EXPECT_EQ(u.ali.aseq, v.ali.aseq) << where;
    EXPECT_EQ(u.ali.pp, v.ali.pp) << where;
  }
}

}  // namespace

TEST(FbPair, RandomModelsEqualOneTargetAtATime) {
  std::mt19937 rng(20261127);
  int pairs = 0;
  for (int round = 0; round < 30; ++round) {
    const int M = round < 6 ? round + 1 : std::uniform_int_distribution<int>(1, 420)(rng);
    const HmmModel m = random_hmm(rng, M, round % 3 == 0 ? 0.95 : round % 3 == 1 ? 0.5 : 0.0);
    const FbProfile p = build_fb_profile(m);
    const auto targets = fb_targets(rng, m, 4, round % 10 == 0);
    for (size_t k = 0; k + 1 < targets.size(); ++k) {
      if (targets[k].empty() || targets[k + 1].empty()) continue;
      compare_pair(p, targets[k], targets[k + 1], k % 2 == 0, pairs);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(pairs, 100);
}

// The survivors' stage (Backward, domain definition, null2, scores) from Backward on
// (score_forwarded), one or two targets on the group Forward filter's special rows and scores,
// against score() on each (Forward filter included) on the data models' targets: the survivors'
// path, where targets that pass the filter do not run Forward again.
TEST(FbPair, ScoreForwardedEqualsScore) {
  ASSERT_GE(forward_group_width(), 2) << "the test machine's CPU has no AVX";
  std::mt19937 rng(12);
  int hits = 0, calls[3] = {0, 0, 0};
  for (const HmmModel& m : data_models()) {
    const PipelineSettings settings;
    const FbProfile profile = build_fb_profile(m);
    PostFilterPipeline one(m, settings, profile), after(m, settings, profile);
    const auto targets = fb_targets(rng, m, 4, false);
    for (size_t k = 0; k + 1 < targets.size(); ++k) {
      for (int n = 1; n <= 2; ++n) {
        const std::string names[2] = {"t" + std::to_string(k), "t" + std::to_string(k + 1)};
        const std::string desc;
        PostFilterPipeline::Target t[2];
        GroupTarget in[2];
        bool empty = false;
        for (int z = 0; z < n; ++z) {
          const auto& s = targets[k + size_t(z)];
          empty |= s.empty();
          t[z] = {&names[z], &desc, s.data(), int(s.size()), null_one_score(int(s.size()))};
          in[z] = {s.data(), int(s.size()), fb_special_odds(int(s.size()), true)};
        }
        if (empty) continue;
        std::vector<float> row, rows[2];
        float nats[2];
        {
          const HmmerFloatMode mode;
          forward_group(profile, in, n, row, nats, false, rows);
        }
        PostFilterResult alone[2], forwarded[2];
        for (int z = 0; z < n; ++z) alone[z] = one.score(names[z], desc, t[z].seq, t[z].L, t[z].filter_nats);
        if (!alone[0].past_fwd || !alone[n - 1].past_fwd) continue;  // the caller passes only those that pass F3
        const std::vector<float>* fwd_x[2] = {&rows[0], &rows[1]};
        after.score_forwarded(t, n, fwd_x, nats, forwarded);
        for (int z = 0; z < n; ++z) {
          expect_same_hit(alone[z], forwarded[z], m.name + " target " + std::to_string(k + size_t(z)));
          hits += alone[z].hit.has_value();
        }
        calls[n]++;
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(calls[1], 20);
  EXPECT_GT(calls[2], 20);
  EXPECT_GT(hits, 40);
}

// A target without residues (a makedb file may hold one): the filters pass none, so the
// survivors' stage never gets one, and score_forwarded refuses one rather than read rows it
// has not.
TEST(FbPair, ScoreForwardedRefusesATargetWithoutResidues) {
  const HmmModel m = data_models().at(0);
  const PipelineSettings settings;
  FilterWorkspace ws;
  const PairResult f = run_filters(ModelFilters(m), nullptr, 0, settings.filter_settings(), ws);
  EXPECT_FALSE(f.msv_pass || f.passed);
  PostFilterPipeline after(m, settings);
  const std::string name = "empty", desc;
  const PostFilterPipeline::Target t[1] = {{&name, &desc, nullptr, 0, 0.0f}};
  const std::vector<float> rows(64, 0.0f);
  const std::vector<float>* fwd_x[1] = {&rows};
  const float nats = 0.0f;
  PostFilterResult out[1];
  EXPECT_THROW(after.score_forwarded(t, 1, fwd_x, &nats, out), Error);
}
