#include <gtest/gtest.h>

#include <cmath>

#include "src/stats/finite_size.hpp"

using namespace hpc;

namespace {
FiniteSizeParams blosum62_11_1() {
  auto p = published_finite_size_params("BLOSUM62", {11, 1});
  EXPECT_TRUE(p);
  return *p;
}
}  // namespace

TEST(FiniteSize, ParametersAreBlastsGumbelBlock) {
  // blastp 2.12.0+ prints "Gapped Lambda 0.267 K 0.0410 H 0.140 a 1.90 alpha 42.6 sigma 43.6";
  // the intercepts follow Blast_GumbelBlkLoadFromTables: 2 G (ungapped - gapped), G = 11 + 1.
  const FiniteSizeParams p = blosum62_11_1();
  EXPECT_DOUBLE_EQ(p.lambda, 0.267);
  EXPECT_DOUBLE_EQ(p.K, 0.041);
  EXPECT_DOUBLE_EQ(p.a, 1.9);
  EXPECT_DOUBLE_EQ(p.alpha, 42.6028);
  EXPECT_DOUBLE_EQ(p.sigma, 43.6362);
  EXPECT_NEAR(p.b, 2 * 12 * (0.7916 - 1.9), 1e-12);
  EXPECT_NEAR(p.beta, 2 * 12 * (4.96466 - 42.6028), 1e-12);
  EXPECT_NEAR(p.tau, 2 * 12 * (4.96466 - 43.6362), 1e-12);
  EXPECT_DOUBLE_EQ(p.ungapped_lambda, 0.3176);
  EXPECT_FALSE(published_finite_size_params("BLOSUM62", {5, 5}));
  EXPECT_FALSE(published_finite_size_params("my.mat", {11, 1}));
  for (const char* m : {"BLOSUM45", "BLOSUM50", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250"})
    for (GapCosts g : supported_gap_costs(m)) EXPECT_TRUE(published_finite_size_params(m, g)) << m;
}

TEST(FiniteSize, EqualsBlastpEvalues) {
  // E-values printed by blastp 2.12.0+ (-comp_based_stats 0 -seg no, BLOSUM62 11/1) for hits
  // of two queries against a 2,000-sequence, 343,942-residue database: score, query length,
  // subject length, E. blastp prints 3 significant digits.
  struct Case {
    int score;
    double m, n, evalue;
  } cases[] = {{834, 420, 387, 1.94e-110}, {787, 420, 376, 1.65e-103}, {101, 26, 103, 1.30e-09},
               {94, 26, 104, 1.48e-08},   {145, 26, 26, 5.57e-17}};
  const FiniteSizeParams p = blosum62_11_1();
  for (const Case& c : cases)
    EXPECT_NEAR(finite_size_evalue(p, c.score, c.m, c.n, 343942) / c.evalue, 1.0, 0.006) << c.score;
}

TEST(FiniteSize, LongSequencesGiveKarlinAltschul) {
  // Far from the edges the corrected area is m n: E -> K m N e^{-lambda S}.
  const FiniteSizeParams p = blosum62_11_1();
  const double m = 1e6, n = 1e6, db = 1e9;
  const KarlinParams ka{p.lambda, p.K, 0};
  EXPECT_NEAR(finite_size_evalue(p, 60, m, n, db) / evalue(ka, 60, m, db), 1.0, 1e-3);
  // For short sequences the edge correction makes E smaller than the uncorrected one.
  EXPECT_LT(finite_size_evalue(p, 60, 100, 100, db), evalue(ka, 60, 100, db));
}
