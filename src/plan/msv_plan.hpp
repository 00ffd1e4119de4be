#pragma once
// The tiles of `hpcalign msv`: (model batch) x (database partition). Models are sorted by
// length and batched within a length class of the GPU kernel (at most 8 a batch: one launch
// scores them all); the length-sorted database is cut into partitions of about equal residues,
// 4 per worker, or fewer where the models make many batches (about 28 tiles a worker; a model
// library such as Pfam: each tile holds the whole database), so that batches of different cost
// balance (largest first).
#include <cstdint>
#include <vector>

#include "io/database.hpp"
#include "src/core/tile.hpp"

namespace hpc {

struct MsvPlan {
  std::vector<Tile> tiles;  // queries: model indices; part: positions in db.by_length
  uint32_t partitions = 0, model_batches = 0;
};

// Tiles a worker the database cuts aim at (hmmsearch's 22 models on one GPU, 16 workers: tuned).
constexpr size_t kMsvTilesPerWorker = 28;

// Model batches a worker from which the batches alone balance the workers, min_partitions then
// ignored. hmmsearch on 2 GPUs (32 workers): 2,000 models (8 batches a worker, tiles of the
// whole 207 M-residue database) needed one cut a GPU, their last tiles otherwise up to 0.7 s
// apart (2 H100s); 20,000 models against 11 M residues (78 a worker, tiles of ~45 ms; 2 H200s)
// gained nothing from it but every batch's per-tile costs twice (MSV calls 22.7 s against 16.7,
// the workers' waits for the filters 46.6 s against 31.8; tile phase 3.56-3.85 s, 3.38-3.56 s).
constexpr size_t kBatchesThatBalance = 16;

// model_lengths[m]: model m's nodes (M). A tile's cells: sum M x target residues.
// HPCALIGN_TILES_PER_WORKER overrides tiles_per_worker. min_partitions: the database cut into at
// least that many (at most one a target) where the models make fewer than kBatchesThatBalance
// batches a worker.
MsvPlan plan_msv(const std::vector<int>& model_lengths, const Database& db, size_t workers,
                 size_t tiles_per_worker = kMsvTilesPerWorker, size_t min_partitions = 1);

}  // namespace hpc
