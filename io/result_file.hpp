#pragma once
// HDF5 result sink (rank 0 only; serial HDF5). Layout (README.md, "Result file"):
//   attributes on '/': program, version, command_line, workload, matrix, gap_open,
//     gap_extend, backend, db_sequences, db_residues, tile sizes, start_time, end_time,
//     status ("incomplete" until finish() succeeds, then "complete")
//   /queries/{id,length}  /targets/{id,length}
//   /hits/{query,target,score,bits,evalue,qstart,qend,tstart,tend,identity,cigar_end,cigar_chars}
//     query/target are indices into /queries and /targets; coordinates 1-based inclusive;
//     the CIGARs one ragged column (io/hit_table.hpp).
//   /staging/hits/... the same columns (no identity) plus 'tile': rows of finished tiles, one
//     sorted run per batch, for a look at an unfinished run (`view`) and the final merge
//     (io/run_merge.hpp); /hits replaces them when the run completes.
//   /tiles/{id,status}: the ledger of finished tiles (written in the same flush as their rows).
//   finish() writes the final sorted /hits and removes /staging and /tiles: run state, like
//   the resume journal, which goes at the same time. finish_merged() builds /hits from the
//   staged runs instead, in bounded memory, into a fresh file without the run state.
// Every dataset is 1-D, chunked (/hits shuffled and deflated), extendible: readable by h5py/pandas.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "io/run_merge.hpp"
#include "src/core/alignment.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

namespace h5 {
class File;
}

class ResultFile {
 public:
  enum class OpenMode {
    kCreate,  // creates (truncates) the file, status "incomplete"
    kResume,  // reopens the file of an unfinished run (--resume): status must be "incomplete";
              // the ledger is recovered (io/checkpoint.hpp) and a /hits cut short is dropped
  };
  // Creates (truncates) `path`, status "incomplete". Throws hpc::Error naming the path
  // if it cannot be created.
  explicit ResultFile(const std::string& path);
  ResultFile(const std::string& path, OpenMode mode);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;

  void set_attribute(const std::string& name, const std::string& value);
  void set_attribute(const std::string& name, int64_t value);
  void set_attribute(const std::string& name, double value);

  // group: "queries" or "targets".
  void write_sequences(const std::string& group, const SequenceSet& seqs);
  // Appends one finished tile: its rows to /staging/hits and its id to /tiles, then flushes.
  void append_tile(uint32_t tile_id, const std::vector<Hit>& hits);
  // The same with the rows made by `rows()` when they are written (in batch mode on the
  // writer thread: decoding a worker's result need not hold up the master); `bytes`: the
  // memory `rows` holds until then (batch mode bounds what waits: see stage_in_batches).
  void append_tile_lazily(uint32_t tile_id, std::function<std::vector<Hit>()> rows, size_t bytes);
  // From now on append_tile gathers tiles in memory and writes them together (rows, ledger,
  // flush) on a background thread once 256 tiles wait or `seconds` have passed since the
  // last write, unless the thread is still writing the previous batch (the tiles then wait
  // for the next, up to 8 MiB of them: past that, appending waits for the disk). Every other call, and the destructor,
  // first waits for that thread; mark_stopped() and the destructor write what waits,
  // finish() drops it (see finish). For runs whose tile journal
  // (io/tile_journal.hpp) is what a resume trusts: a screen delivers millions of rows in
  // hundreds of tiles, and one flush per tile cost more than computing them.
  void stage_in_batches(double seconds);
  // The run is over and the caller will finish(): the staging batch in flight stops at its
  // next tile, column or piece of the CIGAR column, and the tiles still waiting are dropped,
  // so later calls (attributes, finish) do not wait for staging rows that /hits supersedes.
  // A file left here stays "incomplete" and resumable (the journal is what a resume trusts).
  void end_staging();
  // Writes /hits (already final: sorted and cut by the caller), sets end_time and status
  // "complete", removes /staging and /tiles (staging rows not yet written are dropped:
  // end_staging), flushes and closes.
  void finish(const std::vector<Hit>& final_hits);
  // Finishes from the staging rows, in bounded memory: every tile's rows were staged as a
  // sorted run; a k-way merge (io/run_merge.hpp) reads the runs in bounded segments and writes /hits in hit_order
  // (query, score descending, target), keeping at most `max_per_query` rows of a query
  // (0: all) and of those only the rows with E-value <= `max_evalue`, into a fresh file (attributes, /queries, /targets, /plan copied) that then
  // replaces this one: the space of the staging rows goes with it (HDF5 does not reclaim the
  // space of deleted datasets). A crash before the rename leaves this file unfinished and
  // resumable. Returns the rows written.
  uint64_t finish_merged(uint32_t max_per_query = 0, double max_evalue = std::numeric_limits<double>::infinity());
  // The same from runs staged elsewhere (the workers' run files, io/run_files.hpp), by `rules`
  // (rows kept per query and E-value; the merge's stage times added to rules.times where given).
  uint64_t finish_merged(const SortedRuns& runs, const MergeRules& rules = {});
  // Sorted runs staged so far (what finish_merged will merge).
  size_t staged_runs() const;
  const std::string& path() const { return path_; }

  // Resume support (--resume after a kill or a graceful stop).
  // Tiles whose rows and ledger entry are on disk (kResume; empty for a new file).
  const std::vector<uint32_t>& finished_tiles() const;
  // The staging rows of those tiles, in arrival order.
  std::vector<Hit> finished_hits() const;
  // Records that a signal stopped the run (attribute stopped_by_signal), status stays
  // "incomplete", flushes: the file is ready for --resume.
  void mark_stopped(const std::string& signal_name);
  // The underlying file, for io/checkpoint.hpp (plan and parameters).
  h5::File& h5_file();

 private:
  uint64_t finish_merged_from(const SortedRuns* runs, const MergeRules& rules);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
};

// Read side (view, tests, merge).
struct HitTable {
  std::vector<std::string> query_ids, target_ids;
  std::vector<uint32_t> query_lengths, target_lengths;
  std::vector<Hit> hits;
  std::string status;  // "complete" / "incomplete"
};
HitTable read_hit_table(const std::string& path, const std::string& group = "hits");
std::string read_string_attribute(const std::string& path, const std::string& name);

}  // namespace hpc
