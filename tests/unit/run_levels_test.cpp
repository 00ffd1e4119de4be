// io/run_levels.cpp: merges in levels through intermediate run files give the rows of one
// merge, and an intermediate run is trusted only once whole.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "io/hdf5_columns.hpp"
#include "io/hit_table.hpp"
#include "io/run_files.hpp"
#include "io/run_levels.hpp"
#include "io/run_merge.hpp"
#include "test_support.hpp"
#include "unit/hit_rows_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::expect_same_hits;
using test::random_hits;
using test::temp_path;

// Hits cut into `tiles` sorted runs of two workers' files in `dir`, twins included (rows equal
// in hit_order, the twin in a later run: ties keep the runs' order).
// `scores_only`: the rows without coordinates or CIGARs (a score-only run's).
std::vector<StagedRun> stage_runs(const std::string& dir, size_t tiles, std::vector<Hit>& hits, bool scores_only = false) {
  hits = random_hits(30000, 8);
  for (size_t i = 0; i < 2000; ++i) {
    Hit twin = hits[i * 11];
    twin.aln.qstart += 1;
    hits.push_back(twin);
  }
  if (scores_only)
    for (Hit& h : hits) h.aln.qstart = h.aln.qend = h.aln.tstart = h.aln.tend = 0, h.aln.cigar.clear();
  std::vector<StagedRun> runs;
  RecordFile w[2] = {RecordFile(dir, "w0"), RecordFile(dir, "w1")};
  const size_t tile = (hits.size() + tiles - 1) / tiles;
  for (size_t k = 0; k < hits.size(); k += tile) {
    std::vector<Hit> rows(hits.begin() + k, hits.begin() + std::min(hits.size(), k + tile));
    runs.push_back(HitRecords().write(w[runs.size() % 2], uint32_t(runs.size()), rows));
  }
  return runs;
}

// /hits of a merge of `runs` (rules' segment sizes), as rows and identities.
std::pair<std::vector<Hit>, std::vector<float>> merged(const std::string& dir, const std::vector<StagedRun>& runs,
                                                       const MergeRules& rules) {
  const std::string out = temp_path("levels_merged.h5");
  {
    h5::File to(out, h5::Mode::kCreate);
    merge_sorted_runs(RunFiles(dir, runs), to, "hits", rules);
  }
  const h5::File f(out, h5::Mode::kReadOnly);
  return {read_hit_rows(f, "hits"), h5::read_all<float>(f, "hits/identity")};
}

std::vector<std::string> merged_run_files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string()[0] == 'i') names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// 61 runs merged with fan-ins from 2 (six levels) to 60 (one group of two), segments smaller
// than a run (so an intermediate run is written in many pieces), and the top rows of each query
// kept: the final table is the one-level merge's, row for row and identity for identity. Only
// the last level's intermediate runs are left, each whole; the run directory's removal takes them.
TEST(RunLevels, ManyRunsThroughATinyFanInMergeAsOneLevel) {
  const std::string dir = temp_path("levels.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits;
  const std::vector<StagedRun> runs = stage_runs(dir, 61, hits);
  ASSERT_EQ(runs.size(), 61u);
  MergeRules rules;
  rules.segment_rows = 700;
  rules.max_per_query = 400;
  const auto one_level = merged(dir, runs, rules);
  std::vector<Hit> sorted = hits, best;  // the runs are slices of `hits` in order
  std::stable_sort(sorted.begin(), sorted.end(), hit_order);
  for (size_t i = 0, rank = 0; i < sorted.size(); ++i) {
    rank = i > 0 && sorted[i].query == sorted[i - 1].query ? rank + 1 : 0;
    if (rank < rules.max_per_query) best.push_back(sorted[i]);
  }
  ASSERT_EQ(best.size(), 50u * 400u);  // 50 queries of more rows than the cut
  expect_same_hits(one_level.first, best);
  for (const size_t fan_in : {2, 3, 7, 60}) {
    SCOPED_TRACE("fan-in " + std::to_string(fan_in));
    MergeLevels levels;
    const std::vector<StagedRun> fewer = merge_to_fan_in(dir, runs, fan_in, &levels, rules);
    EXPECT_LE(fewer.size(), fan_in);
    EXPECT_GE(levels.merges, (runs.size() - 2) / (fan_in - 1));  // each merge of g runs takes g - 1 away
    EXPECT_GT(levels.rows, 0u);
    std::vector<std::string> left;
    for (const StagedRun& r : fewer)
      if (r.file[0] == 'i') {
        left.push_back(r.file);
        EXPECT_TRUE(HitRecords().is_whole(dir, r)) << r.file;
      }
    std::sort(left.begin(), left.end());
    EXPECT_EQ(merged_run_files(dir), left);  // those of earlier levels are gone
    const auto two_level = merged(dir, fewer, rules);
    expect_same_hits(two_level.first, one_level.first);
    EXPECT_EQ(two_level.second, one_level.second);
    prepare_run_directory(dir, false);  // as a resume does: the merges' runs go, the workers' stay
    EXPECT_TRUE(merged_run_files(dir).empty());
    EXPECT_TRUE(HitRecords().is_whole(dir, runs.back()));
  }
  EXPECT_EQ(merge_to_fan_in(dir, runs, 61).size(), 61u);  // within the fan-in: nothing to do
  EXPECT_TRUE(merged_run_files(dir).empty());
  remove_run_directory(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// Runs merged in groups while more come (BackgroundMerges): the runs it returns, in order, merge
// into the table of the runs themselves. Rows without coordinates or CIGARs (a score-only
// run's) are staged and merged as score-only records, 28 bytes a row (the workers' files' size
// says so), and read back with zero coordinates.
TEST(RunLevels, BackgroundMergesGiveTheRowsOfTheRunsThemselves) {
  for (const bool scores_only : {false, true}) {
    SCOPED_TRACE(scores_only ? "score-only" : "alignments");
    const std::string dir = temp_path("background.h5.runs");
    prepare_run_directory(dir, true);
    std::vector<Hit> hits;
    const std::vector<StagedRun> runs = stage_runs(dir, 61, hits, scores_only);
    if (scores_only) {
      uint64_t w0 = 0;
      for (const StagedRun& r : runs)
        if (r.file == "w0") w0 += 24 + 28 * r.rows;
      EXPECT_EQ(std::filesystem::file_size(dir + "/w0"), w0);
    }
    MergeRules rules;
    rules.segment_rows = 700;
    const auto direct = merged(dir, runs, rules);
    EXPECT_EQ(direct.first.size(), hits.size());
    for (const size_t at_once : {size_t(1), size_t(3)}) {  // one merge at a time, or groups side by side
      SCOPED_TRACE(at_once);
      MergeLevels levels;
      std::vector<StagedRun> fewer;
      {
        BackgroundMerges background(dir, 8, at_once);
        for (const StagedRun& r : runs) background.add(r);
        fewer = background.finish(&levels, true);
      }
      EXPECT_EQ(levels.merges, 7u);  // 61 runs: 7 groups of 8, 5 left
      ASSERT_EQ(fewer.size(), 12u);
      const RunFiles in(dir, fewer);
      for (size_t k = 0; k < fewer.size(); ++k) {
        EXPECT_EQ(fewer[k].file, k < 7 ? background_run_name(k) : runs[56 + k - 7].file);  // each group in its place
        EXPECT_TRUE(HitRecords().is_whole(dir, fewer[k])) << fewer[k].file;
        EXPECT_EQ(in.has_coordinates(k), !scores_only) << fewer[k].file;
      }
      const auto through = merged(dir, fewer, rules);
      expect_same_hits(through.first, direct.first);
      EXPECT_EQ(through.second, direct.second);
    }
    remove_run_directory(dir);
    EXPECT_FALSE(std::filesystem::exists(dir));
  }
}

// finish() without waiting gives up the merges in flight: their groups come back as they were,
// their unfinished runs are removed, and the runs it returns (merged groups or not, in order)
// still merge into the table of the runs themselves, however far the merges got.
TEST(RunLevels, BackgroundMergesGivenUpLeaveTheirGroupsAsTheyWere) {
  const std::string dir = temp_path("background_given_up.h5.runs");
  std::vector<Hit> hits;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    prepare_run_directory(dir, true);
    const std::vector<StagedRun> runs = stage_runs(dir, 240, hits, true);
    MergeRules rules;
    rules.segment_rows = 700;
    const auto direct = merged(dir, runs, rules);
    MergeLevels levels;
    std::vector<StagedRun> fewer;
    {
      BackgroundMerges background(dir, 16, 4);
      for (const StagedRun& r : runs) background.add(r);
      if (round % 2) std::this_thread::sleep_for(std::chrono::milliseconds(20 * round));
      fewer = background.finish(&levels);
    }
    size_t merged_runs = 0, at = 0;  // the workers' runs not merged keep their order
    uint64_t rows = 0;
    for (const StagedRun& r : fewer) {
      rows += r.rows;
      if (r.file[0] == 'b') {
        ++merged_runs;
        EXPECT_TRUE(HitRecords().is_whole(dir, r)) << r.file;
        at += 16;
      } else {
        ASSERT_LT(at, runs.size());
        EXPECT_EQ(r.offset, runs[at].offset);
        EXPECT_EQ(r.file, runs[at++].file);
      }
    }
    EXPECT_EQ(at, runs.size());
    EXPECT_EQ(rows, hits.size());
    EXPECT_EQ(merged_runs, levels.merges);
    size_t files = 0;  // only the merged groups' runs are left (a given-up merge's file removed)
    for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.path().filename().string()[0] == 'b';
    EXPECT_EQ(files, merged_runs);
    const auto through = merged(dir, fewer, rules);
    expect_same_hits(through.first, direct.first);
    remove_run_directory(dir);
  }
}

// Bytes of `path` the file system holds (holes take none).
uint64_t allocated_bytes(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
}

// A merge that frees the merged runs' space as it consumes them (RunFiles' release_merged, the
// final merge's) gives the same rows; the background merges' files keep their size but hardly
// any space, and the workers' files stay whole: a resume merges again from them alone.
TEST(RunLevels, AMergeFreeingMergedRunsKeepsTheWorkersRuns) {
  const std::string dir = temp_path("release.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits;
  const std::vector<StagedRun> runs = stage_runs(dir, 61, hits);
  MergeRules rules;
  rules.segment_rows = 700;
  const auto direct = merged(dir, runs, rules);
  std::vector<StagedRun> fewer;
  {
    BackgroundMerges background(dir, 8);
    for (const StagedRun& r : runs) background.add(r);
    fewer = background.finish(nullptr, true);
  }
  ASSERT_EQ(fewer.front().file, "b0");
  const uint64_t b0_size = std::filesystem::file_size(dir + "/b0"), w0_held = allocated_bytes(dir + "/w0");
  ASSERT_GT(b0_size, uint64_t(100) << 10);
  const std::string out = temp_path("release_merged.h5");
  {
    h5::File to(out, h5::Mode::kCreate);
    merge_sorted_runs(RunFiles(dir, fewer, true), to, "hits", rules);
  }
  {
    const h5::File f(out, h5::Mode::kReadOnly);
    expect_same_hits(read_hit_rows(f, "hits"), direct.first);
  }
  EXPECT_EQ(std::filesystem::file_size(dir + "/b0"), b0_size);
  EXPECT_EQ(allocated_bytes(dir + "/w0"), w0_held);
  // Freed where the file system punches holes (ext4, xfs, tmpfs): all but partial blocks.
  const int probe = ::open((dir + "/b0").c_str(), O_WRONLY);
  const bool holes = probe >= 0 && ::fallocate(probe, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 1) == 0;
  if (probe >= 0) ::close(probe);
  if (holes) EXPECT_LT(allocated_bytes(dir + "/b0"), b0_size / 4);
  prepare_run_directory(dir, false);  // as a resume does: the merges' runs go, the workers' stay
  for (const StagedRun& r : runs) EXPECT_TRUE(HitRecords().is_whole(dir, r)) << r.file;
  expect_same_hits(merged(dir, runs, rules).first, direct.first);
  remove_run_directory(dir);
}

// A merge that fails midway (a worker's record cut short) removes its unfinished intermediate
// run; one that a kill left (its rows written, its header not yet: written last) is not whole,
// and the next session's prepare removes it before merging again from the workers' runs.
TEST(RunLevels, AnUnfinishedIntermediateRunIsNeverTrusted) {
  const std::string dir = temp_path("levels_killed.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits;
  std::vector<StagedRun> runs = stage_runs(dir, 9, hits);
  MergeRules small;
  small.segment_rows = 500;
  {  // a kill between a piece and the header: the file as the kill leaves it
    const RunFiles group(dir, {runs.begin(), runs.begin() + 3});
    MergedRunFile out(dir, merged_run_name(0), group.total_rows(), group.total_chars());
    HitTableColumns piece;
    piece.query = {1, 2};
    piece.target = {3, 4};
    piece.score = {5, 6};
    piece.bits = piece.evalue = {1.0, 2.0};
    piece.qstart = piece.qend = piece.tstart = piece.tend = {1, 1};
    piece.cigar_end = {0, 0};
    out.store(piece, DeflatedHitTable{});
    std::filesystem::copy_file(dir + "/" + merged_run_name(0), dir + "/" + merged_run_name(7));
    const StagedRun partial{merged_run_name(7), 0, group.total_rows(), group.total_chars(), 0};
    EXPECT_FALSE(HitRecords().is_whole(dir, partial));
    EXPECT_NE(error_of([&] { out.finish(); }).find("fewer rows"), std::string::npos);
  }
  EXPECT_EQ(merged_run_files(dir), std::vector<std::string>{merged_run_name(7)});  // the unfinished one removed
  prepare_run_directory(dir, false);
  EXPECT_TRUE(merged_run_files(dir).empty());

  // A worker's file cut inside its last record, run 7 of 9, which a fan-in of 2 merges fourth:
  // that merge fails, naming it, and the three intermediate runs before it go too.
  const StagedRun& cut = runs[7];
  ASSERT_EQ(cut.file, "w1");
  std::filesystem::resize_file(dir + "/w1", cut.offset + 100);
  const std::string error = error_of([&] { merge_to_fan_in(dir, runs, 2, nullptr, small); });
  EXPECT_NE(error.find("ends inside tile"), std::string::npos) << error;
  EXPECT_TRUE(merged_run_files(dir).empty());
  remove_run_directory(dir);
}

}  // namespace
}  // namespace hpc
