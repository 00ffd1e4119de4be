#include "src/plan/search_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "src/core/tuning.hpp"

namespace hpc {
namespace {

// Splits positions [0, weights.size()) into min(parts, size) contiguous non-empty ranges of
// about equal weight; returns the cut points (first 0, last size).
std::vector<uint32_t> balanced_cuts(const std::vector<uint64_t>& weights, uint32_t parts) {
  const uint64_t n = weights.size();
  const uint64_t want = std::min<uint64_t>(parts, n);
  const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t(0));
  std::vector<uint32_t> cuts{0};
  uint64_t acc = 0;
  for (uint64_t i = 0; i + 1 < n && cuts.size() < want; ++i) {
    acc += weights[i];
    const uint64_t k = cuts.size();  // this cut would close part k
    // Cut at the weight goal, or when every later part needs one of the items left.
    if (acc * want >= total * k || n - (i + 1) <= want - k) cuts.push_back(static_cast<uint32_t>(i + 1));
  }
  cuts.push_back(static_cast<uint32_t>(n));
  return cuts;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : a; }

// Batches per worker from which the planner cuts contiguous length runs instead of LPT bins.
constexpr uint64_t kContiguousBatchesPerWorker = 3;

// Runs of the length order (longest first) of about total / bins weight (a query's residues
// plus `per_query`) and at most max_batch queries each (so possibly more than `bins`
// batches). Each batch holds similar
// lengths: the query-pair kernels pad less, and only the batch of the longest queries holds
// pairs beyond the row-group kernel's shared memory, which it stages in chunks (balifam1000
// against itself: every LPT batch held a few such queries). Used when there are many batches per
// worker, so the scheduler balances unequal tiles.
std::vector<std::vector<uint32_t>> cut_queries(const SequenceSet& queries, uint32_t bins, uint32_t max_batch,
                                               uint64_t per_query) {
  std::vector<uint32_t> order(queries.size());
  std::iota(order.begin(), order.end(), 0u);
  auto longer = [&](uint32_t a, uint32_t b) { return queries.length(a) > queries.length(b); };
  std::stable_sort(order.begin(), order.end(), longer);
  auto weight = [&](uint32_t q) { return queries.length(q) + per_query; };
  uint64_t total = 0;
  for (uint32_t q : order) total += weight(q);
  const uint64_t goal = ceil_div(total, std::max<uint32_t>(1, bins));
  std::vector<std::vector<uint32_t>> batches(1);
  uint64_t load = 0;
  for (uint32_t q : order) {
    if (!batches.back().empty() && (batches.back().size() >= max_batch || load + weight(q) > goal))
      batches.emplace_back(), load = 0;
    batches.back().push_back(q);
    load += weight(q);
  }
  for (auto& b : batches) std::stable_sort(b.rbegin(), b.rend(), longer);
  return batches;
}

// Packs queries into `bins` batches of about equal weight (residues plus `per_query` a query),
// largest query first into the lightest batch (LPT). Unlike contiguous length cuts, this balances sets with a few very
// long queries (the CUDASW++ set: 144..5,478 aa), which is what makes tiles of one worker
// each finish together. Each batch lists its queries by length, then index.
std::vector<std::vector<uint32_t>> pack_queries(const SequenceSet& queries, uint32_t bins, uint32_t max_batch,
                                                uint64_t per_query) {
  std::vector<uint32_t> order(queries.size());
  std::iota(order.begin(), order.end(), 0u);
  auto longer = [&](uint32_t a, uint32_t b) { return queries.length(a) > queries.length(b); };
  std::stable_sort(order.begin(), order.end(), longer);
  bins = std::max<uint32_t>(1, std::min<uint32_t>(bins, static_cast<uint32_t>(queries.size())));
  std::vector<std::vector<uint32_t>> batch(bins);
  std::vector<uint64_t> load(bins, 0);
  for (uint32_t q : order) {
    uint32_t best = UINT32_MAX;
    for (uint32_t b = 0; b < bins; ++b)
      if (batch[b].size() < max_batch && (best == UINT32_MAX || load[b] < load[best])) best = b;
    batch[best].push_back(q);
    load[best] += queries.length(q) + per_query;
  }
  for (auto& b : batch) std::stable_sort(b.rbegin(), b.rend(), longer);
  return batch;
}

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

  uint64_t total_cells = 0;
  for (size_t i = 0; i < nq; ++i) total_cells += queries.length(i);
  total_cells *= db.seqs.total_residues();
  const uint64_t cap_cells = std::max<uint64_t>(1, concurrent * opt.max_cells_per_lane);
  const uint64_t tiles_per_worker = tuning_number(Tunable::kTilesPerWorker).value_or(opt.tiles_per_worker);
  const uint64_t wanted_tiles =
      std::max<uint64_t>(workers == 1 ? 1 : workers * tiles_per_worker, ceil_div(total_cells, cap_cells));
  // Largest number of partitions that still fills the device: each needs min_tile_pairs targets.
  const uint64_t max_parts = std::max<uint64_t>(1, nt / std::max<uint64_t>(1, plan.min_tile_pairs));
  uint64_t batches = std::min<uint64_t>(nq, wanted_tiles);
  batches = std::max<uint64_t>(batches, ceil_div(nq, opt.max_query_batch));
  uint64_t parts = opt.whole_database ? 1 : std::min<uint64_t>(max_parts, ceil_div(wanted_tiles, batches));
  const bool contiguous = batches >= kContiguousBatchesPerWorker * workers;
  // Memory: a tile's score buffer (4 bytes per pair) must fit in a quarter of the device
  // (contiguous runs of short queries hold up to max_query_batch each).
  const uint64_t batch_queries = contiguous ? std::min<uint64_t>(nq, opt.max_query_batch) : ceil_div(nq, batches);
  const uint64_t pairs_per_tile = batch_queries * ceil_div(nt, parts);
  if (memory != UINT64_MAX && pairs_per_tile * 4 > memory / 4)
    parts = std::min<uint64_t>(nt, std::max(parts, ceil_div(pairs_per_tile * 16, memory)));

  std::vector<uint64_t> tweights(nt);
  for (size_t i = 0; i < nt; ++i) tweights[i] = db.seqs.length(db.by_length[i]);
  const auto qbatches =
      contiguous ? cut_queries(queries, static_cast<uint32_t>(batches), opt.max_query_batch, opt.query_weight)
                 : pack_queries(queries, static_cast<uint32_t>(batches), opt.max_query_batch, opt.query_weight);
  const auto tcuts = balanced_cuts(tweights, static_cast<uint32_t>(parts));
  plan.query_batches = static_cast<uint32_t>(qbatches.size());
  plan.partitions = static_cast<uint32_t>(tcuts.size() - 1);

  std::vector<uint64_t> part_residues(plan.partitions, 0);
  for (uint32_t p = 0; p < plan.partitions; ++p)
    for (uint32_t i = tcuts[p]; i < tcuts[p + 1]; ++i) part_residues[p] += tweights[i];

  // Largest first by cells, ties by id; with query_weight, by cost (order_small_database_tiles).
  std::vector<std::pair<uint64_t, Tile>> weighed;
  uint32_t id = 0;
  for (uint32_t b = 0; b < plan.query_batches; ++b) {
    uint64_t qres = 0, squares = 0;  // squares: each query's length^2 / kQuerySquareDivisor
    const std::vector<uint32_t>& batch = qbatches[b];
    for (uint32_t q : batch) {
      const uint64_t len = queries.length(q);
      qres += len;
      squares += len * len / kQuerySquareDivisor;
    }
    const uint64_t qweight = opt.query_weight ? qres + opt.query_weight * batch.size() + squares : qres;
    for (uint32_t p = 0; p < plan.partitions; ++p) {
      Tile t;
      t.id = id++;
      t.queries = batch;
      t.part_begin = tcuts[p];
      t.part_end = tcuts[p + 1];
      t.cells = qres * part_residues[p];
      plan.total_cells += t.cells;
      weighed.emplace_back(qweight * part_residues[p], std::move(t));
    }
  }
  if (opt.query_weight)
    order_small_database_tiles(weighed, workers);
  else
    std::stable_sort(weighed.begin(), weighed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& w : weighed) plan.tiles.push_back(std::move(w.second));
  return plan;
}

void order_small_database_tiles(std::vector<std::pair<uint64_t, Tile>>& costed, size_t workers) {
  auto dearer = [](const auto& a, const auto& b) { return a.first > b.first; };
  std::stable_sort(costed.begin(), costed.end(), dearer);  // ties by id (the plan's order)
  const size_t wave = 2 * workers;
  if (costed.size() < 3 * workers) return;
  // The last `wave` (the cheapest) to the front, cheapest first; ties keep their id order.
  std::stable_sort(costed.end() - wave, costed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::rotate(costed.begin(), costed.end() - wave, costed.end());
}

// Queries that fill several batches (short queries against themselves, a proteome).
static bool many_queries(const SequenceSet& queries, const PlanOptions& opt) {
  return queries.size() >= 4 * uint64_t(opt.max_query_batch);
}

bool many_queries_small_database(const SequenceSet& queries, size_t db_sequences, const PlanOptions& opt) {
  return many_queries(queries, opt) && db_sequences <= kSmallSearchDatabase;
}

int search_workers_per_gpu(const SequenceSet& queries, size_t db_sequences, const PlanOptions& opt) {
  if (!many_queries(queries, opt)) return 1;
  if (db_sequences <= kSmallSearchDatabase) return kSmallDatabaseSearchWorkers;
  return db_sequences <= kEightSearchWorkersDatabase ? 8 : 4;
}

}  // namespace hpc
