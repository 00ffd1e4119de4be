#include "io/run_levels.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/hdf5_columns.hpp"
#include "io/run_files.hpp"
#include "src/core/error.hpp"
#include "src/core/free_heap.hpp"
#include "src/core/on_all_cores.hpp"
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

namespace {

// A background merge's run, given up at its next piece once finish() asks (the merge then
// fails, and its group stays as it was).
class GivingUpOutput : public MergeOutput {
 public:
  GivingUpOutput(MergedRunFile& out, const std::atomic<bool>& give_up) : out_(out), give_up_(give_up) {}
  size_t chunk() const override { return out_.chunk(); }
  size_t chars_chunk() const override { return out_.chars_chunk(); }
  bool with_identity() const override { return out_.with_identity(); }
  DeflatedHitTable prepare(HitTableColumns& piece, size_t threads) override { return out_.prepare(piece, threads); }
  void store(HitTableColumns& piece, const DeflatedHitTable& prepared) override {
    if (give_up_.load(std::memory_order_relaxed)) throw Error("a background merge given up");
    out_.store(piece, prepared);
  }

 private:
  MergedRunFile& out_;
  const std::atomic<bool>& give_up_;
};

}  // namespace

size_t BackgroundMerges::default_at_once() { return std::clamp<size_t>(all_usable_cores() / 8, 1, 4); }

BackgroundMerges::BackgroundMerges(std::string dir, size_t group, size_t at_once)
    : dir_(std::move(dir)), group_(std::max<size_t>(group, 2)), at_once_(std::max<size_t>(at_once, 1)) {
  for (size_t k = 0; k < at_once_; ++k) threads_.emplace_back([this] { loop(); });
}

BackgroundMerges::~BackgroundMerges() { finish(); }

void BackgroundMerges::add(const StagedRun& run) {
  std::lock_guard<std::mutex> lock(mu_);
  runs_.push_back(run);
  if (runs_.size() >= (taken_ + 1) * group_) wake_.notify_one();
}

std::vector<StagedRun> BackgroundMerges::finish(MergeLevels* done, bool every_group) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stop_) every_group_ = every_group, give_up_ = !every_group;
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  if (done) *done = levels_;
  std::vector<StagedRun> runs;
  for (size_t g = 0; g < taken_; ++g) {
    const auto first = runs_.begin() + std::ptrdiff_t(g * group_);
    if (done_[g])
      runs.push_back(merged_[g]);
    else
      runs.insert(runs.end(), first, first + std::ptrdiff_t(group_));
  }
  runs.insert(runs.end(), runs_.begin() + std::ptrdiff_t(taken_ * group_), runs_.end());
  return runs;
}

void BackgroundMerges::loop() {
  // Idle priority: these merges take only cores nothing else wants (threads inherit it).
  const sched_param idle{0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
  MergeRules every_row;  // nothing dropped before the final merge; a quarter of its memory
  every_row.memory = merge_memory() / 4;
  every_row.threads = std::max<size_t>(1, all_usable_cores() / at_once_);
  for (;;) {
    size_t g;
    std::vector<StagedRun> group;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const auto whole_group = [&] { return runs_.size() >= (taken_ + 1) * group_; };
      wake_.wait(lock, [&] { return stop_ || whole_group(); });
      if (stop_ && !(every_group_ && whole_group())) return;
      g = taken_++;
      merged_.resize(taken_), done_.resize(taken_, false);
      group.assign(runs_.begin() + std::ptrdiff_t(g * group_), runs_.begin() + std::ptrdiff_t((g + 1) * group_));
    }
    const auto t0 = std::chrono::steady_clock::now();
    StagedRun run;
    bool ok = true;
    try {
      const RunFiles in(dir_, group);
      bool scores_only = true;
      for (size_t r = 0; r < in.count(); ++r) scores_only = scores_only && !in.has_coordinates(r);
      MergedRunFile out(dir_, background_run_name(g), in.total_rows(), in.total_chars(), scores_only);
      GivingUpOutput giving_up(out, give_up_);
      merge_sorted_runs(in, giving_up, every_row);
      run = out.finish();
    } catch (...) {  // the group stays as it was (the final merge reads it, and reports any real error)
      ok = false;
    }
    release_free_heap();
    std::lock_guard<std::mutex> lock(mu_);
    if (ok) {
      merged_[g] = run, done_[g] = true;
      levels_.merges++, levels_.rows += run.rows;
    }
    levels_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

}  // namespace hpc
