#include "src/plan/search_plan.hpp"

#include <algorithm>
#include <numeric>

namespace hpc {
namespace {

// Splits positions [0, weights.size()) into `parts` contiguous ranges of about equal weight.
std::vector<uint32_t> balanced_cuts(const std::vector<uint64_t>& weights, uint32_t parts) {
  const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t(0));
  std::vector<uint32_t> cuts{0};
  uint64_t acc = 0;
  for (uint32_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    const uint64_t goal = total * cuts.size() / parts;
    if (acc >= goal && cuts.size() < parts && i + 1 < weights.size()) cuts.push_back(i + 1);
  }
  cuts.push_back(static_cast<uint32_t>(weights.size()));
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

}  // namespace

SearchPlan plan_search(const SequenceSet& queries, const Database& db, const std::vector<DeviceCapacity>& caps,
                       const PlanOptions& opt) {
  SearchPlan plan;
  const size_t nq = queries.size(), nt = db.seqs.size();
  if (nq == 0 || nt == 0) return plan;
  const size_t workers = std::max<size_t>(1, caps.size());

  // The weakest device sets the fill bound and the memory bound.
  uint64_t concurrent = UINT64_MAX, memory = UINT64_MAX;
  for (const auto& c : caps) {
    concurrent = std::min(concurrent, std::max<uint64_t>(1, c.concurrent()));
    if (c.memory_bytes) memory = std::min(memory, c.memory_bytes);
  }
  if (caps.empty()) concurrent = 1;
  plan.min_tile_pairs = concurrent * uint64_t(opt.fill_waves);

  // Query order: by length, so a batch holds similar lengths.
  std::vector<uint32_t> qorder(nq);
  std::iota(qorder.begin(), qorder.end(), 0u);
  std::stable_sort(qorder.begin(), qorder.end(), [&](uint32_t a, uint32_t b) { return queries.length(a) < queries.length(b); });

  const uint64_t wanted_tiles = workers * uint64_t(opt.tiles_per_worker);
  // Largest number of partitions that still fills the device: each needs min_tile_pairs targets.
  const uint64_t max_parts = std::max<uint64_t>(1, nt / std::max<uint64_t>(1, plan.min_tile_pairs));
  uint64_t batches = std::min<uint64_t>(nq, wanted_tiles);
  batches = std::max<uint64_t>(batches, ceil_div(nq, opt.max_query_batch));
  uint64_t parts = std::min<uint64_t>(max_parts, ceil_div(wanted_tiles, batches));
  // Memory: a tile's score buffer (4 bytes per pair) must fit in a quarter of the device.
  const uint64_t pairs_per_tile = ceil_div(nq, batches) * ceil_div(nt, parts);
  if (memory != UINT64_MAX && pairs_per_tile * 4 > memory / 4)
    parts = std::min<uint64_t>(nt, std::max(parts, ceil_div(pairs_per_tile * 16, memory)));

  std::vector<uint64_t> qweights(nq), tweights(nt);
  for (size_t i = 0; i < nq; ++i) qweights[i] = queries.length(qorder[i]);
  for (size_t i = 0; i < nt; ++i) tweights[i] = db.seqs.length(db.by_length[i]);
  const auto qcuts = balanced_cuts(qweights, static_cast<uint32_t>(batches));
  const auto tcuts = balanced_cuts(tweights, static_cast<uint32_t>(parts));
  plan.query_batches = static_cast<uint32_t>(qcuts.size() - 1);
  plan.partitions = static_cast<uint32_t>(tcuts.size() - 1);

  std::vector<uint64_t> part_residues(plan.partitions, 0);
  for (uint32_t p = 0; p < plan.partitions; ++p)
    for (uint32_t i = tcuts[p]; i < tcuts[p + 1]; ++i) part_residues[p] += tweights[i];

  uint32_t id = 0;
  for (uint32_t b = 0; b < plan.query_batches; ++b) {
    uint64_t qres = 0;
    std::vector<uint32_t> batch(qorder.begin() + qcuts[b], qorder.begin() + qcuts[b + 1]);
    for (uint32_t q : batch) qres += queries.length(q);
    for (uint32_t p = 0; p < plan.partitions; ++p) {
      Tile t;
      t.id = id++;
      t.queries = batch;
      t.part_begin = tcuts[p];
      t.part_end = tcuts[p + 1];
      t.cells = qres * part_residues[p];
      plan.total_cells += t.cells;
      plan.tiles.push_back(std::move(t));
    }
  }
  std::stable_sort(plan.tiles.begin(), plan.tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  return plan;
}

}  // namespace hpc
