#pragma once
// Sorted runs in plain files, written by the workers themselves (threads of a local run, ranks
// under MPI) next to the output: OUT.runs/w<worker>. A worker sorts its tile's rows in hit_order
// (query, score descending, target) and appends them as one record to its own file; only the
// record's place (a StagedRun, a few dozen bytes) travels to the master, which journals it and
// at the end merges every journalled run into /hits (io/run_merge.hpp, reads on all cores).
// So the master no longer decodes, sorts, copies or journals result rows, and the storing
// scales with the workers (one master was the limit of large screens).
//
// A record: header (magic "HPR1", tile id, rows, characters), then the columns one after the
// other (query, target, score, bits, evalue, qstart, qend, tstart, tend as 4- or 8-byte
// numbers, cigar_end as offsets into the record's characters), then the CIGAR characters.
// Rows with all coordinates zero and no CIGAR (a score-only run's) go as "HPS1" records of the
// first five columns only: 28 bytes a row written and read instead of 52.
// Files are opened for appending and never truncated while a run is unfinished: a resumed run
// (any worker count) appends after what earlier sessions wrote, whose journalled records stay
// where they are. A record cut short by a kill is never journalled (the worker sends its place
// only once it is written); `is_whole` checks a journalled record against its file on resume.
#include <cstdint>
#include <string>
#include <vector>

#include "io/run_file_io.hpp"
#include "io/run_merge.hpp"
#include "src/core/alignment.hpp"
#include "src/core/cigar_buffer.hpp"

namespace hpc {

// The directory of a run's files: OUT.runs.
std::string run_directory_for(const std::string& out_path);
// Creates the directory and removes the merges' runs an earlier session left there (never
// trusted: io/run_levels.hpp); with `empty`, the workers' run files too.
void prepare_run_directory(const std::string& dir, bool empty);
// The file name of a merge's n-th run (io/run_levels.hpp), and of the n-th merged while the
// tiles compute (BackgroundMerges).
std::string merged_run_name(uint64_t n);
std::string background_run_name(uint64_t n);
// Removes the run files, then the directory if nothing else is in it (the run is complete).
void remove_run_directory(const std::string& dir);

// Hits as run records (the record kind of src/workloads/tile_runs.hpp). StagedRun::extra: the
// record's CIGAR characters.
struct HitRecords {
  using Rows = std::vector<Hit>;
  // Sorts the tile's rows in hit_order and appends them to `file` as one record; returns its
  // place. The rows are left in an unspecified order. With `cigars`, row k's CIGAR is
  // cigars->at(k) (rows as they came, before the sort), not its own.
  StagedRun write(RecordFile& file, uint32_t tile, Rows& rows, const CigarBuffer* cigars = nullptr) const;
  // True when the record's header matches `run` and the file holds all of it.
  bool is_whole(const std::string& dir, const StagedRun& run) const;
};

// One sorted run of known size written by a merge (io/run_levels.hpp) into a file of its own,
// as one record: each piece's columns go to their places in it, the header last, so that a
// file cut short by a kill never holds a whole record. Removed unless finish() was reached.
// `scores_only`: the rows have no coordinates or CIGARs (every run merged was such), and only
// the score columns are written (a score-only record).
class MergedRunFile : public MergeOutput {
 public:
  MergedRunFile(const std::string& dir, std::string name, uint64_t rows, uint64_t chars, bool scores_only = false);
  ~MergedRunFile() override;
  MergedRunFile(const MergedRunFile&) = delete;
  MergedRunFile& operator=(const MergedRunFile&) = delete;
  void store(HitTableColumns& piece, const DeflatedHitTable&) override;
  // The record's header written; its place. Throws unless every row and character came.
  StagedRun finish();

 private:
  std::string name_, path_;
  uint64_t rows_, chars_, written_ = 0;
  int fd_ = -1;
  bool scores_only_, finished_ = false;
};

// The journalled runs, read by the merge (each file opened once; reads on all cores).
// With `release_merged`, a merged run's file (merged_run_name's, background_run_name's: never
// journalled, so a resume never reads it but makes it again from the workers' files) gives
// back the space of what the merge has consumed as it goes (holes punched by the segments'
// reading, overlapping the merge), so that removing gigabytes of them at the end is cheap. The
// workers' files are journalled: a resume after a killed merge reads them again, untouched.
class RunFiles : public SortedRuns {
 public:
  RunFiles(const std::string& dir, std::vector<StagedRun> runs, bool release_merged = false);
  ~RunFiles() override;
  RunFiles(const RunFiles&) = delete;
  RunFiles& operator=(const RunFiles&) = delete;
  void consumed(size_t r, uint64_t rows) const override;
  size_t count() const override { return runs_.size(); }
  uint64_t rows(size_t r) const override { return runs_[r].rows; }
  void read(size_t r, size_t column, uint64_t first, uint64_t n, void* out) const override;
  uint64_t chars_before(size_t r, uint64_t row) const override;
  void read_chars(size_t r, uint64_t first, uint64_t n, uint8_t* out) const override;
  bool concurrent_reads() const override { return true; }
  bool has_coordinates(size_t r) const override { return !scores_only_[r]; }

 private:
  void read_at(size_t r, uint64_t offset, uint64_t bytes, void* out) const;
  std::vector<StagedRun> runs_;
  std::vector<bool> scores_only_;  // records of rows without coordinates or CIGARs (their columns left out)
  RunFileHandles files_;     // opened in the constructor only: reads on all cores share them
  std::vector<int> run_fd_;  // the open file of each run
  // Merged runs whose space goes as the merge consumes it: a writable descriptor (-1: none, or
  // the file system punches no holes), and each column's bytes (the characters last) freed so far.
  mutable std::vector<int> release_fd_;
  mutable std::vector<std::vector<uint64_t>> released_;
};

}  // namespace hpc
