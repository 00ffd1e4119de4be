// --stats regress's calibration: a database no larger than the sample is its own sample, so a
// search of it that keeps every score must give the fits of the sample's own search (which is
// what lets a tile fit on its own scores), and the sample spans the database's lengths.
#include <gtest/gtest.h>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/backend.hpp"
#include "src/stats/karlin.hpp"
#include "src/stats/query_calibration.hpp"
#include "src/stats/search_statistics.hpp"
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

// `count` sequences of `all`, every `step`-th.
SequenceSet spaced(const SequenceSet& all, uint32_t count, uint32_t step) {
  SequenceSet out;
  for (uint32_t i = 0; i < count; ++i) out.add(all.ids[i * step], all.view(i * step).data, all.view(i * step).length);
  return out;
}

// A CPU backend (no fault injection) prepared for `s`.
std::unique_ptr<SearchBackend> prepared_cpu(const SearchSetup& s, int threads) {
  auto backend = make_search_backend(BackendKind::Cpu, 0, threads, /*faults=*/false);
  backend->prepare(s);
  return backend;
}

// A tile of `ids` over the whole of `db`.
Tile whole_tile(const std::vector<uint32_t>& ids, const Database& db) {
  Tile tile;
  tile.queries = ids;
  tile.part_end = uint32_t(db.seqs.size());
  return tile;
}

// `count` queries, every `step`-th of balifam2000, against all of it with regress-qcomp's
// statistics (built in place: the setup points into the members).
struct QcompCase {
  QcompCase(uint32_t count, uint32_t step)
      : all(read_fasta(test::data_path("balifam2000.fa"))),
        queries(spaced(all, count, step)),
        db(make_database(read_fasta(test::data_path("balifam2000.fa")))),
        search(setup_for(queries, db, 10)),
        qcomp(StatsMode::RegressQcomp, search.matrix, search.gaps, *published_gapped_params("BLOSUM62", {11, 1}), db) {}
  SequenceSet all, queries;
  Database db;
  SearchSetup search;
  SearchStatistics qcomp;
};

}  // namespace

TEST(QueryCalibration, OwnScoresOfAWholeDatabaseGiveTheSampleFits) {
  const SequenceSet all = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet queries, subjects;
  for (uint32_t i = 0; i < 12; ++i) queries.add(all.ids[i * 97], all.view(i * 97).data, all.view(i * 97).length);
  for (uint32_t i = 0; i < 400; ++i) subjects.add(all.ids[i * 5], all.view(i * 5).data, all.view(i * 5).length);
  const Database db = make_database(std::move(subjects));
  const SearchSetup search = setup_for(queries, db, uint32_t(db.seqs.size()));

  const KarlinParams ka = *published_gapped_params("BLOSUM62", {11, 1});
  const SearchStatistics qcomp(StatsMode::RegressQcomp, search.matrix, search.gaps, ka, db);
  QueryCalibration calibration(search, BackendKind::Cpu, 0, 1, &qcomp);
  ASSERT_TRUE(calibration.whole_database());
  std::vector<uint32_t> ids;
  for (uint32_t q = 0; q < queries.size(); ++q) ids.push_back(q);
  const auto sampled = calibration.fit(ids);

  auto backend = prepared_cpu(search, 1);
  const Tile tile = whole_tile(ids, db);
  const auto own = calibration.fit_from(ids, backend->search_tile(tile), *backend);

  ASSERT_EQ(own.size(), sampled.size());
  int fitted = 0;
  for (size_t q = 0; q < own.size(); ++q) {
    const LengthRegression &a = own[q].regression, &b = sampled[q].regression;
    EXPECT_EQ(a.ok, b.ok) << q;
    EXPECT_EQ(a.used, b.used) << q;
    EXPECT_EQ(a.intercept, b.intercept) << q;  // bit for bit: same scores, same order
    EXPECT_EQ(a.slope, b.slope) << q;
    EXPECT_EQ(a.sd, b.sd) << q;
    EXPECT_EQ(own[q].log_shift, sampled[q].log_shift) << q;  // regress-qcomp's factor too
    EXPECT_NE(own[q].log_shift, 0.0) << q;
    fitted += a.ok;
  }
  EXPECT_EQ(fitted, int(own.size()));  // 400 subjects: enough for every query (84 at least)

  // A query's factor is its own: fitted alone, or with the others in another order, by fresh
  // workers, the same (so a worker may keep it for the query's next tile).
  QueryCalibration fresh(search, BackendKind::Cpu, 0, 1, &qcomp), fresh2(search, BackendKind::Cpu, 0, 2, &qcomp);
  const auto alone = fresh.fit({ids[5]});
  EXPECT_EQ(alone[0].log_shift, sampled[5].log_shift);
  const auto reversed = fresh2.fit(std::vector<uint32_t>(ids.rbegin(), ids.rend()));
  EXPECT_EQ(reversed[ids.size() - 1 - 5].log_shift, sampled[5].log_shift);
  const auto again = fresh.fit({ids[5], ids[6]});  // the kept fit, and a new one
  EXPECT_EQ(again[0].log_shift, sampled[5].log_shift);
  EXPECT_EQ(again[1].log_shift, sampled[6].log_shift);
}

// regress-qcomp's factor over a larger database's sample: the mean of ln(E_regress-comp / E_regress)
// over the sample subjects of regress P <= kShiftSetP, of which at most kShiftSetMax evenly
// spaced in score order, recomputed here from the sample's own scores and alignments. The
// sample is large enough for the cap to apply.
TEST(QueryCalibration, QcompFactorIsTheMeanLogRatioOverTheSample) {
  const QcompCase c(3, 301);
  const auto& [all, queries, db, search, qcomp] = c;
  constexpr uint32_t kSample = 1200;
  QueryCalibration calibration(search, BackendKind::Cpu, 0, 1, &qcomp, kSample);
  ASSERT_FALSE(calibration.whole_database());
  const auto fits = calibration.fit({0, 1, 2});

  const Database sample = calibration_sample(db, kSample);
  SearchSetup on_sample = setup_for(queries, sample, kSample);
  auto backend = prepared_cpu(on_sample, 1);
  const double subjects = double(db.seqs.size());
  for (uint32_t q = 0; q < 3; ++q) {
    ASSERT_TRUE(fits[q].regression.ok) << q;
    Tile tile;
    tile.queries = {q};
    tile.part_end = kSample;
    std::vector<ScoredTarget> set;  // regress P <= kShiftSetP, in score order
    const auto scored = backend->search_tile(tile);
    for (const ScoredTarget& st : scored[0])
      if (st.score > 0 && fits[q].regression.evalue(st.score, sample.seqs.length(st.target), subjects) <=
                              kShiftSetP * subjects)
        set.push_back(st);
    ASSERT_GT(set.size(), kShiftSetMax) << q;  // the cap applies
    double sum = 0;
    for (size_t j = 0; j < kShiftSetMax; ++j) {  // the j-th of kShiftSetMax equal strata, at its middle
      const ScoredTarget& st = set[(2 * j + 1) * set.size() / (2 * kShiftSetMax)];
      const SeqView t = sample.seqs.view(st.target);
      Hit h;
      h.aln = backend->align({{q, st.target}})[0];
      sum += qcomp.log_composition_factor(h, queries.view(q), t, fits[q].regression);
    }
    EXPECT_NEAR(fits[q].log_shift, sum / kShiftSetMax, 1e-9) << q;
  }
}

// A tile over the whole of a larger database scores the sample too: its sample lists (scores at
// the sample's places in the length order) are the sample search's lists, and the fits made
// from them, with regress-qcomp's alignments by the tile's own backend, are fit()'s bit for bit.
TEST(QueryCalibration, TileSampleScoresGiveTheSampleFits) {
  const QcompCase c(6, 211);
  const auto& [all, queries, db, search, qcomp] = c;
  constexpr uint32_t kSample = 700;
  QueryCalibration apart(search, BackendKind::Cpu, 0, 2, &qcomp, kSample), in_tile(search, BackendKind::Cpu, 0, 2,
                                                                                        &qcomp, kSample);
  ASSERT_FALSE(apart.whole_database());
  const std::vector<uint32_t> ids = {4, 0, 5, 2, 1, 3};
  const auto expected = apart.fit(ids);

  auto backend = prepared_cpu(search, 2);
  const Tile tile = whole_tile(ids, db);
  ASSERT_TRUE(in_tile.in_tile(tile));
  const auto scored = backend->search_tile_sampled(tile, in_tile.positions());
  EXPECT_EQ(scored.top.size(), ids.size());
  for (size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(scored.top[k].size(), 10u) << k;

  const Database sample = calibration_sample(db, kSample);
  auto on_sample = prepared_cpu(setup_for(queries, sample, kSample), 2);
  Tile whole_sample = tile;
  whole_sample.part_end = kSample;
  const auto lists = on_sample->search_tile(whole_sample);
  ASSERT_EQ(scored.sample.size(), lists.size());
  for (size_t k = 0; k < lists.size(); ++k) {
    ASSERT_EQ(scored.sample[k].size(), lists[k].size()) << k;
    for (size_t j = 0; j < lists[k].size(); ++j) {
      EXPECT_EQ(scored.sample[k][j].score, lists[k][j].score) << k << " " << j;
      EXPECT_EQ(scored.sample[k][j].target, lists[k][j].target) << k << " " << j;
    }
  }

  const auto got = in_tile.fit_sampled(ids, scored.sample, *backend);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t q = 0; q < got.size(); ++q) {
    const LengthRegression &a = got[q].regression, &b = expected[q].regression;
    EXPECT_TRUE(a.ok) << q;
    EXPECT_EQ(a.intercept, b.intercept) << q;
    EXPECT_EQ(a.slope, b.slope) << q;
    EXPECT_EQ(a.sd, b.sd) << q;
    EXPECT_EQ(got[q].log_shift, expected[q].log_shift) << q;
    EXPECT_NE(got[q].log_shift, 0.0) << q;
  }
  Tile part = tile;
  part.part_end = 100;
  EXPECT_FALSE(in_tile.in_tile(part));
  EXPECT_THROW(backend->search_tile_sampled(part, in_tile.positions()), Error);  // sample outside the tile
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
