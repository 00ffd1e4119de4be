#include "src/workloads/search_oom.hpp"

#include <algorithm>
#include <iostream>

#include "src/plan/tile_split.hpp"

namespace hpc {

std::vector<std::vector<ScoredTarget>> search_tile_splitting_on_oom(SearchBackend& backend, const Tile& tile,
                                                                    uint32_t max_hits) {
  using Top = std::vector<std::vector<ScoredTarget>>;
  const std::function<Top(const Tile&)> run = [&](const Tile& t) { return backend.search_tile(t); };
  const std::function<Top(const Tile&, const Tile&, Top&&, const Tile&, Top&&)> merge =
      [&](const Tile& parent, const Tile& a, Top&& left, const Tile&, Top&& right) {
        if (a.queries.size() < parent.queries.size()) {  // split by queries: lists follow each other
          left.insert(left.end(), std::make_move_iterator(right.begin()), std::make_move_iterator(right.end()));
          return std::move(left);
        }
        // Split by partition: the same query's two top lists merge into one top-k.
        for (size_t k = 0; k < left.size(); ++k) {
          left[k].insert(left[k].end(), right[k].begin(), right[k].end());
          std::sort(left[k].begin(), left[k].end(), scored_target_order);
          if (left[k].size() > max_hits) left[k].resize(max_hits);
        }
        return std::move(left);
      };
  return run_splitting_on_oom<Top>(tile, run, merge, log_oom_split("queries", "targets"));
}

}  // namespace hpc
