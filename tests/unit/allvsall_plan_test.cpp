// The all-vs-all planner: every pair exactly once (square: unordered, no self pairs;
// rectangle: every (a, b)), costs add up, LPT order, windows sorted longest first.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "src/core/error.hpp"
#include "unit/plan_test_support.hpp"
#include "src/plan/allvsall_plan.hpp"

namespace hpc {
namespace {

using test::cap;
using test::random_set;

void expect_exact_cover(const AllVsAllPlan& plan, const SequenceSet& a, const SequenceSet* b) {
  const SequenceSet& t = b ? *b : a;
  const std::vector<uint32_t> order = length_order(t);
  std::map<std::pair<uint32_t, uint32_t>, int> seen;
  uint64_t cells = 0;
  for (size_t k = 0; k < plan.tiles.size(); ++k) {
    const Tile& tile = plan.tiles[k];
    if (k > 0) EXPECT_GE(plan.tiles[k - 1].cells, tile.cells) << "tiles must be largest first";
    uint64_t tile_cells = 0;
    const auto pairs = tile_pairs(tile, order, b == nullptr);
    for (size_t p = 0; p < pairs.size(); ++p) {
      ++seen[{pairs[p].query, pairs[p].target}];
      tile_cells += uint64_t(a.length(pairs[p].query)) * t.length(pairs[p].target);
      if (p > 0) EXPECT_TRUE(pairs[p - 1].query < pairs[p].query ||
                             (pairs[p - 1].query == pairs[p].query && pairs[p - 1].target < pairs[p].target));
    }
    EXPECT_EQ(tile_cells, tile.cells) << "tile " << tile.id;
    cells += tile_cells;
  }
  EXPECT_EQ(cells, plan.total_cells);
  if (b) {
    EXPECT_EQ(seen.size(), a.size() * b->size());
    EXPECT_EQ(plan.total_pairs, a.size() * b->size());
  } else {
    EXPECT_EQ(seen.size(), a.size() * (a.size() - 1) / 2);
    EXPECT_EQ(plan.total_pairs, a.size() * (a.size() - 1) / 2);
    for (const auto& [pair, count] : seen) EXPECT_LT(pair.first, pair.second);
  }
  for (const auto& [pair, count] : seen) EXPECT_EQ(count, 1) << pair.first << "," << pair.second;
}

// The driver's out-of-memory split (src/workloads/tile_splits.hpp): cut again and again down to
// single pairs, the pieces still cover every pair once, each with its exact cells.
TEST(AllVsAllPlan, SplitPiecesCoverTheirTileExactly) {
  const SequenceSet a = random_set(41, 300, 7), b = random_set(23, 300, 8);
  for (bool square : {true, false}) {
    SCOPED_TRACE(square ? "square" : "rectangle");
    const SequenceSet* targets = square ? nullptr : &b;
    AllVsAllPlan plan = plan_allvsall(a, targets, {cap(2, 4)});
    ASSERT_GT(plan.tiles.size(), 2u);
    const std::vector<uint32_t> order = length_order(square ? a : b);
    std::vector<Tile> leaves, todo = plan.tiles;
    while (!todo.empty()) {
      const Tile t = todo.back();
      todo.pop_back();
      const std::vector<Tile> pieces = split_allvsall_tile(t, a, square ? a : b, order, square);
      if (pieces.empty()) {
        EXPECT_EQ(tile_pairs(t, order, square).size(), 1u) << "only a single pair is left whole";
        leaves.push_back(t);
        continue;
      }
      uint64_t cells = 0;
      for (const Tile& p : pieces) cells += p.cells;
      EXPECT_EQ(cells, t.cells) << "tile " << t.id;
      todo.insert(todo.end(), pieces.begin(), pieces.end());
    }
    std::stable_sort(leaves.begin(), leaves.end(), [](const Tile& x, const Tile& y) { return x.cells > y.cells; });
    plan.tiles = leaves;
    expect_exact_cover(plan, a, targets);
  }
}

TEST(AllVsAllPlan, SquareCoversEveryUnorderedPairOnce) {
  for (size_t n : {2, 3, 17, 100, 257}) {
    const SequenceSet s = random_set(n, 400, uint32_t(n));
    for (const auto& caps : {std::vector<DeviceCapacity>{cap(1, 1)}, std::vector<DeviceCapacity>{cap(16, 32)},
                             std::vector<DeviceCapacity>{cap(2, 4), cap(2, 4), cap(2, 4)},
                             std::vector<DeviceCapacity>{cap(132, 1024, 1 << 30)}}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " concurrent=" + std::to_string(caps[0].concurrent()));
      expect_exact_cover(plan_allvsall(s, nullptr, caps), s, nullptr);
    }
  }
}

TEST(AllVsAllPlan, RectangleCoversEveryPairOnce) {
  const SequenceSet a = random_set(37, 300, 1), b = random_set(91, 500, 2);
  for (const auto& caps : {std::vector<DeviceCapacity>{cap(1, 1)}, std::vector<DeviceCapacity>{cap(4, 8), cap(4, 8)}})
    expect_exact_cover(plan_allvsall(a, &b, caps), a, &b);
  const SequenceSet one = random_set(1, 50, 3);
  expect_exact_cover(plan_allvsall(one, &b, {cap(1, 1)}), one, &b);
}

TEST(AllVsAllPlan, LoneSequenceHasNoPairs) {
  const SequenceSet s = random_set(1, 50, 4);
  const AllVsAllPlan plan = plan_allvsall(s, nullptr, {cap(1, 1)});
  EXPECT_TRUE(plan.tiles.empty());
  EXPECT_EQ(plan.total_pairs, 0u);
}

TEST(AllVsAllPlan, WindowsHoldSimilarLengthsLongestFirst) {
  const SequenceSet s = random_set(200, 1000, 5);
  const AllVsAllPlan plan = plan_allvsall(s, nullptr, {cap(4, 4)});
  const auto order = length_order(s);
  for (size_t p = 1; p < order.size(); ++p) EXPECT_GE(s.length(order[p - 1]), s.length(order[p]));
  for (const Tile& t : plan.tiles)
    for (size_t k = 1; k < t.queries.size(); ++k) EXPECT_GE(s.length(t.queries[k - 1]), s.length(t.queries[k]));
}

TEST(AllVsAllPlan, SizingFollowsFillBalanceAndMemory) {
  const SequenceSet s = random_set(2000, 500, 6);
  // Fill: 4 waves of 16 x 16 alignments -> W = 32 (balance would allow 2000/3 per window).
  EXPECT_EQ(plan_allvsall(s, nullptr, {cap(16, 16)}).window_sequences, 32u);
  // Balance: 8 workers x 4 tiles need k(k+1)/2 >= 32 -> 8 windows of 250; fill allows 400.
  EXPECT_EQ(plan_allvsall(s, nullptr, std::vector<DeviceCapacity>(8, cap(200, 200))).window_sequences, 250u);
  // ...but never below one full wave: sqrt(200 x 200) = 200 (64 workers would want 87).
  EXPECT_EQ(plan_allvsall(s, nullptr, std::vector<DeviceCapacity>(64, cap(200, 200))).window_sequences, 200u);
  // Memory: R = sqrt(1 MB) = 1024 residues per window at most (unless one sequence is longer).
  const SequenceSet small = random_set(300, 500, 7);
  const AllVsAllPlan mem = plan_allvsall(small, nullptr, {cap(16, 16, 1 << 20)});
  EXPECT_EQ(mem.window_residues, 1024u);
  EXPECT_GT(mem.query_windows.size(), 300u / 32 + 2) << "the memory bound must cut windows shorter than W";
  const auto order = length_order(small);
  for (size_t w = 0; w + 1 < mem.query_windows.size(); ++w) {
    uint64_t res = 0;
    for (uint32_t p = mem.query_windows[w]; p < mem.query_windows[w + 1]; ++p) res += small.length(order[p]);
    if (mem.query_windows[w + 1] - mem.query_windows[w] > 1) EXPECT_LE(res, 1024u);
  }
  expect_exact_cover(mem, small, nullptr);
}

// GPU runs: the smallest tiles (at most the share of the cells) spread evenly among the
// others, each group still largest first, every tile once.
TEST(AllVsAllPlan, LightTilesSpreadAmongTheHeavyOnes) {
  const SequenceSet s = random_set(600, 400, 11);
  const std::vector<Tile> planned = plan_allvsall(s, nullptr, {cap(8, 8)}).tiles;
  ASSERT_GT(planned.size(), 40u);
  uint64_t total = 0;
  for (const Tile& t : planned) total += t.cells;
  std::vector<Tile> tiles = planned;
  spread_light_tiles(tiles, 0.2);
  ASSERT_EQ(tiles.size(), planned.size());
  // The light tiles: the planned order's tail holding at most 20% of the cells, as many as fit.
  size_t heavy = planned.size();
  uint64_t light_cells = 0;
  while (heavy > 0 && double(light_cells + planned[heavy - 1].cells) <= 0.2 * double(total))
    light_cells += planned[--heavy].cells;
  const size_t light = planned.size() - heavy;
  ASSERT_GT(light, 4u);
  ASSERT_GT(heavy, 4u);
  std::vector<uint32_t> heavy_ids, light_ids, seen;
  std::vector<size_t> light_at;  // positions of the light tiles in the new order
  for (size_t k = 0; k < tiles.size(); ++k) {
    const uint32_t id = tiles[k].id;
    seen.push_back(id);
    const bool is_light = std::any_of(planned.begin() + heavy, planned.end(), [&](const Tile& t) { return t.id == id; });
    if (is_light) light_ids.push_back(id), light_at.push_back(k);
    else heavy_ids.push_back(id);
  }
  for (size_t k = 0; k < heavy; ++k) EXPECT_EQ(heavy_ids[k], planned[k].id) << "heavy tiles keep their order";
  for (size_t k = 0; k < light; ++k) EXPECT_EQ(light_ids[k], planned[heavy + k].id) << "light tiles keep their order";
  std::sort(seen.begin(), seen.end());
  EXPECT_TRUE(std::adjacent_find(seen.begin(), seen.end()) == seen.end()) << "every tile once";
  // Evenly: light tile j comes after about j x heavy / light heavy tiles; the last at the end.
  const double gap = double(heavy) / double(light);
  for (size_t j = 0; j < light; ++j) {
    const double heavy_before = double(light_at[j] - j);
    EXPECT_GE(heavy_before, double(j) * gap) << "light tile " << j;
    EXPECT_LE(heavy_before, double(j + 1) * gap + 1) << "light tile " << j;
  }
  EXPECT_EQ(light_at.back(), tiles.size() - 1);
  // No light share, or all of it: the order stays.
  for (double share : {0.0, 1.0}) {
    std::vector<Tile> same = planned;
    spread_light_tiles(same, share);
    for (size_t k = 0; k < same.size(); ++k) EXPECT_EQ(same[k].id, planned[k].id) << "share " << share;
  }
}

TEST(AllVsAllPlan, TilePairsRejectsBadRanges) {
  Tile t;
  t.queries = {0};
  t.part_begin = 0;
  t.part_end = 5;
  EXPECT_THROW(tile_pairs(t, {0, 1}, true), Error);
}

}  // namespace
}  // namespace hpc
