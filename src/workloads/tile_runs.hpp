#pragma once
// How the workloads that write result rows (search, allvsall) get a tile's rows from its
// worker into the output without the master handling them: the worker sorts them into its
// own run file (io/run_files.hpp) and sends only the run's place, which the master journals
// and keeps; at the end the runs are merged into /hits on all cores (io/run_merge.hpp).
// A worker that cannot see the run directory (another node without the output's file
// system, or rank > 0 of a text-only run, whose HDF5 file is rank 0's temporary one) sends
// the rows themselves, which the master stages in a run file of its own.
//
// On the wire, after the workload's own fields: the seconds the worker spent staging, a kind
// byte, then the place or the rows.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/run_files.hpp"
#include "src/core/alignment.hpp"
#include "src/core/wire.hpp"

namespace hpc {

class ResultFile;

// A run parameter (io/checkpoint.hpp): the journal's tile records hold places in the workers'
// run files, so a journal of a build that journalled the rows themselves cannot be resumed.
checkpoint::RunParameter tile_rows_parameter();

// A worker's side: its run file.
class TileRunWriter {
 public:
  TileRunWriter(const std::string& out_path, int worker);
  // Stages the tile's rows (left in an unspecified order) and appends the staging seconds,
  // the kind and the place, or the rows where the run directory cannot be seen. With
  // `cigars`, row k's CIGAR is cigars->at(k) (RunFileWriter::write).
  void put(WireWriter& w, uint32_t tile, std::vector<Hit>& rows, const CigarBuffer* cigars = nullptr);

 private:
  std::string run_dir_;
  std::optional<bool> sees_run_dir_;
  RunFileWriter file_;
};

// A tile's rows as its worker sent them (the wire fields TileRunWriter::put wrote).
struct TileRun {
  double stage_seconds = 0;  // sorting the rows and writing them to the worker's run file
  bool inline_rows = false;
  StagedRun run;          // !inline_rows
  std::vector<Hit> rows;  // inline_rows
  static TileRun get(WireReader& r);
};

// The master's side: every finished tile's run, merged at the end.
class TileRuns {
 public:
  explicit TileRuns(const std::string& out_path) : run_dir_(run_directory_for(out_path)) {}
  // With the output: a new run starts with no run files, a resumed one keeps them (the
  // journal points into them).
  void prepare(bool resume) const { prepare_run_directory(run_dir_, !resume); }
  // --resume: whether a journalled tile's rows are still where its worker put them.
  bool replayable(const TileRun& t) const { return t.inline_rows || is_whole(run_dir_, t.run); }
  void store(uint32_t tile_id, TileRun& t);
  size_t count() const { return runs_.size(); }
  // Every run merged into `out`'s /hits by `rules` (rows kept per query, best first, and of
  // those the ones within max_evalue); then the run files go. Returns the rows written.
  // `verbose`: the merge's timing line, its stages included, on stderr.
  uint64_t finish(ResultFile& out, const MergeRules& rules = {}, bool verbose = false);

 private:
  std::string run_dir_;
  std::vector<StagedRun> runs_;
  std::unique_ptr<RunFileWriter> master_file_;  // rows that came inline
};

}  // namespace hpc
