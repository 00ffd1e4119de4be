#pragma once
// Out-of-memory recovery for any tiled workload: a tile that does not fit the device is
// cut in halves (its queries first, else its database partition) and the halves are run
// and merged, recursively, before the worker gives up.
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "src/core/error.hpp"
#include "src/core/tile.hpp"

namespace hpc {

// The two halves of `t` (same id; cells split in proportion), or nothing when the tile
// is a single query against a single database sequence.
std::optional<std::pair<Tile, Tile>> split_tile(const Tile& t);

// An on_split for run_splitting_on_oom that says on stderr "out of memory on tile N (Q
// `queries`, P `part`): splitting it in halves" (queries: "models"; part: "targets", ...).
std::function<void(const Tile&)> log_oom_split(const std::string& queries, const std::string& part);

// Runs `run(tile)`; on hpc::OutOfMemory splits the tile and runs the halves, combining
// their results with `merge(parent, left, left_result, right, right_result)`.
// Rethrows OutOfMemory (naming the tile) when a single pair still does not fit.
// `on_split` (optional) is told about every split, for logs and tests.
template <class R>
R run_splitting_on_oom(const Tile& tile, const std::function<R(const Tile&)>& run,
                       const std::function<R(const Tile&, const Tile&, R&&, const Tile&, R&&)>& merge,
                       const std::function<void(const Tile&)>& on_split = {}) {
  try {
    return run(tile);
  } catch (const OutOfMemory& e) {
    auto halves = split_tile(tile);
    if (!halves)
      throw OutOfMemory("tile " + std::to_string(tile.id) + " does not fit the device even as a single pair: " +
                        e.what());
    if (on_split) on_split(tile);
    R left = run_splitting_on_oom(halves->first, run, merge, on_split);
    R right = run_splitting_on_oom(halves->second, run, merge, on_split);
    return merge(tile, halves->first, std::move(left), halves->second, std::move(right));
  }
}

}  // namespace hpc
