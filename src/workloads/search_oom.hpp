#pragma once
// search_tile with out-of-memory recovery: a tile that does not fit the device is split
// in halves (queries, else partition) and retried (src/plan/tile_split.hpp).
#include <vector>

#include "kernels/backend.hpp"

namespace hpc {

// Same result as backend.search_tile(tile) (per query in tile.queries order, its top
// `max_hits` in scored_target_order), whatever splits were needed.
std::vector<std::vector<ScoredTarget>> search_tile_splitting_on_oom(SearchBackend& backend, const Tile& tile,
                                                                    uint32_t max_hits);

}  // namespace hpc
