#include "src/plan/allvsall_plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "src/core/error.hpp"
#include "src/plan/tile_split.hpp"

namespace hpc {
namespace {

// Sum of lengths and of squared lengths of the sequences of `set` at `idx`.
std::pair<uint64_t, uint64_t> length_sums(const SequenceSet& set, const std::vector<uint32_t>& idx) {
  uint64_t sum = 0, squares = 0;
  for (uint32_t i : idx) sum += set.length(i), squares += uint64_t(set.length(i)) * set.length(i);
  return {sum, squares};
}

uint64_t ceil_sqrt(uint64_t x) {
  uint64_t r = uint64_t(std::sqrt(double(x)));
  while (r * r < x) ++r;
  while (r > 0 && (r - 1) * (r - 1) >= x) --r;
  return r;
}

// Window edges over `order`: at most `count` sequences, and (beyond the first sequence)
// at most `residues` residues per window (0: no residue bound).
std::vector<uint32_t> cut_windows(const SequenceSet& s, const std::vector<uint32_t>& order, uint64_t count,
                                  uint64_t residues) {
  std::vector<uint32_t> edges{0};
  uint64_t in_window = 0, res = 0;
  for (uint32_t p = 0; p < order.size(); ++p) {
    const uint64_t len = s.length(order[p]);
    if (in_window > 0 && (in_window == count || (residues && res + len > residues))) {
      edges.push_back(p);
      in_window = res = 0;
    }
    ++in_window;
    res += len;
  }
  if (!order.empty()) edges.push_back(uint32_t(order.size()));
  return edges;
}

// Smallest k with k windows giving >= wanted tiles.
uint64_t windows_for_tiles(uint64_t wanted, bool square) {
  uint64_t k = 1;
  while ((square ? k * (k + 1) / 2 : k * k) < wanted) ++k;
  return k;
}

}  // namespace

std::vector<uint32_t> length_order(const SequenceSet& s) {
  std::vector<uint32_t> order(s.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return s.length(a) > s.length(b); });
  return order;
}

AllVsAllPlan plan_allvsall(const SequenceSet& queries, const SequenceSet* targets,
                           const std::vector<DeviceCapacity>& caps, const AllVsAllPlanOptions& opt) {
  AllVsAllPlan plan;
  plan.square = targets == nullptr;
  const SequenceSet& tset = plan.square ? queries : *targets;
  const size_t workers = std::max<size_t>(1, caps.size());

  uint64_t concurrent = caps.empty() ? 1 : UINT64_MAX, memory = UINT64_MAX;
  for (const auto& c : caps) {
    concurrent = std::min(concurrent, std::max<uint64_t>(1, c.concurrent()));
    if (c.memory_bytes) memory = std::min(memory, c.memory_bytes);
  }
  const uint64_t w_fill = ceil_sqrt(concurrent * uint64_t(std::max(1, opt.fill_waves)));
  const uint64_t w_once = ceil_sqrt(concurrent);
  const uint64_t n = std::max(queries.size(), tset.size());
  const uint64_t k = windows_for_tiles(workers * uint64_t(std::max(1, opt.tiles_per_worker)), plan.square);
  const uint64_t w_balance = std::max<uint64_t>(1, (n + k - 1) / k);
  uint64_t w = std::max(w_once, std::min(w_fill, w_balance));
  w = std::clamp<uint64_t>(w, 1, std::max<uint32_t>(1, opt.max_window));
  plan.window_sequences = uint32_t(w);
  plan.window_residues = memory == UINT64_MAX ? 0 : std::max<uint64_t>(1, uint64_t(std::sqrt(double(memory))));

  const std::vector<uint32_t> qorder = length_order(queries);
  const std::vector<uint32_t> torder = plan.square ? qorder : length_order(tset);
  plan.query_windows = cut_windows(queries, qorder, w, plan.window_residues);
  plan.target_windows = plan.square ? plan.query_windows : cut_windows(tset, torder, w, plan.window_residues);

  auto residues = [](const SequenceSet& s, const std::vector<uint32_t>& order, uint32_t b, uint32_t e) {
    uint64_t sum = 0, squares = 0;
    for (uint32_t p = b; p < e; ++p) sum += s.length(order[p]), squares += uint64_t(s.length(order[p])) * s.length(order[p]);
    return std::make_pair(sum, squares);
  };
  uint32_t id = 0;
  const size_t qw = plan.query_windows.empty() ? 0 : plan.query_windows.size() - 1;
  const size_t tw = plan.target_windows.empty() ? 0 : plan.target_windows.size() - 1;
  for (size_t i = 0; i < qw; ++i) {
    const uint32_t qb = plan.query_windows[i], qe = plan.query_windows[i + 1];
    const auto [qsum, qsq] = residues(queries, qorder, qb, qe);
    for (size_t j = plan.square ? i : 0; j < tw; ++j) {
      const uint32_t tb = plan.target_windows[j], te = plan.target_windows[j + 1];
      const bool diagonal = plan.square && i == j;
      if (diagonal && qe - qb < 2) continue;  // a lone sequence has no pair with itself
      Tile t;
      t.id = id++;
      t.queries.assign(qorder.begin() + qb, qorder.begin() + qe);
      t.part_begin = tb;
      t.part_end = te;
      const uint64_t tsum = residues(tset, torder, tb, te).first;
      t.cells = diagonal ? (qsum * qsum - qsq) / 2 : qsum * tsum;
      plan.total_pairs += diagonal ? uint64_t(qe - qb) * (qe - qb - 1) / 2 : uint64_t(qe - qb) * (te - tb);
      plan.total_cells += t.cells;
      plan.tiles.push_back(std::move(t));
    }
  }
  std::stable_sort(plan.tiles.begin(), plan.tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  return plan;
}

void spread_light_tiles(std::vector<Tile>& tiles, double light_share) {
  uint64_t total = 0;
  for (const Tile& t : tiles) total += t.cells;
  const double light_cells = double(total) * light_share;
  size_t heavy = tiles.size();  // tiles[heavy, end): the light ones
  for (uint64_t sum = 0; heavy > 0 && double(sum + tiles[heavy - 1].cells) <= light_cells; --heavy)
    sum += tiles[heavy - 1].cells;
  const size_t light = tiles.size() - heavy;
  if (light == 0 || heavy == 0) return;
  std::vector<Tile> spread;
  spread.reserve(tiles.size());
  size_t next_light = heavy;
  for (size_t h = 0; h < heavy; ++h) {
    spread.push_back(std::move(tiles[h]));
    // After heavy tile h, the light tiles due by then: (h + 1) / heavy of them.
    const size_t due = heavy + (h + 1) * light / heavy;
    while (next_light < due) spread.push_back(std::move(tiles[next_light++]));
  }
  tiles = std::move(spread);
}

TileShape tile_shape(const Tile& tile, const std::vector<uint32_t>& target_order, bool square) {
  if (tile.part_begin > tile.part_end || tile.part_end > target_order.size())
    throw Error("allvsall: tile " + std::to_string(tile.id) + " names target positions [" +
                std::to_string(tile.part_begin) + ", " + std::to_string(tile.part_end) + ") of " +
                std::to_string(target_order.size()));
  const uint32_t width = tile.part_end - tile.part_begin;
  // Square windows are disjoint ranges of one order: the first member identifies the window.
  const bool diagonal = square && !tile.queries.empty() && width == tile.queries.size() &&
                        target_order[tile.part_begin] == tile.queries.front();
  return {width, diagonal};
}

PairIndex tile_pair(const Tile& tile, const std::vector<uint32_t>& target_order, bool square, uint32_t slot,
                    uint32_t position) {
  const uint32_t a = tile.queries[slot], b = target_order[tile.part_begin + position];
  if (!square) return {a, b};
  if (a == b) throw Error("allvsall: tile " + std::to_string(tile.id) + " pairs sequence " + std::to_string(a) + " with itself");
  return {std::min(a, b), std::max(a, b)};
}

std::vector<PairIndex> tile_pairs(const Tile& tile, const std::vector<uint32_t>& target_order, bool square) {
  const TileShape shape = tile_shape(tile, target_order, square);
  const size_t nq = tile.queries.size();
  std::vector<PairIndex> pairs;
  pairs.reserve(shape.diagonal ? nq * (nq - 1) / 2 : nq * shape.width);
  for (uint32_t x = 0; x < nq; ++x)
    for (uint32_t p = shape.diagonal ? x + 1 : 0; p < shape.width; ++p) pairs.push_back(tile_pair(tile, target_order, square, x, p));
  sort_by_pair(pairs, [](const PairIndex& p) { return p; });
  return pairs;
}

std::vector<Tile> split_allvsall_tile(const Tile& tile, const SequenceSet& queries, const SequenceSet& targets,
                                      const std::vector<uint32_t>& target_order, bool square) {
  if (!tile_shape(tile, target_order, square).diagonal) {
    std::vector<Tile> halves = split_tile(tile);
    for (Tile& t : halves) {
      const std::vector<uint32_t> window(target_order.begin() + t.part_begin, target_order.begin() + t.part_end);
      t.cells = length_sums(queries, t.queries).first * length_sums(targets, window).first;
    }
    return halves;
  }
  const uint32_t n = uint32_t(tile.queries.size()), half = n / 2;
  if (n < 3) return {};  // one pair
  // Window positions [part_begin, part_begin + n) hold tile.queries in the same order.
  Tile a = tile, b = tile, ab = tile;
  a.queries.assign(tile.queries.begin(), tile.queries.begin() + half);
  b.queries.assign(tile.queries.begin() + half, tile.queries.end());
  a.part_end = b.part_begin = tile.part_begin + half;
  ab.queries = a.queries;
  ab.part_begin = b.part_begin;
  const auto [asum, asq] = length_sums(queries, a.queries);
  const auto [bsum, bsq] = length_sums(queries, b.queries);
  a.cells = (asum * asum - asq) / 2;  // as the planner counts a diagonal tile
  b.cells = (bsum * bsum - bsq) / 2;
  ab.cells = asum * bsum;
  std::vector<Tile> pieces;
  if (a.queries.size() > 1) pieces.push_back(std::move(a));
  if (b.queries.size() > 1) pieces.push_back(std::move(b));
  pieces.push_back(std::move(ab));
  return pieces;
}

}  // namespace hpc
