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
#include <atomic>
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
// GPUs compute; these merges run on threads of idle priority (their merges' threads inherit
// it), so the workers' own host work comes first. Only runs of files this process wrote (a
// local run): another node's writes may not be visible yet.
// Every `group` runs in order (a contiguous range: ties keep the runs' order, as merge_to_fan_in)
// become one run "b<n>" (n: the group's place), never journalled (a killed run merges again
// from the workers' runs). Up to `at_once` groups merge side by side, each on its share of the
// cores and in its own budget (a quarter of merge_memory()), so in ranges several times larger:
// one merge at a time on all 32 cores of a 2-GPU host cut its budget into ranges of ~13 Ki rows
// and took ~0.5 s a group, keeping up with 8-9 of the 57,592-sequence screen's 68 groups on two
// GPUs (3,800 runs left to the final merge, 6.6 s of its threads' time reading them); four at
// once, 8 threads and ~49 Ki-row ranges each, merge all 68 (~0.07 s a group).
class BackgroundMerges {
 public:
  BackgroundMerges(std::string dir, size_t group, size_t at_once = default_at_once());
  ~BackgroundMerges();  // as finish(), the runs it wrote left to the directory's removal
  BackgroundMerges(const BackgroundMerges&) = delete;
  BackgroundMerges& operator=(const BackgroundMerges&) = delete;
  // The next finished run (in the order the final merge would take them).
  void add(const StagedRun& run);
  // Every run added, each group merged replaced by its run, in order. By default the merges
  // in flight are given up (their groups stay as they were: the final merge reads them at
  // once, which cost less than waiting for them); `every_group`: once every whole group is
  // merged. A merge that failed leaves its group as it was.
  std::vector<StagedRun> finish(MergeLevels* done = nullptr, bool every_group = false);
  // Groups merged side by side: one a share of 8 cores, at most 4 (their quarters of
  // merge_memory() then add up to it at most).
  static size_t default_at_once();

 private:
  void loop();
  std::string dir_;
  size_t group_, at_once_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<StagedRun> runs_;  // every run added, in order
  // Group g is runs_[g * group_, (g + 1) * group_); once merged (done_[g]), merged_[g] its run.
  std::vector<StagedRun> merged_;
  std::vector<bool> done_;
  size_t taken_ = 0;        // groups handed to a merge
  bool stop_ = false, every_group_ = false;
  std::atomic<bool> give_up_{false};  // the merges in flight stop at their next piece
  MergeLevels levels_;
  std::vector<std::thread> threads_;
};

}  // namespace hpc
