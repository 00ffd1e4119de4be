#pragma once
// How a tile's result rows get from its worker into the output without the master handling
// them, for every workload that writes rows: the worker sorts them into its own run file and
// sends only the record's place, which the master journals and keeps; at the end the runs are
// merged into the output. One plumbing, two record kinds: hits (search, allvsall;
// io/run_files.hpp, merged into /hits on all cores by io/run_merge.hpp) and fixed-width rows
// (pss, msv; io/row_runs.hpp, merged by the table's key).
// A worker that cannot see the run directory (another node without the output's file
// system, or rank > 0 of a text-only run, whose HDF5 file is rank 0's temporary one) sends
// the rows themselves, which the master stages in a run file of its own.
//
// On the wire, after the workload's own fields: the seconds the worker spent staging, a kind
// byte, then the place or the rows.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/row_runs.hpp"
#include "io/run_files.hpp"
#include "src/core/wire.hpp"

namespace hpc {

class ResultFile;
class BackgroundMerges;

// A run parameter (io/checkpoint.hpp): the journal's tile records hold places in the workers'
// run files, in this build's form, so a journal of a build that journalled the rows themselves
// or other places cannot be resumed.
checkpoint::RunParameter tile_rows_parameter();

// A worker's side: its run file. `Records`: HitRecords or RowSchema.
template <class Records>
class TileRunWriter {
 public:
  TileRunWriter(const std::string& out_path, int worker, Records records = {});
  // Stages the tile's rows (hits are left in an unspecified order) and appends the staging
  // seconds, the kind and the place, or the rows where the run directory cannot be seen.
  // `cigars` (hits only): row k's CIGAR is cigars->at(k) (HitRecords::write).
  void put(WireWriter& w, uint32_t tile, typename Records::Rows& rows, const CigarBuffer* cigars = nullptr);

 private:
  Records records_;
  std::string run_dir_;
  std::optional<bool> sees_run_dir_;
  RecordFile file_;
};

// A tile's rows as its worker sent them (the wire fields TileRunWriter::put wrote).
template <class Records>
struct TileRun {
  double stage_seconds = 0;  // sorting the rows and writing them to the worker's run file
  bool inline_rows = false;
  StagedRun run;                  // !inline_rows
  typename Records::Rows rows{};  // inline_rows
  static TileRun get(WireReader& r);
};

// The master's side: every finished tile's run, merged at the end (merge_tile_runs).
template <class Records>
class TileRuns {
 public:
  TileRuns(const std::string& out_path, Records records = {});
  // With the output: a new run starts with no run files, a resumed one keeps them (the
  // journal points into them).
  void prepare(bool resume) const { prepare_run_directory(run_dir_, !resume); }
  // --resume: whether a journalled tile's rows are still where its worker put them.
  bool replayable(const TileRun<Records>& t) const { return t.inline_rows || records_.is_whole(run_dir_, t.run); }
  void store(uint32_t tile_id, TileRun<Records>& t);
  // Rows of the tiles stored so far.
  uint64_t rows() const { return rows_; }
  const std::vector<StagedRun>& runs() const { return runs_; }
  const std::string& directory() const { return run_dir_; }
  const Records& records() const { return records_; }
  // Once the output is complete: the run files go (until then a resume needs them).
  void remove() const { remove_run_directory(run_dir_); }

 private:
  Records records_;
  std::string run_dir_;
  std::vector<StagedRun> runs_;
  uint64_t rows_ = 0;
  RecordFile master_file_;  // rows that came inline, opened at the first
};

// Every run merged into `out`'s /hits by `rules` (rows kept per query, best first, and of
// those the ones within max_evalue); then the run files go. Returns the rows written.
// `verbose`: the merge's timing line, its stages included, on stderr.
// `background`: the runs come from it (BackgroundMerges::finish: groups of them merged while
// the tiles computed), not from `runs`.
uint64_t merge_tile_runs(const TileRuns<HitRecords>& runs, ResultFile& out, const MergeRules& rules = {},
                         bool verbose = false, BackgroundMerges* background = nullptr);
// Every run merged by the key into `out`'s columns of the schema (the run files stay until
// TileRuns::remove).
uint64_t merge_tile_runs(const TileRuns<RowSchema>& runs, h5::File& out);

}  // namespace hpc
