#pragma once
// The default rule for cutting a tile that does not fit its device (the driver's out-of-memory
// splitting, src/workloads/tile_splits.hpp): halves of its queries first, else of its database
// partition. A workload whose tiles are shaped otherwise has its own rule (allvsall's diagonal
// tiles: src/plan/allvsall_plan.hpp).
#include <vector>

#include "src/core/tile.hpp"

namespace hpc {

// The two halves of `t` (its id; cells split in proportion, summing to t.cells), or none
// when the tile is a single query against a single database sequence.
std::vector<Tile> split_tile(const Tile& t);

}  // namespace hpc
