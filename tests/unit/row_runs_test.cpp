// Fixed-width result rows staged in run files and merged by key (io/row_runs.hpp): the merged
// columns are the rows of one sort by the key, whatever the files, tiles and windows; records
// of earlier sessions stay; a record cut short, or a place that does not match, is not whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <tuple>

#include "io/hdf5_columns.hpp"
#include "io/row_runs.hpp"
#include "io/run_files.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::temp_path;

struct Row {
  uint32_t a, b;
  double x;
  uint8_t flag;
  std::vector<int32_t> scores;  // three a row
};

const RowFields<Row> kFields = RowFields<Row>()
                                   .add("t/a", [](const Row& r) { return r.a; })
                                   .add("t/b", [](const Row& r) { return r.b; })
                                   .add("t/x", [](const Row& r) { return r.x; })
                                   .add("t/flag", [](const Row& r) { return r.flag; })
                                   .add_values("u/scores", 3, [](const Row& r) -> const auto& { return r.scores; });
const RowSchema& kSchema = kFields.schema();

std::string pack(const std::vector<Row>& rows) { return kFields.pack(rows); }

// n rows of distinct keys, in random order.
std::vector<Row> random_rows(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Row> rows(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t s = int32_t(rng() % 1000);
    rows[i] = {uint32_t(i % 97), uint32_t(i / 97), double(rng()) / 7.0, uint8_t(rng() % 5), {s, s + 1, -s}};
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  return rows;
}

void expect_sorted_table(const std::string& path, std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& p, const Row& q) { return std::tie(p.a, p.b) < std::tie(q.a, q.b); });
  const h5::File f(path, h5::Mode::kReadOnly);
  const auto a = h5::read_all<uint32_t>(f, "t/a");
  const auto b = h5::read_all<uint32_t>(f, "t/b");
  const auto x = h5::read_all<double>(f, "t/x");
  const auto flag = h5::read_all<uint8_t>(f, "t/flag");
  const auto scores = h5::read_all<int32_t>(f, "u/scores");
  ASSERT_EQ(a.size(), rows.size());
  ASSERT_EQ(b.size(), rows.size());
  ASSERT_EQ(x.size(), rows.size());
  ASSERT_EQ(flag.size(), rows.size());
  ASSERT_EQ(scores.size(), 3 * rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(a[i], rows[i].a) << "row " << i;
    ASSERT_EQ(b[i], rows[i].b) << "row " << i;
    ASSERT_EQ(x[i], rows[i].x) << "row " << i;
    ASSERT_EQ(flag[i], rows[i].flag) << "row " << i;
    for (size_t k = 0; k < 3; ++k) ASSERT_EQ(scores[3 * i + k], rows[i].scores[k]) << "row " << i;
  }
}

// Three workers' files, tiles of every size (an empty one, one larger than a read window and
// than a store): the merged table is the rows sorted by key, a column of three values a row
// included.
TEST(RowRuns, WorkersRunsMergeToOneSortByKey) {
  const std::string dir = temp_path("rows.h5.runs");
  prepare_run_directory(dir, true);
  const std::vector<Row> rows = random_rows(150000, 3);
  const size_t sizes[] = {0, 1, 17, 5000, 100000};  // the rest in tiles of 9000
  std::vector<StagedRun> runs;
  {
    std::vector<std::unique_ptr<RecordFile>> writers;
    for (int w = 0; w < 3; ++w) writers.push_back(std::make_unique<RecordFile>(dir, "w" + std::to_string(w)));
    size_t at = 0;
    for (uint32_t tile = 0; at < rows.size(); ++tile) {
      const size_t n = std::min(rows.size() - at, tile < 5 ? sizes[tile] : size_t(9000));
      const std::vector<Row> part(rows.begin() + at, rows.begin() + at + n);
      runs.push_back(kSchema.write(*writers[tile % 3], tile, pack(part)));
      EXPECT_EQ(runs.back().rows, n);
      at += n;
    }
  }
  for (const StagedRun& r : runs) EXPECT_TRUE(kSchema.is_whole(dir, r)) << r.file << " @" << r.offset;
  const std::string out = temp_path("rows_merged.h5");
  {
    h5::File to(out, h5::Mode::kCreate);
    create_row_columns(to, kSchema, 0);  // an existing (empty) column is replaced
    EXPECT_EQ(merge_row_runs(dir, runs, kSchema, to), rows.size());
  }
  expect_sorted_table(out, rows);
  remove_run_directory(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

// A later writer of the same file (a resumed run) appends after a torn record; a record cut
// short, or a place that does not match its header, is not whole, and the merge refuses it.
TEST(RowRuns, LaterSessionsAppendAndCutRecordsAreNotWhole) {
  const std::string dir = temp_path("rows_sessions.h5.runs");
  prepare_run_directory(dir, true);
  const std::vector<Row> rows = random_rows(3000, 5);
  StagedRun first, second;
  {
    RecordFile session(dir, "w0");
    first = kSchema.write(session, 3, pack({rows.begin(), rows.begin() + 1000}));
  }
  std::ofstream(dir + "/w0", std::ios::binary | std::ios::app) << "HPT1 torn";
  {
    RecordFile session(dir, "w0");
    second = kSchema.write(session, 8, pack({rows.begin() + 1000, rows.end()}));
  }
  EXPECT_EQ(first.offset, 0u);
  EXPECT_GT(second.offset, first.offset);
  EXPECT_TRUE(kSchema.is_whole(dir, first));
  EXPECT_TRUE(kSchema.is_whole(dir, second));
  StagedRun wrong = second;
  wrong.tile = 9;
  EXPECT_FALSE(kSchema.is_whole(dir, wrong));
  const std::string out = temp_path("rows_sessions.h5");
  {
    h5::File to(out, h5::Mode::kCreate);
    EXPECT_NE(error_of([&] { merge_row_runs(dir, {first, wrong}, kSchema, to); }).find("not where the journal says"),
              std::string::npos);
  }
  {
    h5::File to(out, h5::Mode::kCreate);
    EXPECT_EQ(merge_row_runs(dir, {second, first}, kSchema, to), rows.size());
  }
  expect_sorted_table(out, rows);
  std::filesystem::resize_file(dir + "/w0", second.offset + 100);
  EXPECT_TRUE(kSchema.is_whole(dir, first));
  EXPECT_FALSE(kSchema.is_whole(dir, second));
  RecordFile other(dir, "w1");
  EXPECT_NE(error_of([&] { kSchema.write(other, 0, "odd"); }).find("another schema"), std::string::npos);
  // A row without its column's values is refused, not packed short.
  EXPECT_NE(error_of([&] { pack({Row{1, 2, 0.5, 0, {7}}}); }).find("lacks its 3 values"), std::string::npos);
  remove_run_directory(dir);
}

}  // namespace
}  // namespace hpc
