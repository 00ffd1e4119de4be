#include <gtest/gtest.h>

#include <cmath>

#include "src/stats/karlin.hpp"

using namespace hpc;

TEST(Karlin, PublishedBlosum62Defaults) {
  auto p = published_gapped_params("BLOSUM62", {11, 1});
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->lambda, 0.267);
  EXPECT_DOUBLE_EQ(p->K, 0.041);
  EXPECT_DOUBLE_EQ(p->H, 0.14);
  auto q = published_gapped_params("blosum62", {10, 2});  // names are case-insensitive
  ASSERT_TRUE(q);
  EXPECT_DOUBLE_EQ(q->lambda, 0.291);
}

TEST(Karlin, EveryBuiltinMatrixHasItsBlastDefault) {
  // BLAST's default gap costs per matrix.
  EXPECT_TRUE(published_gapped_params("BLOSUM45", {14, 2}));
  EXPECT_TRUE(published_gapped_params("BLOSUM50", {13, 2}));
  EXPECT_TRUE(published_gapped_params("BLOSUM80", {10, 1}));
  EXPECT_TRUE(published_gapped_params("BLOSUM90", {10, 1}));
  EXPECT_TRUE(published_gapped_params("PAM30", {9, 1}));
  EXPECT_TRUE(published_gapped_params("PAM70", {10, 1}));
  EXPECT_TRUE(published_gapped_params("PAM250", {14, 2}));
}

TEST(Karlin, UnknownCombinationsAreAbsent) {
  EXPECT_FALSE(published_gapped_params("BLOSUM62", {5, 5}));
  EXPECT_FALSE(published_gapped_params("my_matrix.txt", {11, 1}));
  EXPECT_EQ(supported_gap_costs("BLOSUM62").size(), 11u);
  EXPECT_TRUE(supported_gap_costs("nonsense").empty());
}

TEST(Karlin, BitScoreAndEvalueFormulas) {
  KarlinParams p{0.267, 0.041, 0.14};
  // bits = (0.267*100 - ln 0.041)/ln 2 = (26.7 + 3.19418...)/0.693147...
  EXPECT_NEAR(bit_score(p, 100), (26.7 - std::log(0.041)) / std::log(2.0), 1e-12);
  EXPECT_NEAR(bit_score(p, 100), 43.12, 0.01);
  // E = K m n e^{-lambda S}
  EXPECT_NEAR(evalue(p, 100, 300, 1e6), 0.041 * 300 * 1e6 * std::exp(-26.7), 1e-18);
  // E falls as the score rises, bits rise.
  EXPECT_LT(evalue(p, 101, 300, 1e6), evalue(p, 100, 300, 1e6));
  EXPECT_GT(bit_score(p, 101), bit_score(p, 100));
}

TEST(Karlin, MinScoreIsTheExactBoundary) {
  KarlinParams p{0.267, 0.041, 0.14};
  for (double e : {10.0, 1.0, 1e-3, 1e-30}) {
    for (double m : {50.0, 300.0, 5000.0}) {
      const int s = min_score_for_evalue(p, e, m, 2e8);
      EXPECT_LE(evalue(p, s, m, 2e8), e);
      if (s > 1) EXPECT_GT(evalue(p, s - 1, m, 2e8), e);
    }
  }
  // A huge threshold lets every positive score through.
  EXPECT_EQ(min_score_for_evalue(p, 1e300, 10, 10), 1);
}
