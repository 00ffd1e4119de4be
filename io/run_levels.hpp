#pragma once
// Merges in levels, so that no merge reads more than a fan-in of runs at once. A merge's memory
// is its budget (MergeRules::memory), whatever the runs; but with tens of thousands of runs
// (a screen of small tiles) its segment holds few rows a run, read a few at a time. So past a
// fan-in, groups of runs are merged first, each into an
// intermediate run (io/run_files.hpp's MergedRunFile: the same record format, sorted, a file of
// its own in the same directory), only as many as bring the count down to the fan-in, and the
// final merge reads those: every merge reads at most fan-in runs. A group is a contiguous range
// of the runs and its run takes its place, so rows tied on (query, score, target) keep the
// runs' order: the final rows are those of a one-level merge. Nothing is dropped before the
// final merge (its rules apply there).
// Intermediate runs are never journalled: the next session of a killed run removes their files
// (prepare_run_directory) and merges again from the workers' runs; one merged by a later level
// is removed at once, the rest with the run directory.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/run_file_io.hpp"
#include "io/run_merge.hpp"

namespace hpc {

// The runs a merge reads at once: HPCALIGN_MERGE_FAN_IN, else 16,384 (since segments are cut to
// a memory budget, more runs cost a merge little memory: the 57,592-sequence screen's 4,371
// runs and 9,500 sequences' 11,175 merged fastest in one level).
size_t merge_fan_in();

// What merge_to_fan_in did (--verbose).
struct MergeLevels {
  size_t merges = 0;      // intermediate runs written
  uint64_t rows = 0;      // rows they hold together
  double seconds = 0;     // wall time
};

// `runs` (places in `dir`) with groups merged into intermediate runs until at most `fan_in`
// (>= 2) remain, in order. `segments`: only its memory and segment sizes apply.
std::vector<StagedRun> merge_to_fan_in(const std::string& dir, std::vector<StagedRun> runs, size_t fan_in,
                                       MergeLevels* done = nullptr, const MergeRules& segments = {});

// Groups of finished runs merged into intermediate runs while the tiles still compute, so that
// the final merge, which only starts once the last tile is in, reads a few large runs instead
// of thousands of small ones (a screen's 4,371 runs: ~125 rows a run and column a segment, one
// read each, were most of the final merge's reading). The host's cores are mostly idle while
// GPUs compute; these merges run one at a time on a thread of idle priority (its merge's
// threads inherit it), so the workers' own host work comes first. Only runs of files this
// process wrote (a local run): another node's writes may not be visible yet.
// Every `group` runs in order (a contiguous range: ties keep the runs' order, as merge_to_fan_in)
// become one run "b<n>", never journalled (a killed run merges again from the workers' runs).
class BackgroundMerges {
 public:
  BackgroundMerges(std::string dir, size_t group);
  ~BackgroundMerges();  // as finish(), the runs it wrote left to the directory's removal
  BackgroundMerges(const BackgroundMerges&) = delete;
  BackgroundMerges& operator=(const BackgroundMerges&) = delete;
  // The next finished run (in the order the final merge would take them).
  void add(const StagedRun& run);
  // Stops after the merge in flight (`every_group`: once every whole group is merged); every
  // run added, each group merged replaced by its run. A merge that failed leaves its group as it was.
  std::vector<StagedRun> finish(MergeLevels* done = nullptr, bool every_group = false);

 private:
  void loop();
  std::string dir_;
  size_t group_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<StagedRun> runs_;  // [0, merged_): merged runs and groups left as they were; then runs added
  size_t merged_ = 0;
  bool stop_ = false, every_group_ = false;
  MergeLevels levels_;
  std::thread thread_;
};

}  // namespace hpc
