#include <gtest/gtest.h>

#include <cmath>

#include "io/matrix.hpp"
#include "src/stats/composition.hpp"
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

// Ungapped lambda, K and H of a matrix over the standard background, against the values NCBI
// publishes for them (blast_stat.c's ungapped rows: BLOSUM62 0.3176/0.134/0.4012, BLOSUM45
// 0.2291/0.0924/0.2514, PAM30 0.3400/0.283/1.754).
TEST(Karlin, UngappedParametersMatchNcbisTables) {
  struct Case {
    const char* matrix;
    double lambda, K, H;
  };
  for (const Case c : {Case{"BLOSUM62", 0.3176, 0.134, 0.4012}, Case{"BLOSUM45", 0.2291, 0.0924, 0.2514},
                       Case{"PAM30", 0.3400, 0.283, 1.754}}) {
    const ScoreMatrix m = load_matrix(c.matrix);
    const Composition& f = standard_composition();
    std::vector<double> probs(size_t(m.max_score() - m.min_score() + 1), 0.0);
    for (int i = 0; i < kTrueAminoAcids; ++i)
      for (int j = 0; j < kTrueAminoAcids; ++j) probs[size_t(m.score[i][j] - m.min_score())] += f[i] * f[j];
    double total = 0;
    for (double p : probs) total += p;
    for (double& p : probs) p /= total;
    const auto k = ungapped_karlin(probs, m.min_score());
    ASSERT_TRUE(k) << c.matrix;
    EXPECT_NEAR(k->lambda, c.lambda, 0.0006) << c.matrix;
    EXPECT_NEAR(k->K / c.K, 1, 0.01) << c.matrix;
    EXPECT_NEAR(k->H / c.H, 1, 0.005) << c.matrix;
  }
}

TEST(Karlin, UngappedNeedsANegativeMeanAndAPositiveScore) {
  EXPECT_FALSE(ungapped_karlin({0.5, 0.0, 0.5}, -1));  // mean 0
  EXPECT_FALSE(ungapped_karlin({0.5, 0.5}, -2));       // no positive score
  // Scores -1 and +1 only (a simple random walk): lambda = ln(q/p), K = (q - p)^2 / q.
  const auto k = ungapped_karlin({0.75, 0.0, 0.25}, -1);
  ASSERT_TRUE(k);
  EXPECT_NEAR(k->lambda, std::log(3.0), 1e-9);
  EXPECT_NEAR(k->K, 0.25 / 0.75, 1e-3);
}
