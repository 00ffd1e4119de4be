#pragma once
// Cuts a search into tiles = (query batch) x (database length partition).
//
// Sizing (DESIGN.md "Occupancy formulas"): a tile must keep the slowest worker busy,
// i.e. hold at least `fill_waves` x (concurrent alignments of the device) pairs; and
// there should be at least `tiles_per_worker` tiles per worker so that dynamic largest-
// first scheduling can balance uneven workers. Queries are split first (the database
// stays resident on the device across queries); the database is partitioned only when
// there are too few queries, or when a tile's score buffer would not fit the device.
#include <cstdint>
#include <vector>

#include "io/database.hpp"
#include "kernels/backend.hpp"
#include "src/core/sequence.hpp"
#include "src/plan/tile.hpp"

namespace hpc {

struct PlanOptions {
  int tiles_per_worker = 4;
  int fill_waves = 4;
  uint32_t max_query_batch = 1024;  // queries per tile at most
};

struct SearchPlan {
  std::vector<Tile> tiles;  // largest first (LPT), ties by id
  uint32_t query_batches = 0;
  uint32_t partitions = 0;
  uint64_t total_cells = 0;
  uint64_t min_tile_pairs = 0;  // the occupancy bound used
};

// `caps` has one entry per worker; the smallest device bounds the tile size.
SearchPlan plan_search(const SequenceSet& queries, const Database& db, const std::vector<DeviceCapacity>& caps,
                       const PlanOptions& opt = {});

}  // namespace hpc
