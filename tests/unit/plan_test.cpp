#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "unit/plan_test_support.hpp"
#include "src/plan/search_plan.hpp"

using namespace hpc;

namespace {

using test::cap;
using test::random_set;

// Every (query, target) pair must be covered exactly once, whatever the sizing.
void expect_exact_cover(const SearchPlan& plan, const SequenceSet& q, const Database& db) {
  std::map<std::pair<uint32_t, uint32_t>, int> seen;
  uint64_t cells = 0;
  for (const Tile& t : plan.tiles) {
    uint64_t tc = 0;
    for (uint32_t qi : t.queries)
      for (uint32_t p = t.part_begin; p < t.part_end; ++p) {
        ++seen[{qi, db.by_length[p]}];
        tc += uint64_t(q.length(qi)) * db.seqs.length(db.by_length[p]);
      }
    EXPECT_EQ(tc, t.cells) << "tile " << t.id;
    cells += tc;
  }
  EXPECT_EQ(seen.size(), q.size() * db.seqs.size());
  for (auto& [pair, n] : seen) EXPECT_EQ(n, 1);
  EXPECT_EQ(cells, plan.total_cells);
  EXPECT_EQ(cells, q.total_residues() * db.seqs.total_residues());
}

}  // namespace

TEST(SearchPlan, CoversEveryPairOnceAndIsLargestFirst) {
  auto q = random_set(37, 900, 1);
  auto db = make_database(random_set(5000, 1200, 2));
  for (size_t workers : {1, 2, 4}) {
    std::vector<DeviceCapacity> caps(workers, cap(2, 16));
    auto plan = plan_search(q, db, caps);
    expect_exact_cover(plan, q, db);
    EXPECT_GE(plan.tiles.size(), workers) << "a tile for each of " << workers << " workers";
    // No tile above the per-lane cell cap (32 lanes x 2e8 cells).
    for (const Tile& t : plan.tiles) EXPECT_LE(t.cells, 2 * 32 * PlanOptions{}.max_cells_per_lane);
    for (size_t i = 1; i < plan.tiles.size(); ++i) EXPECT_GE(plan.tiles[i - 1].cells, plan.tiles[i].cells);
    std::set<uint32_t> ids;
    for (auto& t : plan.tiles) ids.insert(t.id);
    EXPECT_EQ(ids.size(), plan.tiles.size());
  }
}

TEST(SearchPlan, FewQueriesSplitTheDatabaseButKeepTheDeviceFull) {
  auto q = random_set(1, 300, 3);
  auto db = make_database(random_set(10000, 500, 4));
  // A GPU-like device: 132 SMs x 1024 resident alignments -> one partition cannot be split
  // below 4 x 135168 pairs, so a 10,000-sequence database stays whole.
  auto gpu = plan_search(q, db, {cap(132, 1024)});
  EXPECT_EQ(gpu.partitions, 1u);
  expect_exact_cover(gpu, q, db);
  // A 2-thread CPU fills with few pairs: the database is cut for load balance.
  auto cpu = plan_search(q, db, {cap(2, 16), cap(2, 16)});
  EXPECT_EQ(cpu.partitions, 2u);  // 2 workers x 1 tile, one query
  expect_exact_cover(cpu, q, db);
  // Partitions follow the length order, so each one holds similar lengths.
  for (const Tile& t : cpu.tiles)
    for (uint32_t p = t.part_begin + 1; p < t.part_end; ++p)
      EXPECT_LE(db.seqs.length(db.by_length[p - 1]), db.seqs.length(db.by_length[p]));
}

TEST(SearchPlan, MemoryBoundForcesMorePartitions) {
  auto q = random_set(8, 100, 5);
  auto db = make_database(random_set(4000, 100, 6));
  auto roomy = plan_search(q, db, {cap(1, 1)});
  auto tight = plan_search(q, db, {cap(1, 1, /*memory=*/16 * 1024)});
  EXPECT_GT(tight.partitions, roomy.partitions);
  expect_exact_cover(tight, q, db);
}

TEST(SearchPlan, EmptyInputsGiveNoTiles) {
  SequenceSet none;
  auto db = make_database(random_set(10, 10, 7));
  EXPECT_TRUE(plan_search(none, db, {cap(1, 1)}).tiles.empty());
}

TEST(SearchPlan, OneGpuGetsOneTileUnlessTheWorkIsHuge) {
  auto q = random_set(20, 3000, 8);
  auto db = make_database(random_set(20000, 600, 9));
  // One H100-like worker: a single tile avoids a device-draining tail per tile.
  EXPECT_EQ(plan_search(q, db, {cap(132, 1536)}).tiles.size(), 1u);
  // Four workers: a tile each, of about equal cost (queries packed largest first).
  auto four = plan_search(q, db, std::vector<DeviceCapacity>(4, cap(132, 1536)));
  ASSERT_EQ(four.tiles.size(), 4u);
  expect_exact_cover(four, q, db);
  EXPECT_LT(double(four.tiles.front().cells) / double(four.tiles.back().cells), 1.05);
  // A tiny per-lane cap forces many tiles even on one worker (progress and checkpoints).
  PlanOptions small;
  small.max_cells_per_lane = 1000;
  auto capped = plan_search(q, db, {cap(132, 1536)}, small);
  EXPECT_GT(capped.tiles.size(), 1u);
  expect_exact_cover(capped, q, db);
}

TEST(SearchPlan, ManyShortQueriesGetBatchesOfSimilarLengths) {
  // 5,000 queries on one GPU-like worker: more batches than 3 per worker, so the batches are
  // runs of the length order (each within max_query_batch), not LPT mixtures of all lengths.
  auto q = random_set(5000, 800, 10);
  auto db = make_database(random_set(5000, 800, 11));
  PlanOptions opt;
  opt.max_query_batch = 512;
  auto plan = plan_search(q, db, {cap(132, 1536)}, opt);
  expect_exact_cover(plan, q, db);
  ASSERT_GE(plan.query_batches, 10u);
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // (shortest, longest) of each batch
  for (const Tile& t : plan.tiles) {
    EXPECT_LE(t.queries.size(), opt.max_query_batch);
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t qi : t.queries) lo = std::min<uint32_t>(lo, q.length(qi)), hi = std::max<uint32_t>(hi, q.length(qi));
    ranges.push_back({lo, hi});
  }
  // Runs of the length order: no batch's range overlaps another's interior.
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);
  // Many batches: twelve workers per GPU overlap host work up to 16,384 subjects, eight up to
  // 65,536, four above; a few long queries keep one.
  EXPECT_EQ(search_workers_per_gpu(q, kEightSearchWorkersDatabase + 1, opt), 4);
  EXPECT_EQ(search_workers_per_gpu(q, kEightSearchWorkersDatabase, opt), 8);
  EXPECT_EQ(search_workers_per_gpu(q, kSmallSearchDatabase + 1, opt), 8);
  EXPECT_EQ(search_workers_per_gpu(q, kSmallSearchDatabase, opt), kSmallDatabaseSearchWorkers);
  EXPECT_EQ(search_workers_per_gpu(q, db.seqs.size(), opt), kSmallDatabaseSearchWorkers);
  EXPECT_TRUE(many_queries_small_database(q, db.seqs.size(), opt));
  EXPECT_EQ(search_workers_per_gpu(random_set(20, 3000, 8), db.seqs.size()), 1);
  EXPECT_FALSE(many_queries_small_database(random_set(20, 3000, 8), db.seqs.size()));
}

TEST(SearchPlan, QueryWeightBalancesBatchesByCountAsWellAsResidues) {
  // Short queries against a small database: a query's host work outweighs its residues, so
  // batches are cut by residues plus query_weight a query (and handed out by their cost).
  auto q = random_set(5000, 800, 12);
  auto db = make_database(random_set(300, 800, 13));
  PlanOptions plain;
  plain.max_query_batch = 512;
  plain.tiles_per_worker = 4;  // 32 batches for 8 workers: runs of the length order
  PlanOptions weighed = plain;
  weighed.query_weight = 400;
  const std::vector<DeviceCapacity> caps(8, cap(132, 1536));
  const auto by_residues = plan_search(q, db, caps, plain);
  const auto by_weight = plan_search(q, db, caps, weighed);
  expect_exact_cover(by_weight, q, db);
  const auto weight = [&](const Tile& t) {
    uint64_t w = 0;
    for (uint32_t qi : t.queries) w += q.length(qi) + weighed.query_weight;
    return w;
  };
  // The remainder: the last batch cut (one partition, so the last id).
  const auto remainder = [](const SearchPlan& plan, const Tile& t) { return t.id + 1 == plan.tiles.size(); };
  const auto spread = [&](const SearchPlan& plan) {  // of the queries a tile, the remainder tile left out
    size_t lo = SIZE_MAX, hi = 0;
    for (const Tile& t : plan.tiles)
      if (!remainder(plan, t)) lo = std::min(lo, t.queries.size()), hi = std::max(hi, t.queries.size());
    return double(hi) / double(lo);
  };
  ASSERT_EQ(by_weight.partitions, 1u);
  ASSERT_EQ(by_residues.partitions, 1u);
  EXPECT_LT(spread(by_weight), spread(by_residues));
  // Every batch but the remainder within one longest query's weight of the others.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const Tile& t : by_weight.tiles)
    if (!remainder(by_weight, t)) lo = std::min(lo, weight(t)), hi = std::max(hi, weight(t));
  EXPECT_LE(hi - lo, 800 + weighed.query_weight);
  // Handed out by cost: the first wave (2 x 8 workers) the cheapest, cheapest first, then dearest first.
  const auto cost = [&](const Tile& t) {
    uint64_t c = weight(t);
    for (uint32_t qi : t.queries) c += uint64_t(q.length(qi)) * q.length(qi) / kQuerySquareDivisor;
    return c;
  };
  const std::vector<Tile>& order = by_weight.tiles;
  ASSERT_GE(order.size(), 3u * caps.size());
  const size_t wave = 2 * caps.size();
  for (size_t i = 1; i < order.size(); ++i)
    if (i < wave)
      EXPECT_LE(cost(order[i - 1]), cost(order[i]));
    else if (i > wave)
      EXPECT_GE(cost(order[i - 1]), cost(order[i]));
  uint64_t wave_dearest = 0, rest_cheapest = UINT64_MAX;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i < wave)
      wave_dearest = std::max(wave_dearest, cost(order[i]));
    else
      rest_cheapest = std::min(rest_cheapest, cost(order[i]));
  }
  EXPECT_LE(wave_dearest, rest_cheapest);
  // Weight 0 is the residues' plan.
  PlanOptions zero = weighed;
  zero.query_weight = 0;
  const auto same = plan_search(q, db, caps, zero);
  ASSERT_EQ(same.tiles.size(), by_residues.tiles.size());
  for (size_t i = 0; i < same.tiles.size(); ++i) EXPECT_EQ(same.tiles[i].queries, by_residues.tiles[i].queries);
}

TEST(SearchPlan, SmallDatabaseOrderHandsOutTheCheapestWaveFirstThenTheDearest) {
  const auto costed = [](std::vector<uint64_t> costs) {
    std::vector<std::pair<uint64_t, Tile>> v;
    for (size_t i = 0; i < costs.size(); ++i) {
      Tile t;
      t.id = uint32_t(i);
      v.emplace_back(costs[i], t);
    }
    return v;
  };
  const auto ids = [](const std::vector<std::pair<uint64_t, Tile>>& v) {
    std::vector<uint32_t> out;
    for (const auto& c : v) out.push_back(c.second.id);
    return out;
  };
  // 2 workers: a wave of 4 (each worker's first tile and the one it queues ahead), ties by id.
  auto v = costed({50, 90, 10, 70, 30, 30, 80, 20, 60});
  order_small_database_tiles(v, 2);
  EXPECT_EQ(ids(v), (std::vector<uint32_t>{2, 7, 4, 5, 1, 6, 3, 8, 0}));
  // Fewer than 3 x workers tiles: dearest first only.
  auto few = costed({50, 90, 10, 70, 30});
  order_small_database_tiles(few, 2);
  EXPECT_EQ(ids(few), (std::vector<uint32_t>{1, 3, 0, 4, 2}));
}

TEST(SearchPlan, WholeDatabaseTilesForTheCalibration) {
  // A 2-thread CPU would cut this database for load balance (FewQueriesSplitTheDatabase...).
  auto q = random_set(3, 300, 12);
  auto db = make_database(random_set(2000, 500, 13));
  PlanOptions opt;
  opt.whole_database = true;
  auto plan = plan_search(q, db, {cap(2, 16), cap(2, 16)}, opt);
  EXPECT_EQ(plan.partitions, 1u);
  for (const Tile& t : plan.tiles) EXPECT_EQ(t.part_end - t.part_begin, db.seqs.size());
  expect_exact_cover(plan, q, db);
}

