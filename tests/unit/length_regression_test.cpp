#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "src/stats/length_regression.hpp"

using namespace hpc;

TEST(LengthRegression, RecoversTheLineAndTrimsHomologs) {
  // Unrelated scores: 5 + 4 ln(n) + Gumbel noise of sd 3; ten homologs far above the line.
  std::mt19937_64 rng(7);
  std::extreme_value_distribution<double> gumbel(0.0, 3.0 * std::sqrt(6.0) / M_PI);
  std::uniform_int_distribution<uint32_t> len(30, 2000);
  std::vector<int32_t> scores;
  std::vector<uint32_t> lengths;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t n = len(rng);
    lengths.push_back(n);
    scores.push_back(int32_t(std::lround(5 + 4 * std::log(n) + gumbel(rng))));
  }
  for (int i = 0; i < 10; ++i) {
    lengths.push_back(300);
    scores.push_back(400);
  }
  const LengthRegression r = fit_length_regression(scores, lengths);
  ASSERT_TRUE(r.ok);
  EXPECT_NEAR(r.slope, 4.0, 0.15);
  EXPECT_NEAR(r.intercept + r.slope * std::log(300.0), 5 + 4 * std::log(300.0) + 3 * 0.5772 * std::sqrt(6.0) / M_PI, 0.3);
  EXPECT_NEAR(r.sd, 3.0, 0.1);
  EXPECT_LE(r.used, 20000u);  // the homologs are out
  EXPECT_GT(r.z(400, 300), 50);
}

TEST(LengthRegression, GumbelTailAndItsInverse) {
  LengthRegression r;
  r.intercept = 10, r.slope = 2, r.sd = 4, r.ok = true;
  const double n = 250, mean = 10 + 2 * std::log(n);
  // z = 0: P(Z > 0) = 1 - exp(-exp(-gamma)) for a unit-variance Gumbel.
  EXPECT_NEAR(r.evalue(mean, n, 1), 1 - std::exp(-std::exp(-0.5772156649)), 1e-9);
  for (double e : {10.0, 1e-3, 1e-40}) EXPECT_NEAR(r.evalue(r.score_for_evalue(e, n, 5000), n, 5000) / e, 1, 1e-9);
  EXPECT_LT(r.score_for_evalue(1e9, n, 5000), -1e100);  // every score qualifies
}

TEST(LengthRegression, TooFewScoresIsNotAFit) {
  EXPECT_FALSE(fit_length_regression({10, 12, 9}, {100, 200, 300}).ok);
}

TEST(LengthRegression, NeedsEnoughScoresToTrimTheBestOfThem) {
  // ssearch36 fits only where the best of N unrelated scores lies 3 sd out: (ln N - gamma) /
  // (pi/sqrt6) >= 3 needs N >= 84; with fewer it uses other statistics.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 3);
  std::uniform_int_distribution<uint32_t> len(30, 2000);
  auto sample = [&](int count) {
    std::vector<int32_t> s;
    std::vector<uint32_t> l;
    for (int i = 0; i < count; ++i) {
      l.push_back(len(rng));
      s.push_back(int32_t(std::lround(20 + 4 * std::log(l.back()) + noise(rng))));
    }
    return fit_length_regression(s, l);
  };
  EXPECT_FALSE(sample(83).ok);
  EXPECT_TRUE(sample(2000).ok);
}

TEST(LengthRegression, EvalueWithinDecidesAsTheEvalueDoes) {
  // regress-qcomp's set test: the same answer as evalue() <= max, at and around the boundary
  // score (score_for_evalue, and its neighbours by an ulp and by 1e-12) and over whole ranges.
  LengthRegression r;
  r.intercept = 12.5, r.slope = 3.1, r.sd = 5.2, r.ok = true;
  const double subjects = 57592;
  size_t checked = 0, inside = 0;
  for (const double p : {1e-9, 1e-3, 0.25, 0.5, 0.9, 0.97, 1.0, 3.0})
    for (const double n : {1.0, 9.0, 169.0, 2999.0, 35000.0}) {
      const double max_evalue = p * subjects, log_n = std::log(n);
      std::vector<double> scores;
      for (int s = -20; s <= 400; ++s) scores.push_back(s);
      const double edge = r.score_for_evalue(max_evalue, n, subjects);
      if (std::isfinite(edge) && edge > -1e299)
        for (const double d : {0.0, 1e-12, -1e-12})
          scores.insert(scores.end(), {edge + d, std::nextafter(edge + d, 1e300), std::nextafter(edge + d, -1e300)});
      for (const double s : scores) {
        const bool want = r.evalue(s, n, subjects) <= max_evalue;
        EXPECT_EQ(r.evalue_within(s, n, log_n, subjects, max_evalue), want) << "p " << p << " n " << n << " score " << s;
        ++checked;
        inside += want;
      }
    }
  EXPECT_GT(inside, 0u);
  EXPECT_LT(inside, checked);
}
