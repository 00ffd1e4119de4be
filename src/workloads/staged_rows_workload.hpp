#pragma once
// The master's side of every workload whose workers stage their result rows in run files
// (tile_runs.hpp: search, allvsall, pss, msv): the journal holds each tile's run place, a
// journalled tile replays on --resume while its run is whole, and a stored tile's run is kept
// for the final merge. The workload says how its tile bytes decode and what it keeps of a
// tile besides its rows (times, counters).

#include <cstdint>
#include <string>
#include <utility>

#include "src/workloads/tile_runs.hpp"
#include "src/workloads/tiled_run.hpp"

namespace hpc {

// Result: the workload's decoded tile bytes, holding `TileRun<Records> rows`.
template <class Records, class Result>
class StagedRowsWorkload : public TiledWorkload {
 public:
  explicit StagedRowsWorkload(const std::string& out_path, Records records = {})
      : runs_(out_path, std::move(records)) {}

  bool results_outside_journal() const final { return true; }
  bool replayable(uint32_t, const std::string& bytes) const final { return runs_.replayable(decode(bytes).rows); }
  void store(uint32_t tile_id, const std::string& bytes, bool replayed) final {
    Result r = decode(bytes);
    runs_.store(tile_id, r.rows);
    stored(r, replayed);
  }

 protected:
  virtual Result decode(const std::string& bytes) const = 0;
  // After the tile's run is kept. `replayed`: its bytes are an earlier run's (its times were
  // that run's, its counters are still this output's).
  virtual void stored(const Result& tile, bool replayed) = 0;

  TileRuns<Records> runs_;  // every finished tile's, in the workers' run files
};

}  // namespace hpc
