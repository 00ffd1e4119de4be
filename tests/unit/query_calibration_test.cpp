// --stats regress's calibration: a database no larger than the sample is its own sample, so a
// search of it that keeps every score must give the fits of the sample's own search (which is
// what lets a tile fit on its own scores), and the sample spans the database's lengths.
#include <gtest/gtest.h>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/backend.hpp"
#include "src/stats/query_calibration.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {

SearchSetup setup_for(const SequenceSet& queries, const Database& db, uint32_t max_hits) {
  SearchSetup s;
  s.queries = &queries;
  s.db = &db;
  s.matrix = load_matrix("BLOSUM62");
  s.gaps = {11, 1};
  s.max_hits = max_hits;
  return s;
}

}  // namespace

TEST(QueryCalibration, OwnScoresOfAWholeDatabaseGiveTheSampleFits) {
  const SequenceSet all = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet queries, subjects;
  for (uint32_t i = 0; i < 12; ++i) queries.add(all.ids[i * 97], all.view(i * 97).data, all.view(i * 97).length);
  for (uint32_t i = 0; i < 400; ++i) subjects.add(all.ids[i * 5], all.view(i * 5).data, all.view(i * 5).length);
  const Database db = make_database(std::move(subjects));
  const SearchSetup search = setup_for(queries, db, uint32_t(db.seqs.size()));

  QueryCalibration calibration(search, BackendKind::Cpu, 0, 1);
  ASSERT_TRUE(calibration.whole_database());
  std::vector<uint32_t> ids;
  for (uint32_t q = 0; q < queries.size(); ++q) ids.push_back(q);
  const auto sampled = calibration.fit(ids);

  auto backend = make_search_backend(BackendKind::Cpu, 0, 1, /*faults=*/false);
  backend->prepare(search);
  Tile tile;
  tile.queries = ids;
  tile.part_end = uint32_t(db.seqs.size());
  const auto own = calibration.fit_from(ids, backend->search_tile(tile));

  ASSERT_EQ(own.size(), sampled.size());
  int fitted = 0;
  for (size_t q = 0; q < own.size(); ++q) {
    EXPECT_EQ(own[q].ok, sampled[q].ok) << q;
    EXPECT_EQ(own[q].used, sampled[q].used) << q;
    EXPECT_EQ(own[q].intercept, sampled[q].intercept) << q;  // bit for bit: same scores, same order
    EXPECT_EQ(own[q].slope, sampled[q].slope) << q;
    EXPECT_EQ(own[q].sd, sampled[q].sd) << q;
    fitted += own[q].ok;
  }
  EXPECT_EQ(fitted, int(own.size()));  // 400 subjects: enough for every query (84 at least)
}

TEST(QueryCalibration, SampleSpansTheLengthsOfALargerDatabase) {
  const Database db = make_database(read_fasta(test::data_path("balifam2000.fa")));
  const Database sample = calibration_sample(db, 100);
  ASSERT_EQ(sample.seqs.size(), 100u);
  uint32_t lo = UINT32_MAX, hi = 0;
  for (size_t i = 0; i < sample.seqs.size(); ++i)
    lo = std::min<uint32_t>(lo, sample.seqs.length(i)), hi = std::max<uint32_t>(hi, sample.seqs.length(i));
  // Evenly spaced in length order: the first and last lie within the shortest / longest 1%.
  EXPECT_LE(lo, db.seqs.length(db.by_length[db.seqs.size() / 100]));
  EXPECT_GE(hi, db.seqs.length(db.by_length[db.seqs.size() - 1 - db.seqs.size() / 100]));
}
