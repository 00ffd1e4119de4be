#include <gtest/gtest.h>

#include <cmath>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/align/reference.hpp"
#include "src/pss/permute.hpp"
#include "kernels/cpu/pss_cpu.hpp"
#include "src/plan/pss_plan.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {

SequenceSet first(const SequenceSet& all, size_t begin, size_t n) {
  SequenceSet s;
  for (size_t i = begin; i < begin + n; ++i) s.add(all.ids[i], all.view(i).data, all.length(i));
  return s;
}

PssParams params(uint32_t n, uint64_t seed, bool keep = true) {
  PssParams p;
  p.matrix = load_matrix("BLOSUM62");
  p.permutations = n;
  p.seed = seed;
  p.keep_scores = keep;
  return p;
}

}  // namespace

TEST(PssEngine, PermutedScoresAreExactReferenceScores) {
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const SequenceSet q = first(db, 0, 2), s = first(db, 10, 3);
  const PssParams p = params(40, 42);
  PssCpuEngine engine(p, q, s);
  for (uint32_t subject = 0; subject < 3; ++subject) {
    const auto rows = engine.run({0, 1}, subject);
    ASSERT_EQ(rows.size(), 2u);
    std::vector<uint8_t> copy(s.length(subject));
    for (const PssPairResult& r : rows) {
      EXPECT_EQ(r.score, reference_score(AlignMode::Local, q.view(r.query), s.view(subject), p.matrix, p.gaps));
      ASSERT_EQ(r.permuted_scores.size(), 40u);
      for (uint32_t k = 0; k < 40; ++k) {
        permute_subject(s.view(subject), 42, subject, k, copy.data());
        EXPECT_EQ(r.permuted_scores[k], reference_score(AlignMode::Local, q.view(r.query),
                                                        {copy.data(), uint32_t(copy.size())}, p.matrix, p.gaps));
      }
    }
  }
}

TEST(PssEngine, MatrixProfilePathEqualsMatrixPath) {
  // A profile built from the matrix must give the very same permuted scores and statistics.
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const SequenceSet q = first(db, 3, 1), s = first(db, 20, 2);
  const PssParams p = params(200, 7);
  const QueryProfile prof = QueryProfile::from_matrix(q.view(0), p.matrix);
  PssCpuEngine matrix_engine(p, q, s), profile_engine(p, q, s, &prof);
  for (uint32_t subject = 0; subject < 2; ++subject) {
    const auto a = matrix_engine.run({0}, subject), b = profile_engine.run({0}, subject);
    EXPECT_EQ(a[0].score, b[0].score);
    EXPECT_EQ(a[0].permuted_scores, b[0].permuted_scores);
    EXPECT_EQ(a[0].pvalue, b[0].pvalue);
  }
}

TEST(PssEngine, QueryBatchingDoesNotChangeResults) {
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const SequenceSet q = first(db, 0, 3), s = first(db, 30, 1);
  PssCpuEngine engine(params(100, 3), q, s);
  const auto together = engine.run({0, 1, 2}, 0);
  for (uint32_t i = 0; i < 3; ++i) {
    const auto alone = engine.run({i}, 0);
    EXPECT_EQ(alone[0].permuted_scores, together[i].permuted_scores);
    EXPECT_EQ(alone[0].fit.lambda, together[i].fit.lambda);
  }
  PssCpuEngine other_seed(params(100, 4), q, s);
  EXPECT_NE(other_seed.run({0}, 0)[0].permuted_scores, together[0].permuted_scores);
}

TEST(PssEngine, StatisticsFormulas) {
  // P from K m n e^(-lambda x) equals the Gumbel survival; K = exp(lambda mu) / (m n).
  std::vector<int32_t> perm;
  for (int i = 0; i < 2000; ++i) perm.push_back(20 + (i * 7919) % 23);  // spread-out integers
  PssPairResult r;
  r.score = 60;
  pss_statistics(r, 300, 250, perm, CensorSpec::parse("none"));
  ASSERT_TRUE(r.fit.converged());
  EXPECT_NEAR(r.K, std::exp(r.fit.lambda * r.fit.mu) / (300.0 * 250.0), 1e-15);
  const double kmn = r.K * 300.0 * 250.0 * std::exp(-r.fit.lambda * 60);
  EXPECT_NEAR(r.pvalue, 1 - std::exp(-kmn), 1e-12);
  EXPECT_NEAR(r.log10_pvalue, std::log10(r.pvalue), 1e-9);
  r.score = 100000;  // P underflows to 0; log10 P stays finite
  pss_statistics(r, 300, 250, perm, CensorSpec::parse("none"));
  EXPECT_EQ(r.pvalue, 0.0);
  EXPECT_TRUE(std::isfinite(r.log10_pvalue));
  EXPECT_LT(r.log10_pvalue, -1000);

  PssPairResult flat;
  pss_statistics(flat, 10, 10, std::vector<int32_t>(100, 5), CensorSpec());
  EXPECT_FALSE(flat.fit.converged());
  EXPECT_EQ(flat.fit.status, GumbelStatus::ZeroVariance);
  EXPECT_TRUE(std::isnan(flat.pvalue));  // flagged by status, never a silent number
}

TEST(PssEngine, TileSubjectsFormula) {
  EXPECT_EQ(pss_tile_subjects(132 * 2048, 1000), 270u);  // H100: 132 SMs x 2048 threads
  EXPECT_EQ(pss_tile_subjects(32, 1000), 1u);             // never 0
  EXPECT_EQ(pss_tile_subjects(10000, 1000), 10u);
}
