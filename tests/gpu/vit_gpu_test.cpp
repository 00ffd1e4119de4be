// GPU twin of HMMER's 16-bit Viterbi filter (kernels/cuda/vit_cuda.hpp): bit-identical floats
// to hmm::viterbi_filter_score on every (model, target) pair: every test model against
// balifam2000 and db2M targets, edge-case targets (length 1, empty, 10,000 residues,
// homopolymers, consensus repeats that overflow to +infinity, deletions that drive the lazy-F
// D->D pass across lanes), models spliced to every segment-size border up to 1,280 nodes,
// several models per call, and the single-model call.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <random>

#include "gpu/vit_test_support.hpp"
#include "io/database.hpp"
#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/vit_cuda.hpp"
#include "kernels/cuda/vit_layout.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

struct OwnedTargets {
  std::vector<std::vector<uint8_t>> seqs;
  std::vector<std::string> ids;
  std::vector<SeqView> views() const {
    std::vector<SeqView> v;
    for (const auto& s : seqs) v.push_back({s.data(), uint32_t(s.size())});
    return v;
  }
  // Adds the edge-case targets of vit_test_support.hpp for profile p.
  void add_edge_targets(const hmm::VitProfile& p, std::mt19937& rng) {
    for (auto& e : vit::edge_targets(p, rng)) {
      ids.push_back(e.first);
      seqs.push_back(std::move(e.second));
    }
  }
};

// GPU scores of `groups` against the CPU twin, bit for bit (+inf/-inf included). Counts what
// the CPU saw: overflows (+inf) and floors (-inf).
struct Tally {
  long pairs = 0, mismatches = 0, pos_inf = 0, neg_inf = 0;
};

Tally compare(const std::vector<hmm::VitGroup>& groups, const std::vector<std::vector<float>>& gpu,
              const std::vector<std::vector<std::string>>* ids = nullptr) {
  Tally t;
  hmm::FilterWorkspace ws;
  EXPECT_EQ(gpu.size(), groups.size());
  for (size_t g = 0; g < groups.size() && g < gpu.size(); ++g) {
    EXPECT_EQ(gpu[g].size(), groups[g].targets.size());
    for (size_t i = 0; i < groups[g].targets.size() && i < gpu[g].size(); ++i) {
      const SeqView v = groups[g].targets[i];
      const float cpu = hmm::viterbi_filter_score(*groups[g].profile, v.data, int(v.length), ws);
      ++t.pairs;
      t.pos_inf += std::isinf(cpu) && cpu > 0;
      t.neg_inf += std::isinf(cpu) && cpu < 0;
      if (test::float_bits(cpu) != test::float_bits(gpu[g][i]) && ++t.mismatches <= 8)
        ADD_FAILURE() << "model M=" << groups[g].profile->M << " target " << i
                      << (ids ? " " + (*ids)[g][i] : std::string()) << " (L=" << v.length << "): cpu " << cpu
                      << " gpu " << gpu[g][i];
    }
  }
  return t;
}

std::vector<SeqView> first_targets(const Database& db, size_t n) {
  std::vector<SeqView> v;
  for (size_t t = 0; t < db.seqs.ids.size() && v.size() < n; ++t) v.push_back(db.seqs.view(t));
  return v;
}

}  // namespace

// Each test model alone (the single-model call) against all 2,000 balifam targets and the
// first 2,000 of db2M.
TEST(VitGpu, ScoresEqualCpuOnDatabases) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  hmm::VitCuda gpu(0);
  for (const char* file : {"balifam2000.fa", "db2M.fa"}) {
    const Database db = load_database(data_path(file));
    const std::vector<SeqView> targets = first_targets(db, 2000);
    for (const HmmModel& m : vit::test_models()) {
      const hmm::VitProfile p = hmm::build_vit_profile(m);
      const std::vector<float> got = gpu.scores(p, targets);
      const Tally t = compare({hmm::VitGroup{&p, targets}}, {got});
      EXPECT_EQ(t.mismatches, 0) << m.name << " on " << file;
      std::printf("  %-16s M=%-4d %s: %ld pairs identical (+inf %ld, -inf %ld)\n", m.name.c_str(), m.length, file,
                  t.pairs - t.mismatches, t.pos_inf, t.neg_inf);
    }
  }
  EXPECT_GT(gpu.kernel_seconds(), 0.0);
}

// Edge-case targets for every test model, all models in one call. The host emulator of the
// kernel (same lane code) confirms that the lazy-F pass ran across lanes and that some
// targets overflowed.
TEST(VitGpu, EdgeTargetsEqualCpuInOneBatch) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto models = vit::test_models();
  std::vector<hmm::VitProfile> profiles;
  for (const auto& m : models) profiles.push_back(hmm::build_vit_profile(m));
  std::mt19937 rng(2024);
  std::vector<OwnedTargets> owned(profiles.size());
  std::vector<hmm::VitGroup> groups;
  std::vector<std::vector<std::string>> ids;
  for (size_t g = 0; g < profiles.size(); ++g) {
    owned[g].add_edge_targets(profiles[g], rng);
    owned[g].ids.push_back("empty");
    owned[g].seqs.emplace_back();
    groups.push_back({&profiles[g], owned[g].views()});
    ids.push_back(owned[g].ids);
  }
  hmm::VitCuda gpu(0);
  const Tally t = compare(groups, gpu.scores(groups), &ids);
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GT(t.pos_inf, 0) << "some consensus repeats must overflow";
  EXPECT_GT(t.neg_inf, 0) << "the empty targets score -inf";
  hmm::vit::EmulatorStats st;
  const hmm::vit::Batch b = hmm::vit::plan_batch(groups);
  hmm::vit::emulate_batch(b, &st);
  std::printf("  %ld pairs identical; lazy-F rows %llu, at most %d passes in a row; overflows %llu\n",
              t.pairs - t.mismatches, (unsigned long long)st.lazy_rows, st.max_passes,
              (unsigned long long)st.overflows);
  EXPECT_GT(st.lazy_rows, 0u);
  EXPECT_GT(st.max_passes, 2);
}

// Models spliced to every segment-size border (2 .. 40 nodes per lane, up to 1,280 nodes),
// in one call with a repeated profile and an empty group, against balifam targets and edge
// cases; a model one node too long is refused.
TEST(VitGpu, SegmentBordersAndLongModelsEqualCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<HmmModel> parts = vit::splice_parts();
  std::vector<hmm::VitProfile> profiles;
  for (int M : {2, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 800, 1023, 1024, 1025, 1142, 1280})
    profiles.push_back(hmm::build_vit_profile(vit::splice_models(parts, M)));
  const Database db = load_database(data_path("balifam2000.fa"));
  std::mt19937 rng(99);
  std::vector<OwnedTargets> owned(profiles.size());
  std::vector<hmm::VitGroup> groups;
  std::vector<std::vector<std::string>> ids;
  for (size_t g = 0; g < profiles.size(); ++g) {
    owned[g].add_edge_targets(profiles[g], rng);
    hmm::VitGroup grp{&profiles[g], owned[g].views()};
    std::vector<std::string> gid = owned[g].ids;
    for (size_t t = g; t < db.seqs.ids.size(); t += 7) {
      grp.targets.push_back(db.seqs.view(t));
      gid.push_back(db.seqs.ids[t]);
    }
    groups.push_back(std::move(grp));
    ids.push_back(std::move(gid));
  }
  groups.push_back({&profiles.back(), groups.front().targets});  // a profile twice in one call
  ids.push_back(ids.front());
  groups.push_back({&profiles.front(), {}});  // an empty group
  ids.emplace_back();
  hmm::VitCuda gpu(0);
  const Tally t = compare(groups, gpu.scores(groups), &ids);
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GT(t.pos_inf, 0);
  std::printf("  %ld pairs identical (+inf %ld)\n", t.pairs - t.mismatches, t.pos_inf);

  EXPECT_EQ(hmm::VitCuda::max_model_length(), 1280);
  const hmm::VitProfile too_long = hmm::build_vit_profile(vit::splice_models(parts, 1281));
  EXPECT_THROW(gpu.scores(too_long, first_targets(db, 3)), Error);
}

// Many models and many targets in one call score as one call per model does.
TEST(VitGpu, BatchEqualsSingleCalls) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto models = vit::test_models();
  std::vector<hmm::VitProfile> profiles;
  for (const auto& m : models) profiles.push_back(hmm::build_vit_profile(m));
  const Database db = load_database(data_path("db2M.fa"));
  std::vector<hmm::VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    hmm::VitGroup grp{&profiles[g], {}};
    for (size_t t = g; t < db.seqs.ids.size(); t += 3) grp.targets.push_back(db.seqs.view(t));
    groups.push_back(std::move(grp));
  }
  hmm::VitCuda gpu(0);
  const auto batch = gpu.scores(groups);
  ASSERT_EQ(batch.size(), groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto single = gpu.scores(*groups[g].profile, groups[g].targets);
    ASSERT_EQ(single.size(), batch[g].size());
    long diff = 0;
    for (size_t i = 0; i < single.size(); ++i) diff += test::float_bits(single[i]) != test::float_bits(batch[g][i]);
    EXPECT_EQ(diff, 0) << models[g].name;
  }
  const Tally t = compare(groups, batch);
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_TRUE(gpu.scores(profiles[0], {}).empty());
  EXPECT_TRUE(gpu.scores(std::vector<hmm::VitGroup>{}).empty());
}

// Throughput, by hand: --gtest_also_run_disabled_tests --gtest_filter='VitGpu.DISABLED_*'.
// Each model against all of db2M, 8 copies per call (8 groups), after a warm-up call; the CPU
// twin on one thread for a tenth of the targets, for scale.
TEST(VitGpu, DISABLED_Throughput) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = load_database(data_path("db2M.fa"));
  const std::vector<SeqView> all = first_targets(db, db.seqs.ids.size());
  uint64_t residues = 0;
  for (const SeqView& v : all) residues += v.length;
  hmm::VitCuda gpu(0);
  for (const char* f : {"fn3.hmm", "Pkinase.hmm", "LuxC.hmm.gz"}) {
    const hmm::VitProfile p = hmm::build_vit_profile(read_hmm_file(data_path(std::string("hmm/") + f)).at(0));
    const std::vector<hmm::VitGroup> groups(8, hmm::VitGroup{&p, all});
    gpu.scores(groups);  // warm-up
    const double k0 = gpu.kernel_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    gpu.scores(groups);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double kernel = gpu.kernel_seconds() - k0;
    const double cells = 8.0 * double(residues) * p.M;
    hmm::FilterWorkspace ws;
    const auto c0 = std::chrono::steady_clock::now();
    double cpu_cells = 0;
    for (size_t i = 0; i < all.size(); i += 10) {
      hmm::viterbi_filter_score(p, all[i].data, int(all[i].length), ws);
      cpu_cells += double(all[i].length) * p.M;
    }
    const double cpu = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    std::printf("  %-12s M=%-4d %zu targets x 8: kernel %.4f s = %.1f GCUPS, call %.4f s = %.1f GCUPS; CPU 1 thread %.2f GCUPS\n",
                f, p.M, all.size(), kernel, cells / kernel / 1e9, wall, cells / wall / 1e9, cpu_cells / cpu / 1e9);
  }
}
