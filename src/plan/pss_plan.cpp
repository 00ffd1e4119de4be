#include "src/plan/pss_plan.hpp"

#include <algorithm>
#include <numeric>

namespace hpc {

uint32_t pss_tile_subjects(uint64_t concurrent, uint32_t permutations) {
  return uint32_t(std::max<uint64_t>(1, concurrent / std::max<uint32_t>(1, permutations)));
}

PssPlan plan_pss(const SequenceSet& queries, const SequenceSet& subjects, uint32_t permutations,
                 uint64_t smallest_concurrent, uint32_t query_batch) {
  PssPlan plan;
  plan.tile_subjects = pss_tile_subjects(smallest_concurrent, permutations);
  plan.query_batch = std::min<uint32_t>(query_batch, uint32_t(queries.size()));
  const uint64_t copies = uint64_t(permutations) + 1;  // N permuted + the real one
  // Batches of queries of similar length (longest first): a launch then pairs queries that
  // pad little, so the packed scorer can take its conflict-free query-pair kernel.
  std::vector<uint32_t> by_length(queries.size());
  std::iota(by_length.begin(), by_length.end(), 0u);
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](uint32_t a, uint32_t b) { return queries.length(a) > queries.length(b); });
  for (uint32_t q0 = 0; q0 < by_length.size(); q0 += plan.query_batch) {
    Tile base;
    uint64_t qres = 0;
    for (uint32_t k = q0; k < std::min<size_t>(by_length.size(), q0 + plan.query_batch); ++k) {
      base.queries.push_back(by_length[k]);
      qres += queries.length(by_length[k]);
    }
    for (uint32_t s0 = 0; s0 < subjects.size(); s0 += plan.tile_subjects) {
      Tile t = base;
      t.part_begin = s0;
      t.part_end = uint32_t(std::min<size_t>(subjects.size(), size_t(s0) + plan.tile_subjects));
      uint64_t sres = 0;
      for (uint32_t s = t.part_begin; s < t.part_end; ++s) sres += subjects.length(s);
      t.cells = qres * sres * copies;  // scheduling weight: |q| x |s| x (N + 1)
      plan.tiles.push_back(std::move(t));
    }
  }
  number_largest_first(plan.tiles);
  return plan;
}

}  // namespace hpc
