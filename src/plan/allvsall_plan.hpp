#pragma once
// Cuts an all-vs-all screen into tiles = (window i) x (window j) of the pair matrix.
//
// Sequences are sorted longest first (ties by file index) and cut into windows of
// consecutive sequences, so a window holds similar lengths (a GPU thread group's pairs
// finish together). Square mode (-i alone): tiles (i, j) with i <= j only; a diagonal
// tile (i, i) holds the unordered pairs inside window i, no self pairs. Rectangle mode
// (-i A -j B): every (i, j). Every pair lands in exactly one tile.
//
// Window size (sequences per window), from the weakest worker's DeviceCapacity:
//   fill:    a tile of W x W pairs should fill the device fill_waves times:
//            W_fill = ceil(sqrt(fill_waves x concurrent));
//   balance: at least tiles_per_worker tiles per worker, but never below one full wave
//            (W >= ceil(sqrt(concurrent))): an idle SM costs more than a long tail;
//   memory:  a window also closes before its residues pass R = sqrt(memory_bytes), so a
//            whole tile's traceback bits (4 bits per cell, sum of |a||b| over its pairs
//            <= R x R cells = R x R / 2 bytes) fit in half the device memory. A single
//            sequence longer than R gets a window of its own.
// Tile cost = sum over its pairs of |a| x |b|; tiles are returned largest first (LPT).
//
// Tile encoding (src/core/tile.hpp has no room for two windows, and both are needed on
// any rank): tile.queries = the query-side window's sequences (file indices, longest
// first); [part_begin, part_end) = the target-side window as positions in the target
// length order (length_order(targets)). Workers recover the pairs with tile_pairs().
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "src/core/sequence.hpp"
#include "src/core/tile.hpp"
#include "src/plan/device_capacity.hpp"

namespace hpc {

struct AllVsAllPlanOptions {
  int tiles_per_worker = 4;
  int fill_waves = 4;
  uint32_t max_window = 8192;  // sequences per window at most
};

struct AllVsAllPlan {
  bool square = true;
  std::vector<uint32_t> query_windows, target_windows;  // window edges: positions in length order
  std::vector<Tile> tiles;                               // largest first (LPT), ties by id
  uint32_t window_sequences = 0;                         // W: the count bound used
  uint64_t window_residues = 0;                          // R: the memory bound used (0: none)
  uint64_t total_cells = 0, total_pairs = 0;
};

// GPU runs: the smallest tiles, together at most `light_share` of the cells, spread evenly
// among the others (each group keeps its largest-first order) instead of all coming last. A
// GPU's small tiles are host-bound (their cut, alignments and staging take longer than their
// kernels), so at the end the GPU idled while the workers staged them; among the large tiles
// their host work overlaps the others' kernels. `tiles`: largest first (plan_allvsall's).
void spread_light_tiles(std::vector<Tile>& tiles, double light_share);

// Indices sorted longest first, ties by index.
std::vector<uint32_t> length_order(const SequenceSet& s);

// targets == nullptr: square screen of `queries` against itself.
AllVsAllPlan plan_allvsall(const SequenceSet& queries, const SequenceSet* targets,
                           const std::vector<DeviceCapacity>& caps, const AllVsAllPlanOptions& opt = {});

struct PairIndex {
  uint32_t query, target;  // file indices; in square mode query < target
};
// Sorts elements by their pair_of(element) = (query, target) in linear time: two stable
// counting passes (target, then query) over the index range. A tile holds up to millions of
// pairs; a comparison sort of them cost more than the GPU's scoring of the tile.
template <class T, class PairOf>
void sort_by_pair(std::vector<T>& v, PairOf pair_of) {
  if (v.size() < 2) return;
  uint32_t top = 0;
  for (const T& x : v) top = std::max({top, pair_of(x).query, pair_of(x).target});
  std::vector<T> tmp(v.size());
  std::vector<uint32_t> start(size_t(top) + 2);
  auto pass = [&](std::vector<T>& from, std::vector<T>& to, uint32_t PairIndex::*key) {
    std::fill(start.begin(), start.end(), 0u);
    for (const T& x : from) ++start[pair_of(x).*key + 1];
    for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    for (T& x : from) to[start[pair_of(x).*key]++] = std::move(x);  // hits carry CIGARs
  };
  pass(v, tmp, &PairIndex::target);
  pass(tmp, v, &PairIndex::query);
}

// A tile's target-window width and whether it is a diagonal tile of a square screen (its
// two windows the same: query slot x and target position x are one sequence, so only the
// positions after x pair with it). Throws naming the tile when its range is outside the order.
struct TileShape {
  uint32_t width;
  bool diagonal;
};
TileShape tile_shape(const Tile& tile, const std::vector<uint32_t>& target_order, bool square);
// The pair of query slot `slot` and target-window position `position` (square screens:
// the smaller index first; a sequence paired with itself is an error naming the tile).
PairIndex tile_pair(const Tile& tile, const std::vector<uint32_t>& target_order, bool square, uint32_t slot,
                    uint32_t position);

// A tile too large for its device cut into pieces that together hold exactly its pairs
// (src/workloads/tile_splits.hpp; cells counted as the planner counts them): a diagonal tile of
// window A + B into the diagonal tiles of A and of B (those with a pair) and the tile A x B; any
// other tile by the default rule (src/plan/tile_split.hpp). None for a single pair.
// `targets`: the queries themselves in square mode; target_order = length_order(targets).
std::vector<Tile> split_allvsall_tile(const Tile& tile, const SequenceSet& queries, const SequenceSet& targets,
                                      const std::vector<uint32_t>& target_order, bool square);

// The pairs of a tile, sorted by (query, target). target_order = length_order(targets)
// (of the queries themselves in square mode).
std::vector<PairIndex> tile_pairs(const Tile& tile, const std::vector<uint32_t>& target_order, bool square);

}  // namespace hpc
