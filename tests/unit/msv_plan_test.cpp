// src/plan/msv_plan.hpp: (model batch) x (database partition) tiles for msv, hmmsearch and
// hmmscan. Every (model, target) pair lies in one tile; a few models cut the database 4 times a
// worker (hmmsearch's tuned shape), a model library (hmmscan's: Pfam against a proteome) keeps
// the whole database in every tile, its batches alone giving the workers their tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "src/plan/msv_plan.hpp"
#include "unit/plan_test_support.hpp"

using namespace hpc;

namespace {

// Each model once a partition, the partitions tiling the database, cells as the tiles say.
void expect_exact_cover(const MsvPlan& plan, const std::vector<int>& lengths, const Database& db) {
  std::vector<std::vector<uint32_t>> covered(lengths.size());  // per model: its tiles' [begin, end)
  for (const Tile& t : plan.tiles) {
    uint64_t res = 0, nodes = 0;
    for (uint32_t p = t.part_begin; p < t.part_end; ++p) res += db.seqs.length(db.by_length[p]);
    for (uint32_t m : t.queries) {
      nodes += uint64_t(lengths.at(m));
      covered[m].push_back(t.part_begin), covered[m].push_back(t.part_end);
    }
    EXPECT_EQ(t.cells, res * nodes) << "tile " << t.id;
    EXPECT_LE(t.queries.size(), 8u) << "tile " << t.id << ": more models than one launch scores";
  }
  for (size_t m = 0; m < lengths.size(); ++m) {
    std::vector<uint32_t>& c = covered[m];
    std::sort(c.begin(), c.end());
    ASSERT_EQ(c.size(), 2 * size_t(plan.partitions)) << "model " << m;
    EXPECT_EQ(c.front(), 0u);
    EXPECT_EQ(c.back(), db.seqs.size());
    for (size_t i = 1; i + 1 < c.size(); i += 2) EXPECT_EQ(c[i], c[i + 1]) << "model " << m << ": a gap or an overlap";
  }
  for (size_t i = 1; i < plan.tiles.size(); ++i) EXPECT_GE(plan.tiles[i - 1].cells, plan.tiles[i].cells);
}

std::vector<int> random_lengths(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int> l(n);
  for (int& x : l) x = 10 + int(rng() % 1500);
  return l;
}

}  // namespace

// The 22 models of bench/make_models.sh (7 length classes): 4 partitions a worker, as tuned.
TEST(MsvPlan, FewModelsCutTheDatabaseFourTimesAWorker) {
  const std::vector<int> m22 = {1,   5,   20,  71,  86,  100, 143, 144, 149, 189,  222,
                                260, 375, 400, 464, 567, 657, 729, 803, 850, 1000, 1142};
  const Database db = make_database(test::random_set(20000, 600, 1));
  const MsvPlan plan = plan_msv(m22, db, 16);
  EXPECT_EQ(plan.model_batches, 7u);
  EXPECT_EQ(plan.partitions, 64u);
  EXPECT_EQ(plan.tiles.size(), 7u * 64u);
  expect_exact_cover(plan, m22, db);
}

// Pfam-sized library against a proteome: every tile is a batch of models against the whole
// sequence set, and there are many tiles a worker.
TEST(MsvPlan, AModelLibraryKeepsTheWholeDatabaseInEachTile) {
  const std::vector<int> pfam = random_lengths(20000, 2);
  const Database db = make_database(test::random_set(20000, 800, 3));
  const MsvPlan plan = plan_msv(pfam, db, 16);
  EXPECT_EQ(plan.partitions, 1u);
  EXPECT_GE(plan.model_batches, 20000u / 8);
  EXPECT_EQ(plan.tiles.size(), plan.model_batches);
  for (const Tile& t : plan.tiles) EXPECT_TRUE(t.part_begin == 0 && t.part_end == db.seqs.size());
  expect_exact_cover(plan, pfam, db);
}

// Between the two: cuts so that the workers still get about 28 tiles each.
TEST(MsvPlan, ModerateModelCountsCutTheDatabaseLess) {
  const std::vector<int> lengths = random_lengths(200, 4);
  const Database db = make_database(test::random_set(5000, 500, 5));
  const MsvPlan plan = plan_msv(lengths, db, 16);
  EXPECT_GT(plan.partitions, 1u);
  EXPECT_LT(plan.partitions, 64u);
  EXPECT_GE(plan.tiles.size(), 28u * 16u);
  EXPECT_LT(plan.tiles.size(), 2u * 28u * 16u);
  expect_exact_cover(plan, lengths, db);
}

// hmmsearch on 2 GPUs asks for 14 tiles a worker of its 32: one GPU's 448 tiles, 64 partitions.
TEST(MsvPlan, FewerTilesAWorkerCutTheDatabaseLess) {
  const std::vector<int> m22 = {1,   5,   20,  71,  86,  100, 143, 144, 149, 189,  222,
                                260, 375, 400, 464, 567, 657, 729, 803, 850, 1000, 1142};
  const Database db = make_database(test::random_set(20000, 600, 1));
  const MsvPlan plan = plan_msv(m22, db, 32, 14);
  EXPECT_EQ(plan.partitions, 64u);
  EXPECT_EQ(plan.tiles.size(), 7u * 64u);
  expect_exact_cover(plan, m22, db);
  EXPECT_EQ(plan_msv(m22, db, 32).partitions, 128u);  // 28 a worker: twice the cuts
}

// hmmsearch on 2 GPUs: a model library that alone gives the workers their tiles is still cut
// once a GPU; a floor below the planner's own count changes nothing.
TEST(MsvPlan, AFloorOnPartitionsCutsAModelLibrary) {
  const std::vector<int> lengths = random_lengths(2000, 4);
  const Database db = make_database(test::random_set(5000, 400, 5));
  const MsvPlan one = plan_msv(lengths, db, 32, 7);
  EXPECT_EQ(one.partitions, 1u);
  const MsvPlan two = plan_msv(lengths, db, 32, 7, 2);
  EXPECT_EQ(two.partitions, 2u);
  EXPECT_EQ(two.tiles.size(), 2 * one.tiles.size());
  expect_exact_cover(two, lengths, db);
  EXPECT_EQ(plan_msv(lengths, db, 32, 7, 3).partitions, 3u);
  const std::vector<int> m22(22, 100);
  EXPECT_EQ(plan_msv(m22, db, 32, 14, 2).partitions, plan_msv(m22, db, 32, 14).partitions);
  EXPECT_EQ(plan_msv(lengths, make_database(test::random_set(1, 400, 6)), 32, 7, 2).partitions, 1u);  // one target
}

// The floor only where the batches alone cannot balance the workers: 20,000 models (2,500
// batches, 78 a worker of 32) keep the whole database in each tile on 2 GPUs; 2,000 models (8
// a worker) are cut once a GPU, and so are batches one short of kBatchesThatBalance a worker.
TEST(MsvPlan, ManyBatchesAWorkerIgnoreTheFloor) {
  const Database db = make_database(test::random_set(3000, 400, 7));
  const std::vector<int> library = random_lengths(20000, 8);
  const MsvPlan many = plan_msv(library, db, 32, 7, 2);
  EXPECT_GE(many.model_batches, kBatchesThatBalance * 32);
  EXPECT_EQ(many.partitions, 1u);
  EXPECT_EQ(many.tiles.size(), many.model_batches);
  expect_exact_cover(many, library, db);
  EXPECT_EQ(plan_msv(random_lengths(2000, 4), db, 32, 7, 2).partitions, 2u);
  // Models of one length batch 8 at a time: exactly the threshold's batches, and one fewer.
  const std::vector<int> at(8 * kBatchesThatBalance * 32, 100), below(8 * (kBatchesThatBalance * 32 - 1), 100);
  EXPECT_EQ(plan_msv(at, db, 32, 7, 2).model_batches, kBatchesThatBalance * 32);
  EXPECT_EQ(plan_msv(at, db, 32, 7, 2).partitions, 1u);
  EXPECT_EQ(plan_msv(below, db, 32, 7, 2).partitions, 2u);
  EXPECT_EQ(plan_msv(below, db, 32, 7, 3).partitions, 3u);
}
