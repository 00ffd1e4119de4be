#include <gtest/gtest.h>

#include <cmath>

#include "io/matrix.hpp"
#include "src/core/error.hpp"
#include "src/stats/composition.hpp"
#include "src/stats/finite_size.hpp"
#include "src/stats/search_statistics.hpp"

using namespace hpc;

namespace {
Database two_subjects() {
  SequenceSet db;
  std::vector<uint8_t> a(120), b(400);
  for (size_t i = 0; i < a.size(); ++i) a[i] = uint8_t(i % 20);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t((i * 7) % 20);
  db.add("a", a.data(), a.size());
  db.add("b", b.data(), b.size());
  return make_database(std::move(db));
}
}  // namespace

TEST(SearchStatistics, ModeNames) {
  for (const char* name : {"ka", "blast", "comp", "regress", "regress-comp", "regress-qcomp"}) EXPECT_STREQ(to_string(parse_stats_mode(name)), name);
  EXPECT_THROW(parse_stats_mode("fast"), Error);
}

TEST(SearchStatistics, EachModeUsesItsFormula) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const Database db = two_subjects();
  const KarlinParams ka = *published_gapped_params("BLOSUM62", {11, 1});
  const FiniteSizeParams fsc = *published_finite_size_params("BLOSUM62", {11, 1});
  Hit h;
  h.aln.score = 80;
  h.aln.cigar = "40=5I20X";
  const SeqView q = db.seqs.view(1), t = db.seqs.view(0);

  SearchStatistics plain(StatsMode::Ka, m, {11, 1}, ka, db);
  plain.annotate(h, q, t);
  EXPECT_DOUBLE_EQ(h.evalue, evalue(ka, 80, q.length, 520));
  EXPECT_DOUBLE_EQ(h.bits, bit_score(ka, 80));

  SearchStatistics blast(StatsMode::Blast, m, {11, 1}, ka, db);
  blast.annotate(h, q, t);
  EXPECT_DOUBLE_EQ(h.evalue, finite_size_evalue(fsc, 80, q.length, t.length, 520));
  EXPECT_DOUBLE_EQ(h.bits, bit_score(ka, 80));

  SearchStatistics comp(StatsMode::Comp, m, {11, 1}, ka, db);
  comp.annotate(h, q, t);
  const double standard = ungapped_lambda(m, standard_composition(), standard_composition());
  const double r = composition_lambda_ratio(m, standard, composition_of(q), composition_of(t));
  const double s = rescaled_alignment_score({11, 1}, r, h.aln);
  EXPECT_DOUBLE_EQ(h.evalue, finite_size_evalue(fsc, s, q.length, t.length, 520));
  EXPECT_GE(h.evalue, finite_size_evalue(fsc, 80, q.length, t.length, 520));  // ratio <= 1

  // regress-comp: the query's fit read at comp's rescaled score; comp without a fit.
  QueryFit qfit;
  LengthRegression& fit = qfit.regression;
  fit.intercept = 10, fit.slope = 3, fit.sd = 5, fit.ok = true;
  SearchStatistics regcomp(StatsMode::RegressComp, m, {11, 1}, ka, db);
  regcomp.annotate(h, q, t, &qfit);
  EXPECT_DOUBLE_EQ(h.evalue, fit.evalue(s, t.length, 2));
  EXPECT_DOUBLE_EQ(h.bits, bit_score(ka, 80));
  regcomp.annotate(h, q, t, nullptr);
  EXPECT_DOUBLE_EQ(h.evalue, finite_size_evalue(fsc, s, q.length, t.length, 520));
}

TEST(SearchStatistics, MinScoreBoundsEverySubject) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  SequenceSet seqs;
  std::vector<uint8_t> r(3000, 0);
  for (uint32_t n : {8u, 15u, 22u, 60u, 300u, 3000u}) seqs.add("s" + std::to_string(n), r.data(), n);
  const Database db = make_database(std::move(seqs));
  const KarlinParams ka = *published_gapped_params("BLOSUM62", {11, 1});
  const FiniteSizeParams fsc = *published_finite_size_params("BLOSUM62", {11, 1});
  SearchStatistics blast(StatsMode::Blast, m, {11, 1}, ka, db);
  for (uint32_t qlen : {10u, 100u, 1000u})
    for (double e : {10.0, 1e-5}) {
      const int32_t s = blast.min_score(qlen, e);
      bool someone_reaches = false;
      for (size_t i = 0; i < db.seqs.size(); ++i) {
        const double n = db.seqs.length(i), total = double(db.seqs.total_residues());
        EXPECT_GT(finite_size_evalue(fsc, s - 1, qlen, n, total), e);
        someone_reaches |= finite_size_evalue(fsc, s, qlen, n, total) <= e;
      }
      EXPECT_TRUE(someone_reaches);
    }
}

TEST(SearchStatistics, FiniteSizeModesNeedPublishedTables) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const Database db = two_subjects();
  EXPECT_THROW(SearchStatistics(StatsMode::Blast, m, {5, 5}, {0.2, 0.03, 0}, db), Error);
  EXPECT_NO_THROW(SearchStatistics(StatsMode::Ka, m, {5, 5}, {0.2, 0.03, 0}, db));
}

// regress-qcomp: one factor per query on regress's E-values, the geometric mean of
// E_regress-comp / E_regress: checked against the two modes' own E-values of the same pairs.
TEST(SearchStatistics, QcompShiftsAQueryByItsMeanLogRatio) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const Database db = two_subjects();
  const KarlinParams ka = *published_gapped_params("BLOSUM62", {11, 1});
  const SeqView q = db.seqs.view(1);
  QueryFit qfit;
  qfit.regression.intercept = 10, qfit.regression.slope = 3, qfit.regression.sd = 5, qfit.regression.ok = true;
  SearchStatistics regress(StatsMode::Regress, m, {11, 1}, ka, db), comp(StatsMode::RegressComp, m, {11, 1}, ka, db);
  SearchStatistics qcomp(StatsMode::RegressQcomp, m, {11, 1}, ka, db);

  // Two pairs by hand: ln(E_regress-comp / E_regress) from the two modes' E-values.
  Hit h1, h2;
  h1.aln.score = 60, h1.aln.cigar = "30=2D10X";
  h2.aln.score = 45, h2.aln.cigar = "25=15X";
  const SeqView t1 = db.seqs.view(0), t2 = db.seqs.view(1);
  double expected_shift = 0;
  for (auto [h, t] : {std::pair<Hit*, SeqView>{&h1, t1}, {&h2, t2}}) {
    Hit c = *h, r = *h;
    comp.annotate(c, q, t, &qfit);
    regress.annotate(r, q, t, &qfit);
    EXPECT_NEAR(qcomp.log_composition_factor(*h, q, t, qfit.regression), std::log(c.evalue / r.evalue), 1e-9);
    expected_shift += std::log(c.evalue / r.evalue) / 2;
  }
  qfit.log_shift = expected_shift;
  for (auto [h, t] : {std::pair<Hit*, SeqView>{&h1, t1}, {&h2, t2}}) {
    Hit r = *h, s = *h;
    regress.annotate(r, q, t, &qfit);  // regress ignores the factor
    qcomp.annotate(s, q, t, &qfit);
    EXPECT_NEAR(s.evalue / r.evalue, std::exp(expected_shift), 1e-12 * std::exp(expected_shift));
    EXPECT_DOUBLE_EQ(s.bits, r.bits);
  }
  // The score bound follows the factor: a factor above 1 raises it, below 1 lowers it.
  QueryFit up = qfit, down = qfit;
  up.log_shift = 3, down.log_shift = -3;
  EXPECT_GE(qcomp.min_score(up, 1e-3), regress.min_score(up, 1e-3));
  EXPECT_LE(qcomp.min_score(down, 1e-3), regress.min_score(down, 1e-3));
  // Far in the tail the log stays finite where the E-values underflow.
  Hit strong;
  strong.aln.score = 40000, strong.aln.cigar = "400=";
  EXPECT_TRUE(std::isfinite(qcomp.log_composition_factor(strong, q, t2, qfit.regression)));
}
