#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/stats/composition.hpp"
#include "test_support.hpp"

using namespace hpc;

TEST(Composition, StandardUngappedLambdaIsBlasts) {
  // NCBI's tables list the ungapped lambda of each matrix for the standard background.
  struct Case {
    const char* matrix;
    double lambda;
  } cases[] = {{"BLOSUM62", 0.3176}, {"BLOSUM45", 0.2291}, {"BLOSUM50", 0.2318}, {"BLOSUM80", 0.3430},
               {"BLOSUM90", 0.3346}, {"PAM250", 0.2252}, {"PAM70", 0.3345}, {"PAM30", 0.3400}};
  for (const Case& c : cases) {
    const ScoreMatrix m = load_matrix(c.matrix);
    EXPECT_NEAR(ungapped_lambda(m, standard_composition(), standard_composition()), c.lambda, 6e-4) << c.matrix;
  }
}

TEST(Composition, LambdaSolvesTheDefiningEquation) {
  // +1 on the diagonal, -1 elsewhere, 4 equiprobable letters: e^l / 4 + 3 e^-l / 4 = 1 -> l = ln 3.
  ScoreMatrix m;
  for (int i = 0; i < kAlphabetSize; ++i)
    for (int j = 0; j < kAlphabetSize; ++j) m.score[i][j] = i == j ? 1 : -1;
  Composition four{};
  for (int i = 0; i < 4; ++i) four[i] = 0.25;
  EXPECT_NEAR(ungapped_lambda(m, four, four), std::log(3.0), 1e-12);
  // One letter only: the expected score is positive, no lambda exists.
  Composition one{};
  one[0] = 1;
  EXPECT_LT(ungapped_lambda(m, one, one), 0);
}

TEST(Composition, RatioIsOneForTheStandardAndClampedForBiasedCompositions) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const double standard = ungapped_lambda(m, standard_composition(), standard_composition());
  EXPECT_NEAR(composition_lambda_ratio(m, standard, standard_composition(), standard_composition()), 1.0, 1e-12);
  // A low-complexity, K/E-rich pair scores higher at random: lambda drops, the ratio is < 1.
  Composition biased = standard_composition();
  biased[11] += 0.3;  // K
  biased[6] += 0.3;   // E
  for (double& f : biased) f /= 1.6;
  const double r = composition_lambda_ratio(m, standard, biased, biased);
  EXPECT_LT(r, 0.95);
  EXPECT_GE(r, 0.5);
  Composition poly_k{};
  poly_k[11] = 1;  // no lambda: BLAST's lower bound
  EXPECT_DOUBLE_EQ(composition_lambda_ratio(m, standard, poly_k, poly_k), 0.5);
}

// The ratio's solver (Newton inside the clamp) finds ungapped_lambda's root (bisection to
// machine precision) for real domains' compositions, on either side of the clamp.
TEST(Composition, RatioIsTheClampedRatioOfTheSolvedLambdas) {
  const SequenceSet seqs = read_fasta(test::data_path("balifam2000.fa"));
  for (const char* name : {"BLOSUM62", "BLOSUM45", "PAM30"}) {
    const ScoreMatrix m = load_matrix(name);
    const double standard = ungapped_lambda(m, standard_composition(), standard_composition());
    int below = 0, clamped = 0;
    for (uint32_t a = 0; a < 40; ++a)
      for (uint32_t b = 0; b < 40; ++b) {
        const Composition q = composition_of(seqs.view(a * 37)), t = composition_of(seqs.view(b * 41 + 5));
        const double lambda = ungapped_lambda(m, q, t);
        const double expected = std::clamp(lambda > 0 ? lambda / standard : 0.5, 0.5, 1.0);
        const double r = composition_lambda_ratio(m, standard, q, t);
        EXPECT_NEAR(r, expected, 1e-13) << name << " " << a << " " << b;
        below += r < 1;
        clamped += r == 1;
      }
    EXPECT_GT(below, 100) << name;  // both sides of the clamp are exercised
    EXPECT_GT(clamped, 100) << name;
  }
}

// The batch form (several subjects in vector lanes) gives each subject's ratio bit for bit as
// one pair alone: real domains (short ones lack letters), a remainder past the lanes' groups,
// and a score range too wide for the pass's stack buffers.
TEST(Composition, BatchRatiosAreTheOnePairRatiosBitForBit) {
  const SequenceSet seqs = read_fasta(test::data_path("balifam2000.fa"));
  std::vector<Composition> subjects;
  for (uint32_t b = 0; b < 203; ++b) subjects.push_back(composition_of(seqs.view((b * 7919u) % seqs.size())));
  subjects.push_back(Composition{});  // no true amino acid: the lower bound
  std::vector<const Composition*> pointers;
  for (const Composition& c : subjects) pointers.push_back(&c);
  ScoreMatrix wide = load_matrix("BLOSUM62");
  for (int i = 0; i < kAlphabetSize; ++i)
    for (int j = 0; j < kAlphabetSize; ++j) wide.score[i][j] = i == j ? 40 : -30 + (i + j) % 5;
  for (const ScoreMatrix& m : {load_matrix("BLOSUM62"), load_matrix("PAM30"), wide}) {
    const double standard = ungapped_lambda(m, standard_composition(), standard_composition());
    const CompositionRatio ratio(m, standard);
    int below = 0, clamped = 0;
    for (uint32_t a = 0; a < 30; ++a) {
      const Composition q = composition_of(seqs.view(a * 37));
      for (size_t n : {pointers.size(), size_t(5)}) {
        std::vector<double> batch(n, -1);
        ratio(q, pointers.data(), n, batch.data());
        for (size_t k = 0; k < n; ++k) {
          const double one = ratio(q, subjects[k]);
          EXPECT_EQ(std::memcmp(&batch[k], &one, sizeof one), 0) << m.name << " " << a << " " << k << " " << batch[k]
                                                                 << " " << one;
          below += one < 1 && one > 0.5;
          clamped += one == 1;
        }
      }
    }
    EXPECT_GT(below, 100) << m.name;  // the solver's branches are exercised
    EXPECT_GT(clamped, 100) << m.name;
  }
}

TEST(Composition, CountsTrueAminoAcidsOnly) {
  const uint8_t seq[] = {0, 0, 1, 22, 20, 23};  // A A R X B *
  const Composition c = composition_of({seq, 6});
  EXPECT_DOUBLE_EQ(c[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(c[1], 1.0 / 3);
}

TEST(Composition, RescaledScoreKeepsGapCosts) {
  Alignment a;
  a.score = 50;
  a.cigar = "10=2I5X3D1=";  // gaps of 2 and 3 at 11/1: 13 + 14 = 27; substitutions 77
  EXPECT_DOUBLE_EQ(rescaled_alignment_score({11, 1}, 1.0, a), 50);
  EXPECT_DOUBLE_EQ(rescaled_alignment_score({11, 1}, 0.8, a), 0.8 * 77 - 27);
}
