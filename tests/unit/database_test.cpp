// io/database.cpp: length order, the makedb HDF5 round trip, and rejection of damaged files.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/hdf5_columns.hpp"
#include "io/result_file.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::temp_path;

SequenceSet set_of_lengths(const std::vector<size_t>& lengths) {
  SequenceSet s;
  s.source = "memory";
  for (size_t i = 0; i < lengths.size(); ++i) {
    std::vector<uint8_t> codes(lengths[i]);
    for (size_t k = 0; k < codes.size(); ++k) codes[k] = uint8_t((i + k) % 24);
    s.add("s" + std::to_string(i), codes.data(), codes.size());
  }
  return s;
}

void expect_same_database(const Database& got, const Database& want) {
  EXPECT_EQ(got.seqs.ids, want.seqs.ids);
  EXPECT_EQ(got.seqs.offsets, want.seqs.offsets);
  EXPECT_TRUE(got.seqs.residues == want.seqs.residues);  // no 1 MB diff dump on failure
  EXPECT_EQ(got.by_length, want.by_length);
}

TEST(Database, ByLengthIsAscendingWithIndexTiebreak) {
  const Database db = make_database(set_of_lengths({5, 3, 5, 1, 3, 0, 5}));
  EXPECT_EQ(db.by_length, (std::vector<uint32_t>{5, 3, 1, 4, 0, 2, 6}));
  EXPECT_EQ(db.seqs.size(), 7u);
  EXPECT_EQ(db.path, "memory");
}

TEST(Database, FastaToHdf5RoundTrip) {
  const std::string fasta = test::data_path("balifam2000.fa");
  const Database from_fasta = load_database(fasta);
  EXPECT_EQ(from_fasta.path, fasta);
  ASSERT_EQ(from_fasta.seqs.size(), 2000u);
  for (size_t k = 1; k < from_fasta.by_length.size(); ++k) {
    const uint32_t a = from_fasta.by_length[k - 1], b = from_fasta.by_length[k];
    const uint32_t la = from_fasta.seqs.length(a), lb = from_fasta.seqs.length(b);
    ASSERT_TRUE(la < lb || (la == lb && a < b)) << "position " << k;
  }
  const Database direct = make_database(read_fasta(fasta));
  expect_same_database(from_fasta, direct);

  const std::string path = temp_path("bali.db.h5");
  write_database(from_fasta, path);
  EXPECT_TRUE(is_hdf5_file(path));
  EXPECT_FALSE(is_hdf5_file(fasta));
  const Database loaded = load_database(path);
  expect_same_database(loaded, from_fasta);
  EXPECT_EQ(loaded.path, path);
  EXPECT_EQ(loaded.seqs.source, path);

  h5::File f(path, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_string_attribute(f, "", "format"), "hpcalign-db");
  EXPECT_EQ(h5::read_int_attribute(f, "", "format_version"), 2);
  EXPECT_EQ(h5::read_int_attribute(f, "", "sequences"), 2000);
  EXPECT_EQ(h5::read_int_attribute(f, "", "residues"), int64_t(from_fasta.seqs.total_residues()));
  EXPECT_EQ(h5::read_string_attribute(f, "", "source"), fasta);
}

TEST(Database, Balifam1000RoundTripsAndReportsTimings) {
  const std::string fasta = test::data_path("balifam1000.fa.gz");
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  const Database db = load_database(fasta);
  auto t1 = clock::now();
  const std::string path = temp_path("bali1000.db.h5");
  write_database(db, path);
  auto t2 = clock::now();
  const Database loaded = load_database(path);
  auto t3 = clock::now();
  expect_same_database(loaded, db);
  EXPECT_EQ(db.seqs.size(), 57592u);
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("balifam1000: %zu sequences, %llu residues; FASTA load %.0f ms, write %.0f ms, HDF5 load %.0f ms\n",
              db.seqs.size(), (unsigned long long)db.seqs.total_residues(), ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
}

// Version 1 (deflated residue chunks, ids as variable-length strings), as makedb wrote it
// before version 2, still loads to the same database.
TEST(Database, VersionOneFilesStillLoad) {
  const Database db = make_database(read_fasta(test::data_path("balifam2000.fa")));
  const std::string path = temp_path("v1.db.h5");
  {
    h5::File f(path, h5::Mode::kCreate);
    h5::write_column(f, "db/residues", db.seqs.residues, 256 * 1024);
    h5::write_column(f, "db/offsets", db.seqs.offsets);
    h5::write_column(f, "db/ids", db.seqs.ids);
    h5::write_column(f, "db/by_length", db.by_length);
    h5::set_attribute(f, "", "format", std::string("hpcalign-db"));
    h5::set_attribute(f, "", "format_version", int64_t(1));
  }
  expect_same_database(load_database(path), db);
}

TEST(Database, IdTextMustEndEveryId) {
  const std::string path = temp_path("bad-ids.h5");
  write_database(make_database(set_of_lengths({2, 1})), path);
  {
    h5::File f(path, h5::Mode::kReadWrite);
    h5::remove_object(f, "db/id_text");
    h5::write_contiguous_column(f, "db/id_text", std::vector<uint8_t>{'s', '0', '\n', 's', '1'});
  }
  const std::string e = error_of([&] { load_database(path); });
  EXPECT_NE(e.find("bad-ids.h5: is not an hpcalign database (/db/id_text does not end with a newline)"),
            std::string::npos)
      << e;
}

TEST(Database, EmptySequencesSurviveTheRoundTrip) {
  const Database db = make_database(set_of_lengths({4, 0, 2}));
  const std::string path = temp_path("with-empty.h5");
  write_database(db, path);
  expect_same_database(load_database(path), db);
}

// Writes `db` without validation (write_database checks only what it must to write)
// and returns the message load_database gives.
std::string load_error_for(Database db, const std::string& name) {
  const std::string path = temp_path(name);
  write_database(db, path);
  return error_of([&] { load_database(path); });
}

TEST(Database, DamagedDatabasesAreRejectedWithReasons) {
  const Database good = make_database(set_of_lengths({3, 4, 2}));

  Database bad_code = good;
  bad_code.seqs.residues[5] = 24;
  std::string e = load_error_for(bad_code, "bad-code.h5");
  EXPECT_NE(e.find("bad-code.h5: is not an hpcalign database (residue code 24 at position 5"), std::string::npos)
      << e;

  Database short_offsets = good;
  short_offsets.seqs.offsets.back() = 8;
  e = load_error_for(short_offsets, "short-offsets.h5");
  EXPECT_NE(e.find("/db/offsets ends at 8 but /db/residues holds 9"), std::string::npos) << e;

  Database decreasing = good;
  decreasing.seqs.offsets = {0, 5, 3, 9};
  e = load_error_for(decreasing, "decreasing.h5");
  EXPECT_NE(e.find("/db/offsets decreases at entry 2"), std::string::npos) << e;

  Database not_perm = good;
  not_perm.by_length = {2, 2, 1};
  e = load_error_for(not_perm, "not-perm.h5");
  EXPECT_NE(e.find("/db/by_length is not a permutation"), std::string::npos) << e;

  Database unsorted = good;
  unsorted.by_length = {0, 1, 2};
  e = load_error_for(unsorted, "unsorted.h5");
  EXPECT_NE(e.find("/db/by_length is not sorted by length"), std::string::npos) << e;

  EXPECT_NE(error_of([&] {
              Database wrong = good;
              wrong.by_length.pop_back();
              write_database(wrong, temp_path("wrong.h5"));
            }).find("database order has 2 entries for 3 sequences"),
            std::string::npos);
}

TEST(Database, OtherHdf5FilesAreNotDatabases) {
  const std::string result = temp_path("result.h5");
  ResultFile(result).finish({});
  std::string e = error_of([&] { load_database(result); });
  EXPECT_NE(e.find(result + ": is not an hpcalign database (no 'format' attribute)"), std::string::npos) << e;

  const std::string future = temp_path("future.h5");
  write_database(make_database(set_of_lengths({1})), future);
  {
    h5::File f(future, h5::Mode::kReadWrite);
    h5::set_attribute(f, "", "format_version", int64_t(3));
  }
  e = error_of([&] { load_database(future); });
  EXPECT_NE(e.find("database format version 3 is not supported"), std::string::npos) << e;

  const std::string missing = temp_path("missing-col.h5");
  {
    h5::File f(missing, h5::Mode::kCreate);
    h5::set_attribute(f, "", "format", std::string("hpcalign-db"));
    h5::set_attribute(f, "", "format_version", int64_t(1));
    h5::write_column(f, "db/residues", std::vector<uint8_t>{1});
  }
  e = error_of([&] { load_database(missing); });
  EXPECT_NE(e.find("missing /db/offsets"), std::string::npos) << e;
}

TEST(Database, TruncatedHdf5FileNamesTheFile) {
  const std::string whole = temp_path("whole.h5");
  write_database(make_database(read_fasta(test::data_path("balifam2000.fa"))), whole);
  std::ifstream in(whole, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), head.size());
  const std::string cut = temp_path("cut.h5");
  std::ofstream(cut, std::ios::binary) << head;
  ASSERT_TRUE(is_hdf5_file(cut));
  const std::string e = error_of([&] { load_database(cut); });
  EXPECT_NE(e.find(cut), std::string::npos) << e;
}

TEST(Database, NonFastaNonHdf5FilesGoToTheFastaReader) {
  const std::string junk = temp_path("junk.bin");
  std::ofstream(junk, std::ios::binary) << std::string("\x01\x02\x00\x03", 4);
  EXPECT_THROW(load_database(junk), InputError);
  EXPECT_THROW(load_database(temp_path("nothing-here.fa")), InputError);
}

}  // namespace
}  // namespace hpc
