#pragma once
// Cuts a search into tiles = (query batch) x (database length partition).
//
// Sizing: a tile must keep the slowest worker busy,
// i.e. hold at least `fill_waves` x (concurrent alignments of the device) pairs; each
// worker gets `tiles_per_worker` tiles of about equal cost (queries packed largest first),
// because every tile ends in a tail where the device drains: on 4 H200s, 1 tile per GPU
// ran the 20-query benchmark at 15.6 TCUPS, 2 or 3 per GPU at 11.4 (HPCALIGN_TILES_PER_WORKER
// overrides it, for benchmarks). Large jobs still get many tiles, for dynamic balancing,
// progress and checkpoints: no tile holds more than `max_cells_per_lane` cells per
// concurrent alignment (~5 s on an H100/H200, ~0.5 s on a 2-core CPU). Queries are split
// first (the database stays resident on the device); the database is partitioned only
// when there are too few queries, or when a tile's score buffer would not fit the device.
#include <cstdint>
#include <utility>
#include <vector>

#include "io/database.hpp"
#include "src/core/sequence.hpp"
#include "src/core/tile.hpp"
#include "src/plan/device_capacity.hpp"

namespace hpc {

struct PlanOptions {
  int tiles_per_worker = 1;
  uint64_t max_cells_per_lane = 200'000'000;
  int fill_waves = 4;
  uint32_t max_query_batch = 1024;  // queries per tile at most
  // Residues added to each query's weight when batches are cut: work a query costs whatever its
  // length (its top hits, their alignments, statistics and rows, regress's fits). With it, the
  // tiles are handed out as order_small_database_tiles says.
  uint64_t query_weight = 0;
  // Every tile holds the whole database (search --stats regress on a database that is its own
  // calibration sample fits on a tile's own scores); the memory bound still applies.
  bool whole_database = false;
};

struct SearchPlan {
  std::vector<Tile> tiles;  // largest first by cells (LPT), ties by id; with query_weight, see below
  uint32_t query_batches = 0;
  uint32_t partitions = 0;
  uint64_t total_cells = 0;
  uint64_t min_tile_pairs = 0;  // the occupancy bound used
};

// Search workers per GPU: 1 for few queries (one tile per worker, kernels/cuda/NOTES.md: two
// workers gave no gain on 20 long queries x 207M residues), 4 when the queries fill many
// batches (short queries against themselves), so that the host work of some (fits, top hits,
// statistics, alignments, staging rows) overlaps the others' kernels (NOTES.md: 11,000
// domains against themselves, search phase 1.58 s with 2, 1.19 s with 4), 8 against at
// most kEightSearchWorkersDatabase subjects and kSmallDatabaseSearchWorkers against at most
// kSmallSearchDatabase.
int search_workers_per_gpu(const SequenceSet& queries, size_t db_sequences, const PlanOptions& opt = {});

// Eight search workers a GPU up to this many subjects, four above: one H100, all 57,592
// balifam1000 domains against themselves, search phase 21.91-21.97 s with eight against
// 23.99-24.74 s with four, once each worker's alignment engine took its share of the GPU's
// memory (before, eight workers ran it out of memory and split tiles: 34.1 s). Larger
// databases keep four (not measured with eight).
constexpr size_t kEightSearchWorkersDatabase = 65536;

// Many batches of queries against at most kSmallSearchDatabase subjects: a tile's GPU work is
// short against its host stages, and its buffers small, so eight workers a GPU with several
// tiles each keep the GPU busier (one H100, 11,000 balifam1000 domains against themselves: search
// phase 1.60 s against 1.93-1.96 s with four workers of about three tiles).
constexpr size_t kSmallSearchDatabase = 16384;
// There a query's host work (top hits, their alignments, statistics and rows, regress's fits)
// outweighs its scores: its batch weight is its length plus this many residues, so that tiles
// of short queries no longer hold 1,024 queries against ~100 of the longest, and finish last
// (same 11,000: phase 0.86-0.94 s with six tiles a worker, 0.91-1.05 s with four, against
// 1.02-1.12 s cut by residues alone; 110 and 1,000 a query: 0.93-1.03 s; NOTES.md).
constexpr int kSmallDatabaseTilesPerWorker = 6;
// Workers a GPU there: each one's chain of host stages and waits per tile is long against its
// kernels, and the GPU stood idle ~0.29 s of a 0.80 s phase with eight (the same 11,000, one H100,
// with each stream on a hardware queue of its own, kernels/device_environment.hpp: phase 0.750
// s and 0.790-0.792 s with twelve against 0.786-0.824 s and 0.823-0.864 s with eight, two calls).
constexpr int kSmallDatabaseSearchWorkers = 12;
constexpr uint64_t kSmallDatabaseQueryWeight = 300;
bool many_queries_small_database(const SequenceSet& queries, size_t db_sequences, const PlanOptions& opt = {});
// A tile's cost there, for its place in the hand-out order: its weight (residues plus
// query_weight a query) plus length^2 / kQuerySquareDivisor a query (a self-search's hits are of
// its query's length, so its alignments grow with the square: a fit of the tiles' times on an H100,
// kernels/cuda/NOTES.md), times the partition's residues.
constexpr uint64_t kQuerySquareDivisor = 300;
// The hand-out order with query_weight: the first wave (each worker's first tile and the one it
// queues ahead, 2 x workers tiles) the cheapest, cheapest first, then the others dearest first.
// Why: a first wave of dear tiles (scores of the longest queries) keeps every worker's first
// calibration waiting behind the others' look-ahead scores while the GPU then idles through their
// host stages at once; dearest first after it leaves the cheapest tiles for the tail (one H200,
// 11,000 balifam1000 domains against themselves: search phase 0.666-0.976 s against 0.715-1.038 s
// for the weight order, lower in 6 of 6 pairs; NOTES.md). Fewer than 3 x workers tiles: dearest first.
void order_small_database_tiles(std::vector<std::pair<uint64_t, Tile>>& costed, size_t workers);

// `caps` has one entry per worker; the smallest device bounds the tile size.
SearchPlan plan_search(const SequenceSet& queries, const Database& db, const std::vector<DeviceCapacity>& caps,
                       const PlanOptions& opt = {});

}  // namespace hpc
