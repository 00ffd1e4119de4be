#include "src/plan/msv_plan.hpp"

#include <algorithm>

#include "src/core/tuning.hpp"

namespace hpc {
namespace {

// Cuts the length-sorted database into `parts` runs of about equal residues.
std::vector<std::pair<uint32_t, uint32_t>> partitions(const Database& db, size_t parts) {
  const uint64_t total = std::max<uint64_t>(1, db.seqs.total_residues());
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint32_t begin = 0;
  uint64_t acc = 0;
  for (uint32_t i = 0; i < db.by_length.size(); ++i) {
    acc += db.seqs.length(db.by_length[i]);
    if (acc * parts >= total * (out.size() + 1) || i + 1 == db.by_length.size()) {
      out.push_back({begin, i + 1});
      begin = i + 1;
    }
  }
  return out;
}

// Models per tile at most: one GPU launch scores them all against the tile's targets.
constexpr size_t kModelsPerTile = 8;

// The GPU kernel's length classes (kernels/cuda/msv_kernels.cu: 128-node chunks, compiled for
// 1, 2, 3, 4, 6, 8, 12, 16, 24, 32 chunks): models of one class share a launch without padding
// past the class, so a batch never pays a longer model's chunk count.
int length_class(int M) {
  int c = 0;
  for (int chunks : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}) {
    if (M <= 128 * chunks) return c;
    ++c;
  }
  return c;
}

}  // namespace

// Tiles per worker (kMsvTilesPerWorker): hmmsearch's 22 models (7 batches) were tuned with 4
// partitions a worker, 28 tiles a worker; more batches need fewer cuts for the same balance,
// and each cut only adds launches (and host work per launch) for the same cells.
MsvPlan plan_msv(const std::vector<int>& model_lengths, const Database& db, size_t workers, size_t tiles_per_worker,
                 size_t min_partitions) {
  std::vector<uint32_t> order(model_lengths.size());
  for (uint32_t m = 0; m < order.size(); ++m) order[m] = m;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return model_lengths[a] < model_lengths[b]; });
  std::vector<std::vector<uint32_t>> batches;
  for (uint32_t m : order) {
    if (batches.empty() || batches.back().size() == kModelsPerTile ||
        length_class(model_lengths[batches.back().front()]) != length_class(model_lengths[m]))
      batches.emplace_back();
    batches.back().push_back(m);
  }
  // 4 partitions a worker at most; fewer where the model batches alone give the workers their
  // tiles (a model library against a proteome, hmmscan's shape: Pfam's ~2,500 batches keep
  // the whole sequence set in each tile, a launch of 8 models against all of it).
  const size_t w = std::max<size_t>(1, workers), nb = std::max<size_t>(1, batches.size());
  const size_t per_worker = size_t(tuning_number(Tunable::kTilesPerWorker).value_or(tiles_per_worker));
  const size_t floor = nb < kBatchesThatBalance * w ? min_partitions : 1;
  const size_t parts = std::min(db.seqs.size(), std::max(floor, std::min(4 * w, (per_worker * w + nb - 1) / nb)));
  const auto cuts = partitions(db, std::max<size_t>(1, parts));
  // Each cut's residues once, not once a batch: a random length lookup a target, which a model
  // library's thousands of batches made seconds of the master's time before the first tile.
  std::vector<uint64_t> residues;
  for (const auto& [b, e] : cuts) {
    uint64_t res = 0;
    for (uint32_t p = b; p < e; ++p) res += db.seqs.length(db.by_length[p]);
    residues.push_back(res);
  }
  MsvPlan plan;
  for (const auto& batch : batches) {
    uint64_t nodes = 0;
    for (uint32_t m : batch) nodes += uint64_t(model_lengths[m]);
    for (size_t c = 0; c < cuts.size(); ++c) {
      Tile t;
      t.queries = batch;
      t.part_begin = cuts[c].first;
      t.part_end = cuts[c].second;
      t.cells = residues[c] * nodes;
      plan.tiles.push_back(std::move(t));
    }
  }
  number_largest_first(plan.tiles);
  plan.partitions = uint32_t(cuts.size());
  plan.model_batches = uint32_t(batches.size());
  return plan;
}

}  // namespace hpc
