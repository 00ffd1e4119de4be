#pragma once
// `--resume` for every tiled workload (search, allvsall, pss, msv). A run records its
// plan and parameters in the journal OUT.journal (io/tile_journal.hpp says why a journal and
// not the HDF5 ledger alone), then every finished tile's worker bytes, before they reach the
// HDF5 file. A resumed run refuses other parameters, reuses the stored plan (so another worker
// count or device runs the same tiles), replays the finished tiles' bytes into a fresh output
// exactly as if they had just arrived, and runs only the others: results are identical to an
// uninterrupted run whatever the instant of the kill.
//
// The driver (src/workloads/tiled_run.cpp) runs this protocol for every workload, on the
// master: construct before creating OUT, begin() once OUT exists, replay() the finished
// tiles, record() each new tile before it reaches OUT, complete() when OUT is complete.
// A tile too large for its device is replaced by smaller ones (src/workloads/tile_splits.hpp):
// record_split() journals that before the pieces run, and a resume applies every recorded
// split to the stored plan, so the pieces (not the tile they replace) are what it runs and
// replays, each once.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/tile_journal.hpp"
#include "src/core/tile.hpp"

namespace hpc {

// How the planner chose the tiles (window or batch sizes), written as integer attributes of
// the output; recorded with the plan so that a resumed run reports the tiles it really runs.
using PlanNotes = std::vector<std::pair<std::string, int64_t>>;
int64_t plan_note(const PlanNotes& notes, const std::string& name);  // 0 when absent

class ResumableRun {
 public:
  ResumableRun() = default;  // a run without an output (non-master ranks)
  // Call before creating the output (creating truncates it). Without `resume`, a new run.
  // With it: an existing OUT must be an unfinished hpcalign result and the journal's
  // parameters must equal `params` (plus the workload's name); with no journal, or one cut
  // off before its plan, the run starts afresh (so a requeued job can always pass --resume).
  // Throws hpc::Error for a complete output, a foreign file, or other parameters.
  ResumableRun(const std::string& workload, const std::string& out_path, bool resume, bool quiet,
               std::vector<checkpoint::RunParameter> params);

  bool resuming() const { return resuming_; }
  // The stored plan with the journalled splits applied: the tiles a resumed run works with.
  const std::vector<Tile>& stored_plan() const { return plan_; }
  const PlanNotes& stored_notes() const { return notes_; }

  // The tiles still to run of `plan` (every tile of a new run); what begin() will return.
  std::vector<Tile> to_run(const std::vector<Tile>& plan) const { return resuming_ ? remaining_ : plan; }
  // Once the output exists: stores the plan and parameters in it (/plan), creates the journal
  // of a new run, and returns the tiles still to run (every tile of a new run).
  std::vector<Tile> begin(h5::File& out, const std::vector<Tile>& plan, const PlanNotes& notes);
  // Keeps, of each finished tile, its first journal record for which keep(id, bytes) holds;
  // tiles without one are run again.
  void rerun_unless(const std::function<bool(uint32_t, const std::string&)>& keep);
  // How many tiles a resumed run found finished.
  size_t finished_count() const { return finished_.size(); }
  // Calls store(id, bytes) for every finished tile (resuming), in arrival order, as if it had
  // just arrived: read from the journal one at a time (a journal holds every result of a run).
  void replay(const std::function<void(uint32_t, const std::string&)>& store) const;
  uint64_t finished_cells() const { return finished_cells_; }
  // Journals a finished tile; call before writing it to the output.
  void record(const Tile& tile, const std::string& bytes);
  // Journals that tile `parent` is replaced by `pieces`; call before the pieces are handed out.
  void record_split(uint32_t parent, const std::vector<Tile>& pieces);
  // The output is complete: the journal goes.
  void complete();

 private:
  std::string out_path_;
  std::vector<checkpoint::RunParameter> params_;
  bool resuming_ = false;
  std::vector<Tile> plan_, remaining_;
  PlanNotes notes_;
  std::vector<TileJournal::TileRecord> finished_;
  std::vector<TileJournal::TileRecord> records_;  // every record of a planned tile, in journal order
  bool quiet_ = false;
  uint64_t finished_cells_ = 0;
  std::unique_ptr<TileJournal> journal_;
};

}  // namespace hpc
