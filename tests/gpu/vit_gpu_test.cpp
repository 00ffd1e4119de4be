// GPU twin of HMMER's 16-bit Viterbi filter (kernels/cuda/vit_cuda.hpp): bit-identical floats
// to hmm::viterbi_filter_score on every (model, target) pair, the targets read by position from
// the database resident on the GPU: every test model against balifam2000 and db2M targets,
// edge-case targets (length 1, empty, 10,000 residues, homopolymers, consensus repeats that
// overflow to +infinity, deletions that drive the lazy-F D->D pass across lanes), models
// spliced to every segment-size border up to 1,280 nodes, several models per call, the
// single-model call, and positions scattered over a database in any order, repeated, with
// U/O/J targets (scored on the host) among them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

// GPU scores of `groups` (positions in db) against the CPU twin, bit for bit (+inf/-inf
// included). Counts what the CPU saw: overflows (+inf) and floors (-inf).
struct Tally {
  long pairs = 0, mismatches = 0, pos_inf = 0, neg_inf = 0;
};

Tally compare(const Database& db, const std::vector<hmm::VitGroup>& groups, const std::vector<std::vector<float>>& gpu) {
  Tally t;
  hmm::FilterWorkspace ws;
  EXPECT_EQ(gpu.size(), groups.size());
  for (size_t g = 0; g < groups.size() && g < gpu.size(); ++g) {
    EXPECT_EQ(gpu[g].size(), groups[g].positions.size());
    for (size_t i = 0; i < groups[g].positions.size() && i < gpu[g].size(); ++i) {
      const uint32_t p = groups[g].positions[i];
      const SeqView v = vit::target_at(db, p);
      const float cpu = hmm::viterbi_filter_score(*groups[g].profile, v.data, int(v.length), ws);
      ++t.pairs;
      t.pos_inf += std::isinf(cpu) && cpu > 0;
      t.neg_inf += std::isinf(cpu) && cpu < 0;
      if (test::float_bits(cpu) != test::float_bits(gpu[g][i]) && ++t.mismatches <= 8)
        ADD_FAILURE() << "model M=" << groups[g].profile->M << " target " << i << " "
                      << db.seqs.ids[db.by_length[p]] << " (L=" << v.length << "): cpu " << cpu << " gpu " << gpu[g][i];
    }
  }
  return t;
}

// The positions of file targets [0, n).
std::vector<uint32_t> first_targets(const Database& db, size_t n) {
  std::vector<uint32_t> pos = vit::position_of(db);
  pos.resize(std::min(n, pos.size()));
  return pos;
}

}  // namespace

// Each test model alone (the single-model call) against the first 2,000 targets of balifam2000
// and of db2M.
TEST(VitGpu, ScoresEqualCpuOnDatabases) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const char* file : {"balifam2000.fa", "db2M.fa"}) {
    const Database db = load_database(data_path(file));
    hmm::VitCuda gpu(0, db);
    const std::vector<uint32_t> targets = first_targets(db, 2000);
    for (const HmmModel& m : vit::test_models()) {
      const hmm::VitProfile p = hmm::build_vit_profile(m);
      const std::vector<float> got = gpu.scores(p, targets);
      const Tally t = compare(db, {hmm::VitGroup{&p, targets}}, {got});
      EXPECT_EQ(t.mismatches, 0) << m.name << " on " << file;
      std::printf("  %-16s M=%-4d %s: %ld pairs identical (+inf %ld, -inf %ld)\n", m.name.c_str(), m.length, file,
                  t.pairs - t.mismatches, t.pos_inf, t.neg_inf);
    }
    EXPECT_GT(gpu.kernel_seconds(), 0.0);
  }
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
  vit::TestDb t;
  std::vector<std::vector<uint32_t>> added(profiles.size());
  for (size_t g = 0; g < profiles.size(); ++g) {
    for (auto& e : vit::edge_targets(profiles[g], rng)) added[g].push_back(t.add(e.first, e.second));
    added[g].push_back(t.add("empty", {}));
  }
  t.build();
  std::vector<hmm::VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    groups.push_back({&profiles[g], {}});
    for (uint32_t i : added[g]) groups.back().positions.push_back(t.position[i]);
  }
  hmm::VitCuda gpu(0, t.db);
  const Tally tally = compare(t.db, groups, gpu.scores(groups));
  EXPECT_EQ(tally.mismatches, 0);
  EXPECT_GT(tally.pos_inf, 0) << "some consensus repeats must overflow";
  EXPECT_GT(tally.neg_inf, 0) << "the empty targets score -inf";
  hmm::vit::EmulatorStats st;
  const hmm::vit::Batch b = hmm::vit::plan_batch(groups, vit::lengths_by_position(t.db));
  hmm::vit::emulate_batch(b, [&](uint32_t p) { return t.at(p); }, &st);
  std::printf("  %ld pairs identical; lazy-F rows %llu, at most %d passes in a row; overflows %llu\n",
              tally.pairs - tally.mismatches, (unsigned long long)st.lazy_rows, st.max_passes,
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
  const Database file = load_database(data_path("balifam2000.fa"));
  std::mt19937 rng(99);
  vit::TestDb t{file.seqs, {}, {}};
  std::vector<std::vector<uint32_t>> added(profiles.size());
  for (size_t g = 0; g < profiles.size(); ++g)
    for (auto& e : vit::edge_targets(profiles[g], rng)) added[g].push_back(t.add(e.first, e.second));
  t.build();
  std::vector<hmm::VitGroup> groups;
  for (size_t g = 0; g < profiles.size(); ++g) {
    hmm::VitGroup grp{&profiles[g], {}};
    for (uint32_t i : added[g]) grp.positions.push_back(t.position[i]);
    for (size_t i = g; i < file.seqs.size(); i += 7) grp.positions.push_back(t.position[i]);
    groups.push_back(std::move(grp));
  }
  groups.push_back({&profiles.back(), groups.front().positions});  // a profile twice in one call
  groups.push_back({&profiles.front(), {}});                       // an empty group
  hmm::VitCuda gpu(0, t.db);
  const Tally tally = compare(t.db, groups, gpu.scores(groups));
  EXPECT_EQ(tally.mismatches, 0);
  EXPECT_GT(tally.pos_inf, 0);
  std::printf("  %ld pairs identical (+inf %ld)\n", tally.pairs - tally.mismatches, tally.pos_inf);

  EXPECT_EQ(hmm::VitCuda::max_model_length(), 1280);
  const hmm::VitProfile too_long = hmm::build_vit_profile(vit::splice_models(parts, 1281));
  EXPECT_THROW(gpu.scores(too_long, first_targets(t.db, 3)), Error);
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
    for (uint32_t p = uint32_t(g); p < db.by_length.size(); p += 3) grp.positions.push_back(p);
    groups.push_back(std::move(grp));
  }
  hmm::VitCuda gpu(0, db);
  const auto batch = gpu.scores(groups);
  ASSERT_EQ(batch.size(), groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto single = gpu.scores(*groups[g].profile, groups[g].positions);
    ASSERT_EQ(single.size(), batch[g].size());
    long diff = 0;
    for (size_t i = 0; i < single.size(); ++i) diff += test::float_bits(single[i]) != test::float_bits(batch[g][i]);
    EXPECT_EQ(diff, 0) << models[g].name;
  }
  const Tally t = compare(db, groups, batch);
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_TRUE(gpu.scores(profiles[0], {}).empty());
  EXPECT_TRUE(gpu.scores(std::vector<hmm::VitGroup>{}).empty());
}

// hmmsearch's shape: candidates scattered over a database resident on the GPU (db2M with
// long targets and targets holding U, O or J, which the device copy holds as '*' and the
// host scores), in random order, repeated, across a few calls of growing size on one object
// (its buffers grow between calls); a position past the database is refused. Four models of
// different segment sizes (the CPU twin's scores take most of the test's time).
TEST(VitGpu, ScatteredPositionsOfAResidentDatabaseEqualCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto models = vit::test_models();
  std::vector<hmm::VitProfile> profiles;
  for (const char* name : {"XYPPX", "fn3", "globins4", "LuxC"})  // 2, 4, 8 and 16 nodes a lane
    for (const auto& m : models)
      if (m.name == name) profiles.push_back(hmm::build_vit_profile(m));
  ASSERT_EQ(profiles.size(), 4u);
  const Database file = load_database(data_path("db2M.fa"));
  std::mt19937 rng(5);
  vit::TestDb t{file.seqs, {}, {}};
  std::vector<uint32_t> rich;  // targets with HMMER-only letters (codes 24..26: U, O, J)
  for (int i = 0; i < 40; ++i) {
    vit::Codes c = vit::random_codes(rng, size_t(50 + 37 * i));
    for (size_t r = size_t(i % 7); r < c.size(); r += 23) c[r] = uint8_t(kAlphabetSize + (r % 3));
    rich.push_back(t.add("rich" + std::to_string(i), c));
  }
  for (size_t n : {size_t(12000), size_t(40000)}) t.add("long" + std::to_string(n), vit::random_codes(rng, n));
  for (auto& e : vit::edge_targets(profiles.back(), rng)) t.add(e.first, e.second);
  t.build();
  const uint32_t n = uint32_t(t.db.by_length.size());
  hmm::VitCuda gpu(0, t.db);
  long pairs = 0;
  for (uint32_t per_group : {50u, 400u, 1500u}) {
    std::vector<hmm::VitGroup> groups;
    std::uniform_int_distribution<uint32_t> any(0, n - 1);
    for (const hmm::VitProfile& p : profiles) {
      hmm::VitGroup grp{&p, {}};
      for (uint32_t i = 0; i < per_group; ++i) grp.positions.push_back(any(rng));
      for (uint32_t i : rich) grp.positions.push_back(t.position[i]);
      grp.positions.push_back(n - 1);  // the longest target
      grp.positions.push_back(grp.positions.front());
      std::shuffle(grp.positions.begin(), grp.positions.end(), rng);
      groups.push_back(std::move(grp));
    }
    const Tally tally = compare(t.db, groups, gpu.scores(groups));
    EXPECT_EQ(tally.mismatches, 0) << per_group << " a group";
    pairs += tally.pairs - tally.mismatches;
  }
  std::printf("  %ld pairs identical over %u targets\n", pairs, n);
  EXPECT_THROW(gpu.scores(profiles[0], {0, n}), Error);
}

// Throughput, by hand: --gtest_also_run_disabled_tests --gtest_filter='VitGpu.DISABLED_*'.
// Each model against all of db2M, 8 copies per call (8 groups), after a warm-up call; the CPU
// twin on one thread for a tenth of the targets, for scale.
TEST(VitGpu, DISABLED_Throughput) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Database db = load_database(data_path("db2M.fa"));
  const std::vector<uint32_t> all = first_targets(db, db.seqs.ids.size());
  const uint64_t residues = db.seqs.total_residues();
  hmm::VitCuda gpu(0, db);
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
      const SeqView v = db.seqs.view(i);
      hmm::viterbi_filter_score(p, v.data, int(v.length), ws);
      cpu_cells += double(v.length) * p.M;
    }
    const double cpu = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    std::printf("  %-12s M=%-4d %zu targets x 8: kernel %.4f s = %.1f GCUPS, call %.4f s = %.1f GCUPS; CPU 1 thread %.2f GCUPS\n",
                f, p.M, all.size(), kernel, cells / kernel / 1e9, wall, cells / wall / 1e9, cpu_cells / cpu / 1e9);
  }
}
