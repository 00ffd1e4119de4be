#pragma once
// Out-of-memory splitting, owned by the driver (src/workloads/tiled_run.cpp). A worker whose
// tile does not fit its device throws hpc::OutOfMemory; the scheduler reports it to the master
// (mpi/scheduler.hpp, on_too_large), which cuts the tile by the workload's rule
// (TiledWorkload::split) into pieces with fresh ids, journals the split (a resume runs the
// pieces, never the whole tile again: src/workloads/resume.hpp) and hands the pieces out
// next. Their results are stored like any tile's: every workload's output is a function of
// its pairs' results, not of the tiling, so it equals an unsplit run's.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/core/tile.hpp"

namespace hpc {

class TileSplits {
 public:
  // The workload's rule: the pieces that together hold exactly the work of a tile (cells
  // summing to its cells), or none when it cannot be cut.
  using Rule = std::function<std::vector<Tile>(const Tile&)>;
  TileSplits() = default;
  // `tiles`: the run's tiles (its plan, earlier splits applied); new ids follow the largest.
  TileSplits(Rule rule, const std::vector<Tile>& tiles);
  // The pieces replacing `tile` (ids assigned), said on stderr with `why` (the worker's
  // error); throws hpc::Error naming the tile when the rule cannot cut it.
  std::vector<Tile> split(const Tile& tile, const std::string& why);

 private:
  Rule rule_;
  uint32_t next_id_ = 0;
};

}  // namespace hpc
