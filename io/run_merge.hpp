#pragma once
// The final merge of a result file's staged runs (io/result_file.hpp, finish_merged): each run
// is sorted in hit_order (query, score descending, target); the merge writes the table in that
// order in bounded memory and on every core.
//
// How: the runs' query columns (and CIGAR ends) are read once to count rows and characters per
// query, which cuts the query range into segments that the merge's memory budget holds
// (MergeRules::memory: two segments read, four merged tables; a query with more rows is a
// segment of its own: memory is bounded by the rows of the busiest query, at most one per
// target), and once
// more to find where each segment starts in every run. Each segment's rows are then read with
// one call per column and run (large contiguous reads), merged on all cores (the segment cut
// again by query, every part its queries' rows bucketed and sorted) and appended to the output with the
// numbers deflated on all cores. The stages overlap: segment s+1 is read, segments s-1 and s-2
// deflated and s-3 stored while segment s merges (two segments and four merged tables in
// memory). Every stage runs on all the job's CPUs (all_usable_cores: a merge owns the host).
// Rows are identical for any number of cores and runs.
// A merge that keeps every row from run files (allvsall's final, intermediate and background
// merges; not search's cut) instead cuts the output into ranges of whole chunks, each read,
// merged and deflated start to end on one of the job's threads while the caller's stores them
// in order (run_merge.cpp, merge_ranges): no per-segment barriers on one thread's path. A
// query's rows split between ranges are cut by rank in every run, so that a range reads its own
// rows only: its memory is bounded by its budget whatever a query's rows.
//
// The runs come from a SortedRuns: the staging rows of the result file (HDF5, read on one
// thread), or the workers' run files (io/run_files.hpp, read on all cores). The rows go to a
// MergeOutput: /hits of a result file, or an intermediate sorted run (io/run_levels.hpp).
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io/hit_table.hpp"

namespace hpc {

namespace h5 {
class File;
}

// Seconds each stage of a merge took (stages overlap: they do not add up to its wall time).
struct MergeTimes {
  double count = 0;    // rows per query and where each segment starts in every run
  double read = 0;     // segments' rows read (while the previous segment merges)
  double merge = 0;    // segments merged and gathered
  double deflate = 0;  // merged chunks deflated (while the next segment merges)
  double store = 0;    // deflated chunks stored in the file
  double waited = 0;   // the merging thread waiting for a read or a store
  // A result file's finish around its merge (ResultFile::finish_merged): the staged file closed
  // and its other groups copied to the new one; the new one completed, closed and renamed.
  double opening = 0, closing = 0;
  // The storing loop's own time between its stores and waits (a range merge's: handing its
  // slots back and forth with the threads).
  double store_loop = 0;
  size_t segments = 0;  // the query range cut into this many
  // The most rows one segment or range read (what a merging thread holds: a segment, at least
  // its busiest query's rows; a range, never more than its own).
  uint64_t most_rows_read = 0;
};

struct MergeRules {
  uint32_t max_per_query = 0;  // rows kept per query, best first (0: all)
  double max_evalue = std::numeric_limits<double>::infinity();  // of those, E-value <= this (NaN kept)
  // Bytes the merge may hold (its segments and merged tables, whatever the number of runs);
  // 0: merge_memory().
  uint64_t memory = 0;
  // Tests: at most this many rows a segment, and bytes of rows (52 each, as read) and their
  // CIGAR characters; 0: as the memory allows.
  uint64_t segment_rows = 0;
  uint64_t segment_bytes = 0;
  // Threads the merge runs on; 0: every core of the job (a merge alone on the host). Merges run
  // side by side (the background merges) take a share each.
  size_t threads = 0;
  MergeTimes* times = nullptr;  // where to add each stage's seconds (--verbose), if anywhere
};

// The row columns a run without coordinates holds (HitTableColumns::for_each_row_column's
// first ones: query, target, score, bits, evalue); the others are zero in every row.
constexpr size_t kScoreOnlyColumns = 5;

// Where the merge reads sorted runs. Columns are numbered in HitTableColumns'
// for_each_row_column order without identity (query, target, score, bits, evalue, qstart,
// qend, tstart, tend, cigar_end); a run's cigar_end values are offsets into its own
// characters (read_chars), whatever their origin.
class SortedRuns {
 public:
  virtual ~SortedRuns() = default;
  virtual size_t count() const = 0;
  virtual uint64_t rows(size_t run) const = 0;
  // Rows [first, first + n) of column `column` of the run, into `out` (sized by the caller).
  virtual void read(size_t run, size_t column, uint64_t first, uint64_t n, void* out) const = 0;
  // Where the CIGAR of the run's row `row` starts (its characters' offset: 0 for row 0 of some runs).
  virtual uint64_t chars_before(size_t run, uint64_t row) const = 0;
  virtual void read_chars(size_t run, uint64_t first, uint64_t n, uint8_t* out) const = 0;
  // True when reads may run on several threads at once (not HDF5's).
  virtual bool concurrent_reads() const { return false; }
  // False when every row of the run has zero coordinates and no CIGAR (a score-only run's,
  // whose columns from the kScoreOnlyColumns-th on the merge then neither reads nor gathers).
  virtual bool has_coordinates(size_t) const { return true; }
  // The merge has read the run's rows before `rows` (and their characters) and will not read
  // them again: a source may free their space (RunFiles). A run's calls come in order, one at a
  // time (different runs' at once, on the reading's threads).
  virtual void consumed(size_t, uint64_t /*rows*/) const {}
  uint64_t total_rows() const;
  uint64_t total_chars() const;  // of every run's CIGARs
};

// Where a merge's rows go, a piece at a time, in order.
class MergeOutput {
 public:
  virtual ~MergeOutput() = default;
  // Every piece but the last holds a multiple of chunk() rows and of chars_chunk() characters.
  virtual size_t chunk() const { return 1; }
  virtual size_t chars_chunk() const { return 1; }
  // Whether the pieces need their rows' identity (the final table's derived column).
  virtual bool with_identity() const { return false; }
  // The piece made ready to store (/hits: deflated on `threads` threads), beside the previous store.
  virtual DeflatedHitTable prepare(HitTableColumns& piece, size_t threads);  // nothing to do
  // The piece appended; one at a time, in order. cigar_end: offsets into all pieces' characters.
  virtual void store(HitTableColumns& piece, const DeflatedHitTable& prepared) = 0;
};

// The merge's memory budget: HPCALIGN_MERGE_MEMORY_MIB, else 200 MiB.
uint64_t merge_memory();
// allvsall's final merge's budget: HPCALIGN_FINAL_MERGE_MEMORY_MIB, else 512 MiB. Larger than
// the other merges': a screen's final merge runs alone on the host once the GPUs are done, and
// each segment costs the merging thread a serial chain (parts' barrier, copies, gather's
// barrier, thread starts): the 57,592-sequence screen's 290 segments at 200 MiB were its
// critical path; at 512 MiB 113 segments, final merge 5.9 s against 5.8-7.8 s, peak RSS 871 MiB
// against 640-667 (one H100 host): well under a 2 GB share. The others run beside the compute
// (background merges) or in processes that may also hold a database (search).
uint64_t final_merge_memory();

// Every row of `runs` in hit_order, cut by `rules`, to `out`; returns the rows written.
uint64_t merge_sorted_runs(const SortedRuns& runs, MergeOutput& out, const MergeRules& rules);
// The same into `to`'s `out_group` (created here).
uint64_t merge_sorted_runs(const SortedRuns& runs, h5::File& to, const std::string& out_group,
                           const MergeRules& rules);
// Runs: (first row, rows) of `from`'s `group`. Creates `to`'s `out_group` and returns its rows.
uint64_t merge_sorted_runs(const h5::File& from, const std::string& group,
                           const std::vector<std::pair<uint64_t, uint64_t>>& runs, h5::File& to,
                           const std::string& out_group, const MergeRules& rules);

}  // namespace hpc
