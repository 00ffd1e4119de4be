#pragma once
// pss's and msv's rows from worker to output the way tile_runs.hpp takes search's and
// allvsall's hits: the worker sorts a tile's rows into its own run file (io/row_runs.hpp) and
// sends only the run's place, which the master journals and keeps; at the end the runs are
// merged by the table's key into its columns. A worker that cannot see the run directory
// (another node, or rank > 0 of a text-only run) sends the rows, which the master stages in a
// run file of its own.
//
// On the wire, after the workload's own fields: a kind byte, then the place or the rows.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/row_runs.hpp"
#include "src/core/wire.hpp"

namespace hpc {

// A worker's side: its run file.
class TileRowWriter {
 public:
  TileRowWriter(const std::string& out_path, int worker, const RowSchema& schema);
  // Stages the tile's packed rows and appends the kind and the place, or the rows where the
  // run directory cannot be seen.
  void put(WireWriter& w, uint32_t tile, const std::string& packed);

 private:
  std::string run_dir_;
  std::optional<bool> sees_run_dir_;
  RowRunWriter file_;
};

// A tile's rows as its worker sent them (the wire fields TileRowWriter::put wrote).
struct TileRows {
  bool inline_rows = false;
  RowRun run;          // !inline_rows
  std::string packed;  // inline_rows
  static TileRows get(WireReader& r);
};

// The master's side: every finished tile's run, merged at the end.
class TileRowRuns {
 public:
  TileRowRuns(const std::string& out_path, RowSchema schema);
  // With the output: a new run starts with no run files, a resumed one keeps them.
  void prepare(bool resume) const;
  // --resume: whether a journalled tile's rows are still where its worker put them.
  bool replayable(const TileRows& t) const;
  void store(uint32_t tile_id, const TileRows& t);
  // Rows of the tiles stored so far.
  uint64_t rows() const { return rows_; }
  // Every run merged into `out`'s columns of the schema.
  void merge_into(h5::File& out);
  // Once the output is complete: the run files go (until then a resume needs them).
  void remove() const;

 private:
  std::string run_dir_;
  RowSchema schema_;
  std::vector<RowRun> runs_;
  uint64_t rows_ = 0;
  std::unique_ptr<RowRunWriter> master_file_;  // rows that came inline
};

}  // namespace hpc
