#include "io/run_levels.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/run_files.hpp"
#include "src/core/free_heap.hpp"
#include "src/core/tuning.hpp"

namespace hpc {
namespace {

// merge_to_fan_in's levels: a level merges groups from the front until the count is within the
// fan-in (the last group only as large as that needs); past the end the next level starts at the
// front. merged[k]: runs[k] is an intermediate run of ours.
void merge_groups(const std::string& dir, std::vector<StagedRun>& runs, std::vector<bool>& merged, size_t fan_in,
                  const MergeRules& every_row, MergeLevels& levels) {
  uint64_t names = 0;
  for (size_t at = 0; runs.size() > fan_in;) {
    size_t group = std::min({fan_in, runs.size() - at, runs.size() - fan_in + 1});
    if (group < 2) at = 0, group = std::min(fan_in, runs.size() - fan_in + 1);
    const auto first = runs.begin() + std::ptrdiff_t(at), last = first + std::ptrdiff_t(group);
    StagedRun run;
    {
      const RunFiles in(dir, {first, last});
      MergedRunFile out(dir, merged_run_name(names++), in.total_rows(), in.total_chars());
      merge_sorted_runs(in, out, every_row);
      run = out.finish();
    }
    // The merge's threads' arenas keep what they freed: trimmed, merge after merge does not add up.
    release_free_heap();
    for (size_t k = at; k < at + group; ++k)
      if (merged[k]) std::filesystem::remove(dir + "/" + runs[k].file);
    levels.merges++, levels.rows += run.rows;
    runs.erase(first + 1, last);
    merged.erase(merged.begin() + std::ptrdiff_t(at) + 1, merged.begin() + std::ptrdiff_t(at + group));
    runs[at] = run, merged[at] = true;
    ++at;
  }
}

}  // namespace

size_t merge_fan_in() { return size_t(*tuning_number(Tunable::kMergeFanIn)); }  // the table has its default

std::vector<StagedRun> merge_to_fan_in(const std::string& dir, std::vector<StagedRun> runs, size_t fan_in,
                                       MergeLevels* done, const MergeRules& segments) {
  MergeRules every_row;  // nothing dropped before the final merge
  every_row.memory = segments.memory;
  every_row.segment_rows = segments.segment_rows, every_row.segment_bytes = segments.segment_bytes;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<bool> merged(runs.size(), false);
  MergeLevels levels;
  try {
    merge_groups(dir, runs, merged, fan_in, every_row, levels);
  } catch (...) {  // the merges' runs go with a failed merge (the next session would remove them)
    for (size_t k = 0; k < runs.size(); ++k)
      if (merged[k]) std::filesystem::remove(dir + "/" + runs[k].file);
    throw;
  }
  levels.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (done) *done = levels;
  return runs;
}

BackgroundMerges::BackgroundMerges(std::string dir, size_t group)
    : dir_(std::move(dir)), group_(std::max<size_t>(group, 2)), thread_([this] { loop(); }) {}

BackgroundMerges::~BackgroundMerges() { finish(); }

void BackgroundMerges::add(const StagedRun& run) {
  std::lock_guard<std::mutex> lock(mu_);
  runs_.push_back(run);
  if (runs_.size() - merged_ >= group_) wake_.notify_one();
}

std::vector<StagedRun> BackgroundMerges::finish(MergeLevels* done, bool every_group) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true, every_group_ = every_group;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (done) *done = levels_;
  return runs_;
}

void BackgroundMerges::loop() {
  // Idle priority: these merges take only cores nothing else wants (threads inherit it).
  const sched_param idle{0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  MergeRules every_row;  // nothing dropped before the final merge; a quarter of its memory
  every_row.memory = merge_memory() / 4;
  for (uint64_t name = 0;; ++name) {
    std::vector<StagedRun> group;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const auto whole_group = [&] { return runs_.size() - merged_ >= group_; };
      wake_.wait(lock, [&] { return stop_ || whole_group(); });
      if (stop_ && !(every_group_ && whole_group())) return;
      group.assign(runs_.begin() + std::ptrdiff_t(merged_), runs_.begin() + std::ptrdiff_t(merged_ + group_));
    }
    const auto t0 = std::chrono::steady_clock::now();
    StagedRun run;
    bool ok = true;
    try {
      const RunFiles in(dir_, group);
      bool scores_only = true;
      for (size_t r = 0; r < in.count(); ++r) scores_only = scores_only && !in.has_coordinates(r);
      MergedRunFile out(dir_, background_run_name(name), in.total_rows(), in.total_chars(), scores_only);
      merge_sorted_runs(in, out, every_row);
      run = out.finish();
    } catch (...) {  // the group stays as it was (the final merge reads it, and reports any real error)
      ok = false;
    }
    release_free_heap();
    std::lock_guard<std::mutex> lock(mu_);
    if (ok) {
      runs_.erase(runs_.begin() + std::ptrdiff_t(merged_) + 1, runs_.begin() + std::ptrdiff_t(merged_ + group_));
      runs_[merged_++] = run;
      levels_.merges++, levels_.rows += run.rows;
      levels_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else {
      merged_ += group_;
    }
  }
}

}  // namespace hpc
