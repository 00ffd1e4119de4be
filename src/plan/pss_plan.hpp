#pragma once
// The tiles of `hpcalign pss`: (query batch) x (T subjects, each permuted N times), where
// T = floor(concurrent / N) fills the smallest worker's device (compute units x resident
// alignments), at least 1. A batch of queries lets each subject's N permutations be made once
// per tile and shared by all its queries; scores do not depend on the tiling.
#include <cstdint>
#include <vector>

#include "src/core/sequence.hpp"
#include "src/core/tile.hpp"

namespace hpc {

struct PssPlan {
  std::vector<Tile> tiles;  // largest first, ids in that order
  uint32_t tile_subjects = 1;
  uint32_t query_batch = 1;
};

// Subjects per tile for one worker: floor(concurrent / N), at least 1.
uint32_t pss_tile_subjects(uint64_t concurrent, uint32_t permutations);

// Queries batched by similar length (longest first), every batch against runs of
// tile_subjects subjects; a tile's cells are |q| x |s| x (N + 1), its scheduling weight.
PssPlan plan_pss(const SequenceSet& queries, const SequenceSet& subjects, uint32_t permutations,
                 uint64_t smallest_concurrent, uint32_t query_batch);

}  // namespace hpc
