// Host side of the GPU Viterbi filter (kernels/cuda/vit_layout.hpp, vit_lane.hpp), checked on
// the CPU: the packed profile layout, the batch plan (targets by position in a database), and
// the warp emulator (the kernel's own lane code, lane by lane) against
// hmm::viterbi_filter_score, bit for bit, on every test model, spliced models at every
// segment-size border up to 1,280 nodes, and edge-case targets; the lazy-F and overflow paths
// must have been exercised.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "gpu/vit_test_support.hpp"
#include "io/database.hpp"
#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/vit_layout.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::hmm;
using hpc::test::data_path;

namespace {

// Emulates the batch over db and compares every score with the CPU twin; returns the mismatches.
long check_batch(const Database& db, const std::vector<VitGroup>& groups, vit::EmulatorStats* st,
                 int targets_per_warp = 1) {
  const vit::Batch b = vit::plan_batch(groups, test::vit::lengths_by_position(db), targets_per_warp);
  const std::vector<int32_t> raw =
      vit::emulate_batch(b, [&](uint32_t p) { return test::vit::target_at(db, p); }, st);
  const auto got = vit::finish(b, groups, raw.data());
  FilterWorkspace ws;
  long bad = 0;
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i = 0; i < groups[g].positions.size(); ++i) {
      const SeqView v = test::vit::target_at(db, groups[g].positions[i]);
      const float cpu = viterbi_filter_score(*groups[g].profile, v.data, int(v.length), ws);
      if (test::float_bits(cpu) != test::float_bits(got[g][i]) && ++bad <= 5)
        ADD_FAILURE() << "M=" << groups[g].profile->M << " target " << i << " (L=" << v.length << "): cpu " << cpu
                      << " emulated " << got[g][i];
    }
  return bad;
}

}  // namespace

TEST(VitLayout, SegmentSizes) {
  EXPECT_EQ(vit::segment_for(1), 2);
  EXPECT_EQ(vit::segment_for(64), 2);
  EXPECT_EQ(vit::segment_for(65), 4);
  EXPECT_EQ(vit::segment_for(256), 8);
  EXPECT_EQ(vit::segment_for(257), 16);
  EXPECT_EQ(vit::segment_for(1024), 32);
  EXPECT_EQ(vit::segment_for(1025), 40);
  EXPECT_EQ(vit::segment_for(1280), 40);
  EXPECT_EQ(vit::segment_for(1281), 0);
  EXPECT_EQ(vit::kMaxModelLength, 1280);
  EXPECT_EQ(vit::profile_words(16) * 4, 16u * 2048u);
}

TEST(VitLayout, PackedProfileHoldsEveryNodeOnce) {
  const VitProfile p = build_vit_profile(read_hmm_file(data_path("hmm/LuxC.hmm.gz")).at(0));
  ASSERT_EQ(p.M, 400);
  const int S = vit::segment_for(p.M);
  ASSERT_EQ(S, 16);
  const std::vector<uint32_t> w = vit::pack_profile(p, S);
  ASSERT_EQ(w.size(), vit::profile_words(S));
  auto lo = [](uint32_t x) { return int(int16_t(uint16_t(x & 0xffff))); };
  auto hi = [](uint32_t x) { return int(int16_t(uint16_t(x >> 16))); };
  for (int k = 1; k <= 32 * S; ++k) {
    const int lane = (k - 1) / S, j = (k - 1) % S;
    const uint32_t* t = w.data() + (size_t(j) * 32 + lane) * 4;
    if (k > p.M) {
      for (int q = 0; q < 4; ++q) EXPECT_EQ(t[q], 0x80008000u) << k;
      continue;
    }
    EXPECT_EQ(lo(t[0]), p.bm[k]);
    EXPECT_EQ(hi(t[0]), p.mm[k]);
    EXPECT_EQ(lo(t[1]), p.im[k]);
    EXPECT_EQ(hi(t[1]), p.dm[k]);
    EXPECT_EQ(lo(t[2]), p.md[k]);
    EXPECT_EQ(hi(t[2]), p.mi[k]);
    EXPECT_EQ(lo(t[3]), p.ii[k]);
    EXPECT_EQ(hi(t[3]), k == 1 ? -32768 : p.dd[k - 1]);
    for (int code = 0; code < 24; ++code) {
      const uint32_t e = w[vit::trans_words(S) + (size_t(code) * (S / 2) + j / 2) * 32 + lane];
      EXPECT_EQ((j & 1) ? hi(e) : lo(e), p.row(uint8_t(code))[k]) << "code " << code << " node " << k;
    }
  }
}

TEST(VitLayout, PlanCoversEveryTargetOnceInBlocksOfOneModel) {
  const auto models = test::vit::test_models();
  std::vector<VitProfile> profiles;
  for (const auto& m : models) profiles.push_back(build_vit_profile(m));
  const Database db = load_database(data_path("balifam2000.fa"));
  const std::vector<uint32_t> lengths = test::vit::lengths_by_position(db);
  std::vector<VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    VitGroup grp;
    grp.profile = &profiles[g];
    for (size_t t = g; t < db.seqs.ids.size(); t += 3) grp.positions.push_back(uint32_t((t * 7919) % lengths.size()));
    if (g == 2) grp.positions.clear();  // an empty group
    if (g == 3) grp.positions.push_back(grp.positions.front());  // a target twice
    groups.push_back(grp);
  }
  for (int tpw : {1, 3}) {
    const vit::Batch b = vit::plan_batch(groups, lengths, tpw);
    size_t total = 0;
    for (const auto& g : groups) total += g.positions.size();
    ASSERT_EQ(b.targets(), total);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (size_t t = 0; t < total; ++t) {
      EXPECT_TRUE(seen.insert({b.origin_group[t], b.origin_index[t]}).second);
      const uint32_t p = groups[b.origin_group[t]].positions[b.origin_index[t]];
      EXPECT_EQ(b.refs[t].position, p);
      EXPECT_EQ(b.refs[t].move, groups[b.origin_group[t]].profile->move(int(lengths[p])));
    }
    uint32_t next_work = 0, next_target = 0;
    int last_segment = 1 << 30;
    for (const auto& l : b.launches) {
      EXPECT_LT(l.segment, last_segment);  // largest segment first, one launch each
      last_segment = l.segment;
      EXPECT_EQ(l.work_begin, next_work);
      for (uint32_t w = l.work_begin; w < l.work_end; ++w) {
        const vit::Work& wk = b.work[w];
        EXPECT_EQ(wk.begin, next_target);
        EXPECT_GT(wk.end, wk.begin);
        EXPECT_LE(wk.end - wk.begin, uint32_t(vit::warps_per_block(l.segment) * tpw));
        EXPECT_EQ(b.groups[wk.group].segment, l.segment);
        for (uint32_t t = wk.begin; t < wk.end; ++t) {
          EXPECT_EQ(b.origin_group[t], wk.group);
          if (t > wk.begin) EXPECT_LE(lengths[b.refs[t].position], lengths[b.refs[t - 1].position]);  // longest first
        }
        next_target = wk.end;
      }
      next_work = l.work_end;
    }
    EXPECT_EQ(next_work, b.work.size());
    EXPECT_EQ(next_target, total);
    for (const auto& g : b.groups) EXPECT_EQ(g.offset % 4, 0u);
  }
}

TEST(VitLayout, RejectsWhatTheKernelCannotHold) {
  const auto models = test::vit::test_models();
  const VitProfile long_model = build_vit_profile(test::vit::splice_models(models, 1281));
  const VitProfile p = build_vit_profile(models.at(0));
  const std::vector<uint32_t> lengths = {3, 5, 8};
  EXPECT_NE(test::error_of([&] { vit::plan_batch({VitGroup{&long_model, {}}}, lengths); }), "(no error)");
  EXPECT_NE(test::error_of([&] { vit::plan_batch({VitGroup{&p, {0, 3}}}, lengths); }), "(no error)");  // past the database
  EXPECT_NE(test::error_of([&] { vit::plan_batch({VitGroup{nullptr, {}}}, lengths); }), "(no error)");
  EXPECT_EQ(vit::plan_batch({VitGroup{&p, {2, 0, 2}}}, lengths).targets(), 3u);
}

// Every test model against a slice of balifam2000 and its edge targets, all in one batch.
TEST(VitLayout, EmulatedWarpEqualsCpuOnTestModels) {
  const auto models = test::vit::test_models();
  const Database file = load_database(data_path("balifam2000.fa"));
  std::vector<VitProfile> profiles;
  for (const auto& m : models) profiles.push_back(build_vit_profile(m));
  std::mt19937 rng(7);
  test::vit::TestDb t{file.seqs, {}, {}};
  std::vector<std::vector<uint32_t>> edges(profiles.size());
  for (size_t g = 0; g < profiles.size(); ++g)
    for (auto& e : test::vit::edge_targets(profiles[g], rng)) edges[g].push_back(t.add(e.first, e.second));
  const uint32_t empty = t.add("empty", {});  // -infinity, as the CPU
  t.build();
  std::vector<VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    VitGroup grp{&profiles[g], {}};
    for (uint32_t i : edges[g]) grp.positions.push_back(t.position[i]);
    for (size_t i = g * 7; i < file.seqs.size(); i += 9) grp.positions.push_back(t.position[i]);
    grp.positions.push_back(t.position[empty]);
    groups.push_back(std::move(grp));
  }
  vit::EmulatorStats st;
  EXPECT_EQ(check_batch(t.db, groups, &st, 2), 0);
  std::printf("  rows %llu, lazy-F rows %llu (passes %llu, at most %d in a row), overflows %llu\n",
              (unsigned long long)st.rows, (unsigned long long)st.lazy_rows, (unsigned long long)st.lazy_passes,
              st.max_passes, (unsigned long long)st.overflows);
  EXPECT_GT(st.lazy_rows, 0u);
  EXPECT_GT(st.max_passes, 2);  // D->D paths carried across lanes
  EXPECT_GT(st.overflows, 0u);
}

// Models spliced to the borders of every segment size, up to the maximum.
TEST(VitLayout, EmulatedWarpEqualsCpuAtSegmentBorders) {
  const Database file = load_database(data_path("balifam2000.fa"));
  const std::vector<HmmModel> parts = test::vit::splice_parts();
  std::vector<VitProfile> profiles;
  for (int M : {2, 63, 64, 65, 128, 129, 255, 256, 257, 511, 512, 513, 700, 1023, 1024, 1025, 1280})
    profiles.push_back(build_vit_profile(test::vit::splice_models(parts, M)));
  std::mt19937 rng(11);
  test::vit::TestDb t{file.seqs, {}, {}};
  std::vector<std::vector<uint32_t>> edges(profiles.size());
  for (size_t g = 0; g < profiles.size(); ++g)
    for (auto& e : test::vit::edge_targets(profiles[g], rng))
      if (e.second.size() <= 3000) edges[g].push_back(t.add(e.first, e.second));  // keep the test short
  t.build();
  std::vector<VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    VitGroup grp{&profiles[g], {}};
    for (uint32_t i : edges[g]) grp.positions.push_back(t.position[i]);
    for (size_t i = g; i < file.seqs.size(); i += 97) grp.positions.push_back(t.position[i]);
    groups.push_back(std::move(grp));
  }
  vit::EmulatorStats st;
  EXPECT_EQ(check_batch(t.db, groups, &st), 0);
  EXPECT_GT(st.lazy_rows, 0u);
  EXPECT_GT(st.overflows, 0u);
}
