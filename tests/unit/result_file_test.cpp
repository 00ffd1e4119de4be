// io/hdf5_columns.cpp and io/result_file.cpp: column round trips, the result layout,
// status before/after finish, the tile ledger, attributes and error messages; the final merge
// (io/run_merge.cpp) and the workers' run files (io/run_files.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <fstream>
#include <iterator>
#include <random>
#include <regex>
#include <filesystem>
#include <set>
#include <thread>

#include "io/hdf5_columns.hpp"
#include "io/hit_table.hpp"
#include "io/result_file.hpp"
#include "io/run_files.hpp"
#include "io/run_merge.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"
#include "unit/hit_rows_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::expect_same_hits;
using test::make_hit;
using test::random_hits;
using test::temp_path;

SequenceSet small_set(const std::vector<std::pair<std::string, size_t>>& seqs) {
  SequenceSet s;
  for (const auto& [id, n] : seqs) {
    const std::vector<uint8_t> codes(n, 0);
    s.add(id, codes.data(), n);
  }
  return s;
}

// ---- the column layer ----

TEST(Hdf5Columns, EveryTypeRoundTripsAcrossAppends) {
  const std::string path = temp_path("columns.h5");
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::create_column<uint8_t>(f, "a/b/u8", 3);  // tiny chunk: appends cross chunk edges
    h5::append(f, "a/b/u8", std::vector<uint8_t>{0, 255, 7});
    h5::append(f, "a/b/u8", std::vector<uint8_t>{});
    h5::append(f, "a/b/u8", std::vector<uint8_t>{1, 2, 3, 4});
    h5::write_column(f, "u32", std::vector<uint32_t>{0, 4294967295u});
    h5::write_column(f, "i32", std::vector<int32_t>{-2147483647 - 1, 0, 5});
    h5::write_column(f, "u64", std::vector<uint64_t>{0, 18446744073709551615ull});
    h5::write_column(f, "f32", std::vector<float>{0.5f, -1e30f});
    h5::write_column(f, "f64", std::vector<double>{1e-300, 3.141592653589793});
    h5::create_column<std::string>(f, "text", 2);
    h5::append(f, "text", std::vector<std::string>{"", "sp|P1|X", "\xc3\xa9t\xc3\xa9"});
    h5::append(f, "text", std::vector<std::string>{std::string(5000, 'x')});
    f.close();
  }
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_all<uint8_t>(f, "a/b/u8"), (std::vector<uint8_t>{0, 255, 7, 1, 2, 3, 4}));
  EXPECT_EQ(h5::column_length(f, "a/b/u8"), 7u);
  EXPECT_EQ(h5::read_all<uint32_t>(f, "u32"), (std::vector<uint32_t>{0, 4294967295u}));
  EXPECT_EQ(h5::read_all<int32_t>(f, "i32"), (std::vector<int32_t>{-2147483647 - 1, 0, 5}));
  EXPECT_EQ(h5::read_all<uint64_t>(f, "u64"), (std::vector<uint64_t>{0, 18446744073709551615ull}));
  EXPECT_EQ(h5::read_all<float>(f, "f32"), (std::vector<float>{0.5f, -1e30f}));
  EXPECT_EQ(h5::read_all<double>(f, "f64"), (std::vector<double>{1e-300, 3.141592653589793}));
  EXPECT_EQ(h5::read_all<std::string>(f, "text"),
            (std::vector<std::string>{"", "sp|P1|X", "\xc3\xa9t\xc3\xa9", std::string(5000, 'x')}));
  EXPECT_TRUE(f.exists("a/b"));
  EXPECT_FALSE(f.exists("a/c/u8"));
}

// Many chunks with a partial last one: read_all inflates these on several threads and
// undoes the shuffle itself, so every byte position of every element type is checked.
TEST(Hdf5Columns, ManyChunkColumnsReadBackExactly) {
  const std::string path = temp_path("many-chunks.h5");
  std::mt19937_64 rng(7);
  std::vector<uint8_t> bytes(1000003);
  std::vector<uint64_t> wide(300007);
  std::vector<double> reals(300007);
  std::vector<int32_t> ints(300007);
  for (auto& b : bytes) b = uint8_t(rng() % 24);
  for (auto& w : wide) w = rng();
  for (auto& r : reals) r = std::ldexp(double(rng() >> 11), -int(rng() % 900));
  for (auto& i : ints) i = int32_t(uint32_t(rng()));
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::write_column(f, "bytes", bytes, 65536);
    h5::write_column(f, "wide", wide, 10000);
    h5::write_column(f, "reals", reals, 4099);
    h5::create_column<int32_t>(f, "ints", 5000);
    h5::append(f, "ints", std::vector<int32_t>(ints.begin(), ints.begin() + 123457));
    h5::append(f, "ints", std::vector<int32_t>(ints.begin() + 123457, ints.end()));
  }
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_TRUE(h5::read_all<uint8_t>(f, "bytes") == bytes);
  EXPECT_TRUE(h5::read_all<uint64_t>(f, "wide") == wide);
  EXPECT_TRUE(h5::read_all<double>(f, "reals") == reals);
  EXPECT_TRUE(h5::read_all<int32_t>(f, "ints") == ints);
  // A stored type other than the one asked for goes through HDF5's conversion instead.
  const std::vector<double> widened = h5::read_all<double>(f, "ints");
  ASSERT_EQ(widened.size(), ints.size());
  EXPECT_EQ(widened[200000], double(ints[200000]));
}

// A column held open across appends: deflated chunks stored while they start at a chunk edge,
// rows through HDF5 otherwise (no chunks, or a partial chunk before them), its length followed
// across both paths.
TEST(Hdf5Columns, OpenColumnAppendsAsAppendDeflated) {
  const std::string path = temp_path("open-column.h5");
  constexpr size_t kChunk = 1000;
  std::mt19937 rng(11);
  std::vector<uint32_t> all;
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::create_column<uint32_t>(f, "hits/target", kChunk, h5::Compression::kFast);
    h5::OpenColumn column(f, "hits/target");
    const auto add = [&](size_t n, bool deflated) {
      std::vector<uint32_t> v(n);
      for (auto& x : v) x = rng() % 5000;
      column.append_deflated(f, v, deflated ? h5::deflate_chunks(v.data(), n, kChunk, h5::kFastDeflateLevel)
                                            : h5::DeflatedChunks{});
      all.insert(all.end(), v.begin(), v.end());
    };
    add(3 * kChunk, true);
    add(2 * kChunk - 1, true);  // a partial last chunk: stored whole, the extent the rows'
    add(500, false);            // after a partial chunk: through HDF5
    add(2 * kChunk, true);      // not at a chunk edge: through HDF5 too
  }
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_TRUE(h5::read_all<uint32_t>(f, "hits/target") == all);
}

// Contiguous columns of 16 MB and more are read with pread on all cores at the dataset's
// file address; smaller ones and empty ones through HDF5. Both give the bytes written.
TEST(Hdf5Columns, ContiguousColumnsReadBackExactly) {
  const std::string path = temp_path("contiguous.h5");
  std::mt19937_64 rng(11);
  std::vector<uint8_t> big((size_t(17) << 20) + 12345), small(4099);
  for (auto& b : big) b = uint8_t(rng());
  for (auto& b : small) b = uint8_t(rng());
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::write_column(f, "before", small);  // the big column does not start the file's data
    h5::write_contiguous_column(f, "db/big", big);
    h5::write_contiguous_column(f, "small", small);
    h5::write_contiguous_column(f, "empty", std::vector<uint8_t>{});
  }
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_TRUE(h5::read_all<uint8_t>(f, "db/big") == big);
  EXPECT_TRUE(h5::read_all<uint8_t>(f, "small") == small);
  EXPECT_TRUE(h5::read_all<uint8_t>(f, "empty").empty());
  EXPECT_TRUE(h5::read_all<uint8_t>(f, "before") == small);
}

TEST(Hdf5Columns, AttributesRoundTripAndReplace) {
  const std::string path = temp_path("attrs.h5");
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::write_column(f, "g/col", std::vector<uint32_t>{1});
    h5::set_attribute(f, "", "name", std::string("first"));
    h5::set_attribute(f, "", "name", std::string("second"));  // replaced, not duplicated
    h5::set_attribute(f, "/", "count", int64_t(-9000000000LL));
    h5::set_attribute(f, "g/col", "scale", 0.125);
    h5::set_attribute(f, "g", "count", std::string("now a string"));
  }
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_string_attribute(f, "", "name"), "second");
  EXPECT_EQ(h5::read_int_attribute(f, "", "count"), -9000000000LL);
  EXPECT_EQ(h5::read_double_attribute(f, "g/col", "scale"), 0.125);
  EXPECT_EQ(h5::read_string_attribute(f, "g", "count"), "now a string");
  EXPECT_FALSE(h5::has_attribute(f, "", "missing"));
  EXPECT_FALSE(h5::has_attribute(f, "no/such/object", "name"));
  EXPECT_NE(error_of([&] { h5::read_string_attribute(f, "", "count"); }).find("not a string"), std::string::npos);
  EXPECT_NE(error_of([&] { h5::read_string_attribute(f, "", "missing"); }).find("no attribute 'missing'"),
            std::string::npos);
}

TEST(Hdf5Columns, ErrorsNameFileAndObject) {
  const std::string path = temp_path("errors.h5");
  h5::File f(path, h5::Mode::kCreate);
  h5::write_column(f, "nums", std::vector<double>{1.0});
  const std::string missing = error_of([&] { h5::read_all<double>(f, "nope"); });
  EXPECT_NE(missing.find(path), std::string::npos) << missing;
  EXPECT_NE(missing.find("'nope'"), std::string::npos) << missing;
  const std::string twice = error_of([&] { h5::create_column<double>(f, "nums"); });
  EXPECT_NE(twice.find(path + ": cannot create dataset 'nums'"), std::string::npos) << twice;
  const std::string wrong = error_of([&] { h5::read_all<std::string>(f, "nums"); });
  EXPECT_NE(wrong.find("variable-length strings"), std::string::npos) << wrong;
  EXPECT_NE(error_of([] { h5::File("/nonexistent-dir/x.h5", h5::Mode::kReadOnly); })
                .find("cannot open /nonexistent-dir/x.h5: "),
            std::string::npos);
}

TEST(Hdf5Columns, SignatureCheck) {
  const std::string h5path = temp_path("sig.h5");
  { h5::File f(h5path, h5::Mode::kCreate); }
  const std::string text = temp_path("sig.txt");
  std::ofstream(text) << ">a\nACGT\n";
  EXPECT_TRUE(h5::is_hdf5(h5path));
  EXPECT_FALSE(h5::is_hdf5(text));
  EXPECT_FALSE(h5::is_hdf5(temp_path("does-not-exist")));
}

// ---- the result file ----

TEST(ResultFile, RoundTripWithSequencesTilesAndFinalHits) {
  const std::string path = temp_path("small.h5");
  const std::vector<Hit> tile0 = {make_hit(0, 1, 50, 25.5, 1e-3, 1, 1, "10="),
                                  make_hit(1, 0, 40, 20.25, 0.5, 3, 2, "2=1X1I3=2D4=")};
  const std::vector<Hit> tile1 = {make_hit(0, 0, 80, 40.0, 1e-20, 1, 1, "20=")};
  {
    ResultFile rf(path);
    rf.write_sequences("queries", small_set({{"q0", 30}, {"q1", 12}}));
    rf.write_sequences("targets", small_set({{"t0", 25}, {"t1", 10}}));
    rf.append_tile(7, tile0);
    rf.append_tile(3, tile1);
    // Before finish(): the staging rows in arrival order, with their tiles.
    const HitTable staged = read_hit_table(path, "staging/hits");
    expect_same_hits(staged.hits, {tile0[0], tile0[1], tile1[0]});
    {
      h5::File f(path, h5::Mode::kReadOnly);
      EXPECT_EQ(h5::read_all<uint32_t>(f, "staging/hits/tile"), (std::vector<uint32_t>{7, 7, 3}));
    }
    std::vector<Hit> final_hits = tile0;
    final_hits.insert(final_hits.end(), tile1.begin(), tile1.end());
    std::sort(final_hits.begin(), final_hits.end(), hit_order);
    rf.finish(final_hits);
  }
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  EXPECT_EQ(t.query_ids, (std::vector<std::string>{"q0", "q1"}));
  EXPECT_EQ(t.query_lengths, (std::vector<uint32_t>{30, 12}));
  EXPECT_EQ(t.target_ids, (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(t.target_lengths, (std::vector<uint32_t>{25, 10}));
  expect_same_hits(t.hits, {tile1[0], tile0[0], tile0[1]});
  h5::File f(path, h5::Mode::kReadOnly);
  // The run's state goes with completion: /hits replaces the staging rows.
  EXPECT_FALSE(f.exists("staging"));
  EXPECT_FALSE(f.exists("tiles"));
  // identity is the '=' fraction of the CIGAR: 2=1X1I3=2D4= has 9 of 13 columns identical.
  const std::vector<float> identity = h5::read_all<float>(f, "hits/identity");
  EXPECT_EQ(identity, (std::vector<float>{1.0f, 1.0f, float(9.0 / 13.0)}));
}

TEST(ResultFile, EmptyHitsRoundTrip) {
  const std::string path = temp_path("empty.h5");
  {
    ResultFile rf(path);
    rf.append_tile(0, {});
    rf.finish({});
  }
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  EXPECT_TRUE(t.hits.empty());
  h5::File f(path, h5::Mode::kReadOnly);
  for (const char* col : {"hits/query", "hits/cigar_end", "hits/cigar_chars", "hits/identity"}) EXPECT_EQ(h5::column_length(f, col), 0u) << col;
  EXPECT_FALSE(f.exists("staging"));
}

TEST(ResultFile, HundredThousandRowsAcrossChunkBoundaries) {
  const std::string path = temp_path("large.h5");
  const std::vector<Hit> hits = random_hits(100000, 42);
  std::vector<Hit> final_hits = hits;
  std::sort(final_hits.begin(), final_hits.end(), hit_order);
  // Uneven tiles so appends start and end in the middle of 8Ki staging chunks.
  const std::vector<size_t> tile_sizes = {1, 8191, 8193, 30000, 3, 53612};
  std::vector<Hit> staged;  // each tile's rows sorted: a run
  {
    ResultFile rf(path);
    size_t at = 0;
    for (size_t k = 0; k < tile_sizes.size(); ++k) {
      std::vector<Hit> tile(hits.begin() + at, hits.begin() + at + tile_sizes[k]);
      rf.append_tile(uint32_t(k), tile);
      std::sort(tile.begin(), tile.end(), hit_order);
      staged.insert(staged.end(), tile.begin(), tile.end());
      at += tile_sizes[k];
    }
    ASSERT_EQ(at, hits.size());
    expect_same_hits(read_hit_table(path, "staging/hits").hits, staged);
    {
      h5::File f(path, h5::Mode::kReadOnly);
      const std::vector<uint32_t> tile = h5::read_all<uint32_t>(f, "staging/hits/tile");
      ASSERT_EQ(tile.size(), hits.size());
      EXPECT_EQ(tile[0], 0u);
      EXPECT_EQ(tile[8191], 1u);
      EXPECT_EQ(tile[8192], 2u);
      EXPECT_EQ(tile.back(), 5u);
    }
    rf.finish(final_hits);
  }
  expect_same_hits(read_hit_table(path).hits, final_hits);
}

// Batch mode: tiles wait in memory and are staged on a writer thread; finish() drops what
// still waits (the final table supersedes it), and every row is in /hits all the same.
TEST(ResultFile, BatchedStagingThenFinishKeepsEveryRow) {
  const std::string path = temp_path("batched.h5");
  const std::vector<Hit> hits = random_hits(20000, 7);
  std::vector<Hit> final_hits = hits;
  std::sort(final_hits.begin(), final_hits.end(), hit_order);
  {
    ResultFile rf(path);
    rf.stage_in_batches(0.0);  // a batch at every append, unless the writer is still busy
    for (size_t k = 0; k < hits.size(); k += 1000)
      rf.append_tile_lazily(uint32_t(k / 1000), [&hits, k] { return std::vector<Hit>(hits.begin() + k, hits.begin() + k + 1000); }, 0);
    rf.finish(final_hits);
  }
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  expect_same_hits(t.hits, final_hits);
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_FALSE(f.exists("staging"));
  EXPECT_FALSE(f.exists("tiles"));
}

// finish_merged(): tiles staged as sorted runs (unsorted rows in, any tile sizes, some
// empty), merged into /hits in hit_order in a fresh file: every row, no run state, the
// attributes and sequences carried over.
TEST(ResultFile, FinishMergedWritesEveryRowInHitOrder) {
  const std::string path = temp_path("merged.h5");
  const std::vector<Hit> hits = random_hits(60000, 5);
  std::vector<Hit> final_hits = hits;
  std::sort(final_hits.begin(), final_hits.end(), hit_order);
  uint64_t rows = 0;
  {
    ResultFile rf(path);
    rf.set_attribute("matrix", std::string("BLOSUM62"));
    rf.set_attribute("gap_open", int64_t(11));
    SequenceSet q;
    const uint8_t codes[3] = {0, 1, 2};
    q.add("q1", codes, 3);
    rf.write_sequences("queries", q);
    rf.stage_in_batches(0.0);
    uint32_t tile = 0;
    for (size_t k = 0, n = 1; k < hits.size(); k += n, n = n * 3 % 7919 + 1) {
      const size_t end = std::min(hits.size(), k + n);
      rf.append_tile_lazily(tile++, [&hits, k, end] { return std::vector<Hit>(hits.begin() + k, hits.begin() + end); }, 0);
      if (tile % 5 == 0) rf.append_tile(tile++, {});
    }
    rows = rf.finish_merged();
  }
  EXPECT_EQ(rows, hits.size());
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  expect_same_hits(t.hits, final_hits);
  EXPECT_EQ(t.query_ids, std::vector<std::string>{"q1"});
  EXPECT_EQ(read_string_attribute(path, "matrix"), "BLOSUM62");
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_int_attribute(f, "", "gap_open"), 11);
  EXPECT_TRUE(h5::has_attribute(f, "", "end_time"));
  EXPECT_FALSE(f.exists("staging"));
  EXPECT_FALSE(f.exists("tiles"));
  EXPECT_FALSE(std::ifstream(path + ".finishing").good());
}

// The final merge cut into segments smaller than one query's rows, than a run, or holding
// everything (parts merged on all cores): always the rows of one sort in hit_order, and
// --max-hits keeps each query's best rows across segments.
TEST(RunMerge, SegmentsOfAnySizeGiveTheRowsOfOneSort) {
  const std::string path = temp_path("runs.h5");
  const std::vector<Hit> hits = random_hits(20000, 11);
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  {
    h5::File f(path, h5::Mode::kCreate);
    create_hit_table(f, "staging/hits", false, 4096, h5::Compression::kNone);
    uint64_t at = 0, chars = 0;
    for (size_t k = 0, n = 1; k < hits.size(); k += n, n = n * 5 % 3989 + 1) {
      std::vector<const Hit*> run;
      for (size_t i = k; i < std::min(hits.size(), k + n); ++i) run.push_back(&hits[i]);
      std::sort(run.begin(), run.end(), [](const Hit* a, const Hit* b) { return hit_order(*a, *b); });
      HitTableColumns c = hit_table_columns(run, chars, false);
      append_hit_table(f, "staging/hits", c, false);
      runs.emplace_back(at, run.size());
      at += run.size();
      if (!c.cigar_end.empty()) chars = c.cigar_end.back();
    }
  }
  ASSERT_GT(runs.size(), 10u);
  std::vector<Hit> sorted = hits, best;
  std::sort(sorted.begin(), sorted.end(), hit_order);
  for (size_t i = 0, in_query = 0; i < sorted.size(); ++i) {
    in_query = i > 0 && sorted[i].query == sorted[i - 1].query ? in_query + 1 : 0;
    if (in_query < 7) best.push_back(sorted[i]);
  }
  for (const uint32_t max_per_query : {0u, 7u})
    for (const uint64_t segment : {uint64_t(300), uint64_t(5000), uint64_t(1) << 20}) {
      SCOPED_TRACE("segment " + std::to_string(segment) + ", max per query " + std::to_string(max_per_query));
      const std::string out = temp_path("merged_runs.h5");
      {
        const h5::File from(path, h5::Mode::kReadOnly);
        h5::File to(out, h5::Mode::kCreate);
        MergeRules rules;
        rules.max_per_query = max_per_query;
        rules.segment_rows = segment;
        EXPECT_EQ(merge_sorted_runs(from, "staging/hits", runs, to, "hits", rules),
                  max_per_query ? best.size() : hits.size());
      }
      const h5::File f(out, h5::Mode::kReadOnly);
      expect_same_hits(read_hit_rows(f, "hits"), max_per_query ? best : sorted);
    }
}

// finish_merged(max_per_query): each query's best rows over all tiles, as a search keeps them.
TEST(ResultFile, FinishMergedKeepsTheBestRowsOfEachQuery) {
  const std::string path = temp_path("merged_top.h5");
  const std::vector<Hit> hits = random_hits(30000, 9);
  std::vector<Hit> sorted = hits, best;
  std::sort(sorted.begin(), sorted.end(), hit_order);
  for (size_t i = 0, run = 0; i < sorted.size(); ++i) {
    run = i > 0 && sorted[i].query == sorted[i - 1].query ? run + 1 : 0;
    if (run < 7) best.push_back(sorted[i]);
  }
  {
    ResultFile rf(path);
    for (size_t k = 0; k < hits.size(); k += 3000)
      rf.append_tile(uint32_t(k / 3000), std::vector<Hit>(hits.begin() + k, hits.begin() + k + 3000));
    EXPECT_EQ(rf.finish_merged(7), best.size());
  }
  expect_same_hits(read_hit_table(path).hits, best);
}

// finish_merged(max_per_query, max_evalue): the best rows by score first, then the E-value cut
// (E-values with a per-subject term are not monotone in the score: cutting first would change
// which rows make the top). A row beyond the E-value still takes its place in the top.
TEST(ResultFile, FinishMergedCutsTheTopByEvalueAfterRanking) {
  const std::string path = temp_path("merged_top_evalue.h5");
  std::vector<Hit> hits = random_hits(30000, 13);
  for (size_t i = 0; i < hits.size(); ++i) hits[i].evalue = double((i * 7919) % 1000) / 100.0;  // 0 .. 9.99
  std::vector<Hit> sorted = hits, best;
  std::sort(sorted.begin(), sorted.end(), hit_order);
  for (size_t i = 0, run = 0; i < sorted.size(); ++i) {
    run = i > 0 && sorted[i].query == sorted[i - 1].query ? run + 1 : 0;
    if (run < 11 && sorted[i].evalue <= 4.0) best.push_back(sorted[i]);
  }
  std::set<uint32_t> queries;
  for (const Hit& h : hits) queries.insert(h.query);
  ASSERT_LT(best.size(), 11 * queries.size());  // the cut removed rows from the top
  {
    ResultFile rf(path);
    for (size_t k = 0; k < hits.size(); k += 3000)
      rf.append_tile(uint32_t(k / 3000), std::vector<Hit>(hits.begin() + k, hits.begin() + k + 3000));
    EXPECT_EQ(rf.finish_merged(11, 4.0), best.size());
  }
  expect_same_hits(read_hit_table(path).hits, best);
}

// end_staging() at the end of a run: a batch in flight stops, waiting tiles are dropped, and
// what follows (attributes, finish) writes a complete file with every final row. Stopped
// before finish, the file stays incomplete and its staging rows a resumable prefix of tiles.
TEST(ResultFile, EndStagingThenAttributesThenFinish) {
  const std::string path = temp_path("end_staging.h5");
  const std::vector<Hit> hits = random_hits(200000, 11);  // long CIGAR columns: cut in pieces
  std::vector<Hit> final_hits = hits;
  std::sort(final_hits.begin(), final_hits.end(), hit_order);
  {
    ResultFile rf(path);
    rf.stage_in_batches(0.0);
    for (size_t k = 0; k < hits.size(); k += 100000)
      rf.append_tile_lazily(uint32_t(k / 100000),
                            [&hits, k] { return std::vector<Hit>(hits.begin() + k, hits.begin() + k + 100000); }, 0);
    rf.end_staging();
    rf.set_attribute("after", int64_t(1));
    EXPECT_EQ(read_string_attribute(path, "status"), "incomplete");
  }
  {
    ResultFile rf(path, ResultFile::OpenMode::kResume);  // recovers the ledger: whole tiles only
    EXPECT_LE(rf.finished_tiles().size(), 2u);
    EXPECT_EQ(rf.finished_hits().size(), rf.finished_tiles().size() * 100000);
    rf.finish(final_hits);
  }
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  expect_same_hits(t.hits, final_hits);
}

TEST(ResultFile, StatusIsIncompleteUntilFinish) {
  const std::string path = temp_path("status.h5");
  const Hit h = make_hit(0, 0, 10, 5.0, 2.0, 1, 1, "3=");
  {
    ResultFile rf(path);
    rf.write_sequences("queries", small_set({{"q", 3}}));
    rf.append_tile(4, {h});
    rf.append_tile(9, {h, h});
    // A crash here leaves what the tiles flushed, marked incomplete: read it while open.
    EXPECT_EQ(read_string_attribute(path, "status"), "incomplete");
    EXPECT_EQ(read_hit_table(path, "staging/hits").hits.size(), 3u);
  }  // destroyed without finish(), as an interrupted run would be
  const HitTable t = read_hit_table(path, "staging/hits");
  EXPECT_EQ(t.status, "incomplete");
  EXPECT_EQ(t.hits.size(), 3u);
  EXPECT_NE(error_of([&] { read_hit_table(path); }).find("no 'hits' table"), std::string::npos);
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_FALSE(h5::has_attribute(f, "", "end_time"));
}

TEST(ResultFile, LedgerHasOneDoneRowPerAppendedTile) {
  const std::string path = temp_path("ledger.h5");
  const std::vector<uint32_t> ids = {12, 0, 5, 99, 3};
  {
    ResultFile rf(path);
    for (uint32_t id : ids) rf.append_tile(id, std::vector<Hit>(id % 3, make_hit(0, id, 1, 1, 1, 1, 1, "1=")));
    h5::File f(path, h5::Mode::kReadOnly);
    EXPECT_EQ(h5::read_all<uint32_t>(f, "tiles/id"), ids);
    EXPECT_EQ(h5::read_all<uint8_t>(f, "tiles/status"), std::vector<uint8_t>(ids.size(), 1));
    const std::vector<uint32_t> tile = h5::read_all<uint32_t>(f, "staging/hits/tile");
    EXPECT_EQ(tile, (std::vector<uint32_t>{5, 5}));  // only tile 5 had rows (id % 3 of them)
  }
}

TEST(ResultFile, AttributesRoundTrip) {
  const std::string path = temp_path("meta.h5");
  {
    ResultFile rf(path);
    rf.set_attribute("workload", std::string("search"));
    rf.set_attribute("matrix", std::string("BLOSUM62"));
    rf.set_attribute("gap_open", int64_t(11));
    rf.set_attribute("db_residues", int64_t(207000000000LL));
    rf.set_attribute("lambda", 0.267);
    rf.finish({});
    EXPECT_NE(error_of([&] { rf.set_attribute("late", int64_t(1)); }).find("after the result file was finished"),
              std::string::npos);
    EXPECT_NE(error_of([&] { rf.finish({}); }).find("cannot finish"), std::string::npos);
  }
  EXPECT_EQ(read_string_attribute(path, "workload"), "search");
  EXPECT_EQ(read_string_attribute(path, "matrix"), "BLOSUM62");
  EXPECT_EQ(read_string_attribute(path, "program"), "hpcalign");
  EXPECT_EQ(read_string_attribute(path, "version"), HPCALIGN_VERSION);
  EXPECT_EQ(read_string_attribute(path, "status"), "complete");
  const std::regex iso(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  EXPECT_TRUE(std::regex_match(read_string_attribute(path, "start_time"), iso));
  EXPECT_TRUE(std::regex_match(read_string_attribute(path, "end_time"), iso));
  EXPECT_LE(read_string_attribute(path, "start_time"), read_string_attribute(path, "end_time"));
  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_int_attribute(f, "", "gap_open"), 11);
  EXPECT_EQ(h5::read_int_attribute(f, "", "db_residues"), 207000000000LL);
  EXPECT_EQ(h5::read_double_attribute(f, "", "lambda"), 0.267);
}

TEST(ResultFile, UnwritablePathNamesThePath) {
  EXPECT_EQ(error_of([] { ResultFile rf("/nonexistent-dir/out.h5"); })
                .rfind("cannot create /nonexistent-dir/out.h5: ", 0),
            0u);
  const std::string dir = test::temp_dir();  // a directory cannot be truncated into a file
  EXPECT_EQ(error_of([&] { ResultFile rf(dir); }).rfind("cannot create " + dir + ": ", 0), 0u);
}

TEST(ResultFile, RejectsFilesThatAreNotResults) {
  const std::string text = temp_path("not-h5.txt");
  std::ofstream(text) << "qseqid\tsseqid\n";
  EXPECT_NE(error_of([&] { read_hit_table(text); }).find(text + " is not an hpcalign result file"),
            std::string::npos);
  const std::string other = temp_path("other.h5");
  {
    h5::File f(other, h5::Mode::kCreate);
    h5::write_column(f, "hits/query", std::vector<uint32_t>{1});
  }
  EXPECT_NE(error_of([&] { read_hit_table(other); }).find(other + " is not an hpcalign result file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_hit_table(temp_path("missing.h5")); }).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of([&] { ResultFile(temp_path("seq.h5")).write_sequences("subjects", {}); })
                .find("must be 'queries' or 'targets'"),
            std::string::npos);
}

TEST(ResultFile, MismatchedColumnLengthsAreReported) {
  const std::string path = temp_path("ragged.h5");
  {
    ResultFile rf(path);
    rf.finish({make_hit(0, 0, 1, 1, 1, 1, 1, "1=")});
  }
  {
    h5::File f(path, h5::Mode::kReadWrite);
    h5::append(f, "hits/score", std::vector<int32_t>{5});
  }
  EXPECT_NE(error_of([&] { read_hit_table(path); }).find("column 'hits/score' has 2 rows, expected 1"),
            std::string::npos);
}

// Workers staging their own runs (io/run_files.hpp): several threads write their tiles' rows
// to their own files at once; the merge of the runs they report is the rows of one sort, for
// segments smaller than a query's rows, than a run, or holding everything.
TEST(RunFiles, WorkersStagingConcurrentlyMergeToOneSort) {
  const std::string dir = temp_path("concurrent.h5.runs");
  prepare_run_directory(dir, true);
  const std::vector<Hit> hits = random_hits(40000, 21);
  constexpr size_t kWorkers = 4, kTile = 1700;
  std::vector<std::vector<StagedRun>> runs(kWorkers);
  std::vector<std::thread> pool;
  for (size_t w = 0; w < kWorkers; ++w)
    pool.emplace_back([&, w] {
      RecordFile writer(dir, "w" + std::to_string(w));
      for (size_t k = w * kTile; k < hits.size(); k += kWorkers * kTile) {
        std::vector<Hit> tile(hits.begin() + k, hits.begin() + std::min(hits.size(), k + kTile));
        runs[w].push_back(HitRecords().write(writer, uint32_t(k / kTile), tile));
      }
    });
  for (auto& t : pool) t.join();
  std::vector<StagedRun> all;
  for (auto& r : runs) all.insert(all.end(), r.begin(), r.end());
  ASSERT_EQ(all.size(), (hits.size() + kTile - 1) / kTile);
  for (const StagedRun& r : all) EXPECT_TRUE(HitRecords().is_whole(dir, r)) << r.file << " @" << r.offset;
  std::vector<Hit> sorted = hits;
  std::sort(sorted.begin(), sorted.end(), hit_order);
  for (const uint64_t segment : {uint64_t(300), uint64_t(5000), uint64_t(1) << 20}) {
    SCOPED_TRACE("segment " + std::to_string(segment));
    const std::string out = temp_path("merged_files.h5");
    {
      h5::File to(out, h5::Mode::kCreate);
      MergeRules rules;
      rules.segment_rows = segment;
      EXPECT_EQ(merge_sorted_runs(RunFiles(dir, all), to, "hits", rules), hits.size());
    }
    const h5::File f(out, h5::Mode::kReadOnly);
    expect_same_hits(read_hit_rows(f, "hits"), sorted);
  }
  // Through the result file: its attributes and sequences kept, /hits merged, status complete.
  const std::string path = temp_path("from_files.h5");
  {
    ResultFile rf(path);
    rf.set_attribute("workload", std::string("allvsall"));
    EXPECT_EQ(rf.finish_merged(RunFiles(dir, all)), hits.size());
  }
  const HitTable t = read_hit_table(path);
  EXPECT_EQ(t.status, "complete");
  expect_same_hits(t.hits, sorted);
  remove_run_directory(dir);
}

// The merge's stages overlap (read the next segment, deflate and store the last one while one
// merges) and its chunks are deflated apart from HDF5: over several output chunks, segments
// smaller and larger than a chunk (cut by rows or by bytes), and rows equal in hit_order in different runs (kept in the
// runs' order), the table is the rows of one stable sort of the runs in order, with each
// row's identity from its CIGAR.
// The level of a dataset's deflate filter as its creation properties hold it (-1: none).
int deflate_level_of(const h5::File& f, const std::string& path) {
  const h5::Handle dset(H5Dopen2(f.id(), path.c_str(), H5P_DEFAULT), H5Dclose);
  const h5::Handle dcpl(H5Dget_create_plist(dset.get()), H5Pclose);
  unsigned flags = 0, values[4] = {}, config = 0;
  size_t n = 4;
  if (H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_DEFLATE, &flags, &n, values, 0, nullptr, &config) < 0) return -1;
  return n > 0 ? int(values[0]) : -1;
}

// `hits` staged in runs of 7,001 rows (a tile each, sorted; a twin lies in a later run than its
// original) in dir's "w0"; `in_run_order` gets the rows one stable sort of the runs gives.
std::vector<StagedRun> write_tiles_as_runs(const std::string& dir, const std::vector<Hit>& hits,
                                           std::vector<Hit>& in_run_order) {
  constexpr size_t kTile = 7001;
  std::vector<StagedRun> runs;
  in_run_order.clear();
  RecordFile writer(dir, "w0");
  for (size_t k = 0; k < hits.size(); k += kTile) {
    std::vector<Hit> tile(hits.begin() + k, hits.begin() + std::min(hits.size(), k + kTile));
    std::sort(tile.begin(), tile.end(), hit_order);
    in_run_order.insert(in_run_order.end(), tile.begin(), tile.end());
    runs.push_back(HitRecords().write(writer, uint32_t(k / kTile), tile));
  }
  std::stable_sort(in_run_order.begin(), in_run_order.end(), hit_order);
  return runs;
}

// dir's runs merged into a new file `out` with segments cut at `rows`/`bytes` and a `memory`
// budget (0: the defaults); every one of the `expected` rows written.
MergeTimes merge_runs_into(const std::string& out, const std::string& dir, const std::vector<StagedRun>& runs,
                           uint64_t rows, uint64_t bytes, uint64_t memory, uint64_t expected, size_t threads = 0) {
  MergeTimes times;
  h5::File to(out, h5::Mode::kCreate);
  MergeRules rules;
  rules.threads = threads;
  rules.segment_rows = rows;
  rules.segment_bytes = bytes;
  rules.memory = memory;
  rules.times = &times;
  EXPECT_EQ(merge_sorted_runs(RunFiles(dir, runs), to, "hits", rules), expected);
  return times;
}

TEST(RunMerge, OverlappedStagesOverChunksGiveOneStableSort) {
  const std::string dir = temp_path("overlap.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits = random_hits(150000, 33);
  for (size_t i = 0; i < 3000; ++i) {  // twins: the same query, score and target, another start
    Hit twin = hits[i * 37];
    twin.aln.qstart += 1;
    hits.push_back(twin);
  }
  std::vector<Hit> in_run_order;
  const std::vector<StagedRun> runs = write_tiles_as_runs(dir, hits, in_run_order);
  ASSERT_GT(hits.size(), 2 * h5::kDefaultChunk);
  // (rows, bytes) a segment: the last cut by its bytes (rows and CIGAR characters), ~5,000 rows;
  // then segments cut by a memory budget alone: 1 MiB (a few thousand rows), the default.
  // Then on a given number of threads (MergeRules::threads: merges side by side), one or three.
  struct Cut {
    uint64_t rows, bytes, memory;
    size_t threads;
  };
  for (const Cut& cut : std::vector<Cut>{{1000, 0, 0, 0}, {20000, 0, 0, 0}, {200000, 0, 0, 0}, {200000, 300000, 0, 0},
                                         {0, 0, uint64_t(1) << 20, 0}, {0, 0, 0, 0}, {20000, 0, 0, 1}, {20000, 0, 0, 3}}) {
    SCOPED_TRACE("segment " + std::to_string(cut.rows) + " rows, " + std::to_string(cut.bytes) + " bytes, memory " +
                 std::to_string(cut.memory) + ", threads " + std::to_string(cut.threads));
    const std::string out = temp_path("overlap_merged.h5");
    const MergeTimes times = merge_runs_into(out, dir, runs, cut.rows, cut.bytes, cut.memory, hits.size(), cut.threads);
    if (cut.memory) EXPECT_GE(times.segments, hits.size() * 340 / cut.memory);  // what the budget holds a segment
    // The default budget holds the 153,000 rows at once; a merge within its budget is still cut
    // into segments of at least two chunks (131,072 rows), so that its stages overlap: two.
    if (!cut.rows && !cut.memory) EXPECT_EQ(times.segments, 2u);
    EXPECT_GT(times.merge, 0.0);
    EXPECT_GT(times.store, 0.0);
    const h5::File f(out, h5::Mode::kReadOnly);
    expect_same_hits(read_hit_rows(f, "hits"), in_run_order);
    // E-values and (rows with CIGARs) identities in deflate's stored blocks (level 0: random
    // mantissa bits), the rest at level 1.
    EXPECT_EQ(deflate_level_of(f, "hits/evalue"), 0);
    EXPECT_EQ(deflate_level_of(f, "hits/identity"), 0);
    EXPECT_EQ(deflate_level_of(f, "hits/bits"), h5::kFastDeflateLevel);
    const std::vector<float> identity = h5::read_all<float>(f, "hits/identity");
    ASSERT_EQ(identity.size(), in_run_order.size());
    for (size_t i = 0; i < identity.size(); ++i)
      ASSERT_EQ(identity[i], float(cigar_stats(in_run_order[i].aln.cigar).identity())) << "row " << i;
  }
  remove_run_directory(dir);
}

// A merge that keeps every row of score-only runs goes in ranges of whole chunks, each on its
// own thread (run_merge.cpp, merge_ranges): a query's rows split between two ranges (50 queries
// of ~3,000 rows, ranges of one or more 64 Ki-row chunks), rows equal in hit_order in different
// runs (kept in the runs' order), budgets down to one that holds a chunk for one thread: the
// table is the rows of one stable sort, whatever the ranges.
TEST(RunMerge, RangesOfWholeChunksGiveOneStableSort) {
  const std::string dir = temp_path("ranges.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits = random_hits(150000, 41);
  for (Hit& h : hits) h.aln = Alignment{h.aln.score, 0, 0, 0, 0, ""};  // score-only rows
  for (size_t i = 0; i < 3000; ++i) {  // twins: the same query, score and target, another E-value
    Hit twin = hits[i * 37];
    twin.evalue *= 2;
    hits.push_back(twin);
  }
  std::vector<Hit> in_run_order;
  const std::vector<StagedRun> runs = write_tiles_as_runs(dir, hits, in_run_order);
  ASSERT_GT(hits.size(), 2 * h5::kDefaultChunk);
  struct Cut {
    uint64_t rows, memory;
    size_t ranges;   // 0: not checked
    size_t threads;  // MergeRules::threads (0: every core)
  };
  for (const Cut& cut : std::vector<Cut>{{1000, 0, 3, 0}, {70000, 0, 3, 0}, {140000, 0, 2, 0}, {1u << 20, 0, 1, 0},
                                         {0, uint64_t(1) << 20, 3, 0}, {0, 0, 0, 0}, {1000, 0, 3, 1},
                                         {0, uint64_t(1) << 20, 0, 3}}) {
    SCOPED_TRACE("range " + std::to_string(cut.rows) + " rows, memory " + std::to_string(cut.memory) + ", threads " +
                 std::to_string(cut.threads));
    const std::string out = temp_path("ranges_merged.h5");
    const MergeTimes times = merge_runs_into(out, dir, runs, cut.rows, 0, cut.memory, hits.size(), cut.threads);
    if (cut.ranges) EXPECT_EQ(times.segments, cut.ranges);  // whole chunks a range, at least one
    const h5::File f(out, h5::Mode::kReadOnly);
    expect_same_hits(read_hit_rows(f, "hits"), in_run_order);
    // Score-only rows: identities all zero, deflated at level 1 (to nothing), not stored.
    EXPECT_EQ(deflate_level_of(f, "hits/identity"), h5::kFastDeflateLevel);
    const h5::Handle identity(H5Dopen2(f.id(), "hits/identity", H5P_DEFAULT), H5Dclose);
    EXPECT_LT(H5Dget_storage_size(identity.get()), hits.size() / 100);
  }
  remove_run_directory(dir);
}

// A merge's pieces as rows: an intermediate merge's output (chunks of one row, so ranges of any
// size, CIGARs in them), each piece's characters checked to start where the last one's ended.
class CollectedRows : public MergeOutput {
 public:
  void store(HitTableColumns& piece, const DeflatedHitTable&) override {
    EXPECT_EQ(piece.chars_base, chars_) << "piece at row " << rows.size();
    for (size_t i = 0; i < piece.rows(); ++i) {
      Hit h;
      h.query = piece.query[i], h.target = piece.target[i], h.bits = piece.bits[i], h.evalue = piece.evalue[i];
      h.aln = Alignment{piece.score[i], piece.qstart[i], piece.qend[i], piece.tstart[i], piece.tend[i], piece.cigar(i)};
      rows.push_back(h);
    }
    if (piece.rows() > 0) chars_ = piece.cigar_end.back();
  }
  std::vector<Hit> rows;

 private:
  uint64_t chars_ = 0;
};

// One query's rows span many ranges of a merge that keeps every row (run_merge.cpp,
// merge_ranges): each range reads from every run only its own rows of that query (cut by rank
// in each run, many rows tied on score and target within and across runs), so the rows a range
// reads never pass its bound, however many the query's, and the rows are those of one range.
// An intermediate merge with CIGARs (~37,500 rows of one query in 8 runs, more than a 1 MiB
// budget holds), and /hits of score-only runs (a query of ~150,000 rows, ranges of one chunk).
TEST(RunMerge, AQueryAcrossRangesIsReadOnlyARangeAtATime) {
  const std::string dir = temp_path("split_query.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits = random_hits(50000, 57);
  for (size_t i = 0; i < hits.size(); ++i)
    if (i % 4 != 0) hits[i].query = 7, hits[i].aln.score %= 16, hits[i].target %= 300;  // ~8 rows a (score, target)
  for (size_t i = 0; i < 2000; ++i) {  // twins in later runs
    Hit twin = hits[i * 13];
    twin.aln.qstart += 1;
    hits.push_back(twin);
  }
  const size_t busiest = size_t(std::count_if(hits.begin(), hits.end(), [](const Hit& h) { return h.query == 7; }));
  std::vector<Hit> in_run_order;
  const std::vector<StagedRun> runs = write_tiles_as_runs(dir, hits, in_run_order);
  const auto merged = [&](uint64_t rows, uint64_t memory, MergeTimes& times) {
    CollectedRows out;
    MergeRules rules;
    rules.segment_rows = rows, rules.memory = memory, rules.times = &times;
    EXPECT_EQ(merge_sorted_runs(RunFiles(dir, runs), out, rules), hits.size());
    return out.rows;
  };
  MergeTimes whole;
  const std::vector<Hit> one_range = merged(1u << 20, 0, whole);
  EXPECT_EQ(whole.segments, 1u);
  EXPECT_EQ(whole.most_rows_read, hits.size());
  ASSERT_EQ(one_range.size(), hits.size());
  EXPECT_TRUE(std::is_sorted(one_range.begin(), one_range.end(), hit_order));
  for (const uint64_t range : {uint64_t(1000), uint64_t(2999), uint64_t(9000)}) {
    SCOPED_TRACE("ranges of " + std::to_string(range) + " rows");
    MergeTimes times;
    expect_same_hits(merged(range, 0, times), one_range);
    EXPECT_EQ(times.segments, (hits.size() + range - 1) / range);
    EXPECT_EQ(times.most_rows_read, range);
  }
  {  // ranges cut by a budget smaller than the query's rows: each range's rows (as read, and
     // their bucketing) within it
    SCOPED_TRACE("a 1 MiB budget");
    constexpr uint64_t kBudget = 1u << 20, kRowAndScratch = 52 + 20;
    ASSERT_GT(busiest * kRowAndScratch, kBudget);
    MergeTimes times;
    expect_same_hits(merged(0, kBudget, times), one_range);
    EXPECT_GE(times.segments, busiest * kRowAndScratch / kBudget + 1);
    EXPECT_LE(times.most_rows_read * kRowAndScratch, kBudget);
  }
  remove_run_directory(dir);

  // /hits: score-only rows, the busiest query over two 64 Ki-row chunks, ranges of one chunk.
  prepare_run_directory(dir, true);
  hits = random_hits(200000, 59);
  for (size_t i = 0; i < hits.size(); ++i) {
    hits[i].aln = Alignment{hits[i].aln.score % 16, 0, 0, 0, 0, ""};
    if (i % 4 != 0) hits[i].query = 7, hits[i].target %= 1000;
  }
  const std::vector<StagedRun> score_runs = write_tiles_as_runs(dir, hits, in_run_order);
  const std::string out = temp_path("split_query.h5");
  const auto table = [&](uint64_t rows) {
    const MergeTimes times = merge_runs_into(out, dir, score_runs, rows, 0, 0, hits.size());
    EXPECT_EQ(times.segments, (hits.size() + rows - 1) / rows);
    EXPECT_LE(times.most_rows_read, rows);
    return read_hit_rows(h5::File(out, h5::Mode::kReadOnly), "hits");
  };
  const std::vector<Hit> one = table(1u << 20);
  expect_same_hits(table(h5::kDefaultChunk), one);
  remove_run_directory(dir);
}

// A merge's ranges handed between its threads and the storing thread (run_merge.cpp,
// merge_ranges: a condition a wait, each woken one thread at a time): many more ranges than
// slots, with a store slower than the threads (they wait for slots) or faster (the storer
// waits for them), and a store that fails midway (the failure comes back, no thread is left
// waiting); the rows stored are those of one stable sort, range after range in order.
class TimedRows : public CollectedRows {
 public:
  // A range's store (the storing thread) and its preparation (the range's thread) take this long.
  TimedRows(int store_us, int prepare_us, size_t fail_at = SIZE_MAX)
      : store_us_(store_us), prepare_us_(prepare_us), fail_at_(fail_at) {}
  DeflatedHitTable prepare(HitTableColumns&, size_t) override {
    std::this_thread::sleep_for(std::chrono::microseconds(prepare_us_));
    return {};
  }
  void store(HitTableColumns& piece, const DeflatedHitTable& d) override {
    if (stores_++ == fail_at_) throw Error("store failed on purpose");
    std::this_thread::sleep_for(std::chrono::microseconds(store_us_));
    CollectedRows::store(piece, d);
  }
  size_t stores_ = 0;

 private:
  int store_us_, prepare_us_;
  size_t fail_at_;
};

TEST(RunMerge, RangesHandedOnOneAtATimeStoreInOrderAndStopOnAFailure) {
  const std::string dir = temp_path("handoff.h5.runs");
  prepare_run_directory(dir, true);
  std::vector<Hit> hits = random_hits(40000, 61);
  for (Hit& h : hits) h.aln = Alignment{h.aln.score, 0, 0, 0, 0, ""};
  std::vector<Hit> in_run_order;
  const std::vector<StagedRun> runs = write_tiles_as_runs(dir, hits, in_run_order);
  for (const size_t threads : {size_t(1), size_t(4), size_t(8)})
    for (const bool slow_store : {true, false}) {
      SCOPED_TRACE(std::to_string(threads) + (slow_store ? " threads, the store slower" : " threads, the ranges slower"));
      const int store_us = slow_store ? 300 : 0, prepare_us = slow_store ? 0 : 300 * int(threads);
      MergeTimes times;
      MergeRules rules;
      rules.threads = threads, rules.segment_rows = 400, rules.times = &times;  // 100 ranges, threads + 2 slots
      TimedRows out(store_us, prepare_us);
      EXPECT_EQ(merge_sorted_runs(RunFiles(dir, runs), out, rules), hits.size());
      EXPECT_EQ(times.segments, 100u);
      EXPECT_EQ(out.stores_, 100u);
      expect_same_hits(out.rows, in_run_order);
      EXPECT_GE(times.store_loop, 0.0);
      TimedRows failing(store_us, prepare_us, 37);
      EXPECT_THROW(merge_sorted_runs(RunFiles(dir, runs), failing, rules), Error);
      EXPECT_EQ(failing.stores_, 38u);  // none after the failure
      EXPECT_EQ(failing.rows.size(), 37u * 400);
    }
  remove_run_directory(dir);
}

// An engine's CIGARs in one buffer (in any order there, empty ones too) stage the same record
// as the rows carrying their own strings; also a tile whose CIGARs take many of the
// writer's blocks.
TEST(RunFiles, CigarsFromOneBufferStageTheSameRecord) {
  struct Case {
    size_t hits;
    int repeats;  // each CIGAR's text repeated (a long alignment's)
  };
  for (const Case& tile : {Case{5000, 1}, Case{60000, 32}}) {
    SCOPED_TRACE(std::to_string(tile.hits) + " hits");
    const std::string dir = temp_path("flat.h5.runs");
    prepare_run_directory(dir, true);
    std::vector<Hit> hits = random_hits(tile.hits, 17);
    for (size_t k = 0; k < hits.size(); ++k) {
      std::string& c = hits[k].aln.cigar;
      if (k % 11 == 0) c.clear();
      for (const std::string one = c; c.size() < one.size() * tile.repeats;) c += one;
    }
    std::vector<Hit> own = hits, flat = hits;
    CigarBuffer cigars;
    cigars.resize(flat.size());
    for (size_t k = flat.size(); k-- > 0;) {  // placed back to front
      cigars.set(k, flat[k].aln.cigar);
      flat[k].aln.cigar = "junk the writer must not read";
    }
    if (tile.repeats > 1) EXPECT_GT(cigars.chars.size(), size_t(8) << 20);  // many of the writer's 1 MiB blocks
    {
      RecordFile w0(dir, "w0"), w1(dir, "w1");
      HitRecords().write(w0, 4, own);
      HitRecords().write(w1, 4, flat, &cigars);
    }
    const auto bytes = [&](const std::string& name) {
      std::ifstream in(dir + "/" + name, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string w0 = bytes("w0");
    EXPECT_GT(w0.size(), tile.hits * 52 + cigars.chars.size());
    EXPECT_EQ(w0, bytes("w1"));
    remove_run_directory(dir);
  }
}

// A worker file outlives its session: a later writer of the same name (a resumed run) appends
// after the records already there, a torn record included, and never truncates; a record cut
// short, or a place that does not match its header, is not whole.
TEST(RunFiles, LaterSessionsAppendAndCutRecordsAreNotWhole) {
  const std::string dir = temp_path("sessions.h5.runs");
  prepare_run_directory(dir, true);
  const std::vector<Hit> hits = random_hits(3000, 5);
  StagedRun first, second;
  {
    RecordFile w(dir, "w0");
    std::vector<Hit> tile(hits.begin(), hits.begin() + 1000);
    first = HitRecords().write(w, 3, tile);
  }
  {  // a kill in the middle of the next record
    std::ofstream torn(dir + "/w0", std::ios::binary | std::ios::app);
    torn << "HPR1 torn";
  }
  {
    RecordFile w(dir, "w0");
    std::vector<Hit> tile(hits.begin() + 1000, hits.end());
    second = HitRecords().write(w, 8, tile);
  }
  EXPECT_EQ(first.offset, 0u);
  EXPECT_GT(second.offset, first.offset);
  EXPECT_TRUE(HitRecords().is_whole(dir, first));
  EXPECT_TRUE(HitRecords().is_whole(dir, second));
  StagedRun wrong = second;
  wrong.tile = 9;
  EXPECT_FALSE(HitRecords().is_whole(dir, wrong));
  wrong = first;
  wrong.offset = 1;
  EXPECT_FALSE(HitRecords().is_whole(dir, wrong));
  std::vector<Hit> sorted = hits;
  std::sort(sorted.begin(), sorted.end(), hit_order);
  const std::string out = temp_path("sessions_merged.h5");
  {
    h5::File to(out, h5::Mode::kCreate);
    EXPECT_EQ(merge_sorted_runs(RunFiles(dir, {first, second}), to, "hits", MergeRules{}), hits.size());
  }
  expect_same_hits(read_hit_rows(h5::File(out, h5::Mode::kReadOnly), "hits"), sorted);
  // The file cut inside the second record (a node that crashed before the page cache reached
  // the disk): that record is no longer whole, the first still is.
  std::filesystem::resize_file(dir + "/w0", second.offset + 100);
  EXPECT_TRUE(HitRecords().is_whole(dir, first));
  EXPECT_FALSE(HitRecords().is_whole(dir, second));
  // A new run empties the directory of run files, and only of them: a file of another name
  // (not ours) stays, and so does the directory then.
  std::ofstream(dir + "/notes.txt") << "not a run file";
  prepare_run_directory(dir, true);
  EXPECT_FALSE(HitRecords().is_whole(dir, first));
  EXPECT_FALSE(std::filesystem::exists(dir + "/w0"));
  remove_run_directory(dir);
  EXPECT_TRUE(std::filesystem::exists(dir + "/notes.txt"));
  std::filesystem::remove(dir + "/notes.txt");
  remove_run_directory(dir);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace hpc
