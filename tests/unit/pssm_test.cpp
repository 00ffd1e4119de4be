#include <gtest/gtest.h>

#include <random>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/pssm.hpp"
#include "kernels/cpu/sw_profile_simd.hpp"
#include "src/align/profile_reference.hpp"
#include "src/align/reference.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {

const char* kHeader =
    "\nLast position-specific scoring matrix computed\n"
    "            A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V   A   R   N   D   C   Q"
    "   E   G   H   I   L   K   M   F   P   S   T   W   Y   V\n";
const char* kRow1 = "    1 M    -1  -2  -2  -3  -2  -1  -2  -3  -2   1   2  -2   6   0  -3  -2  -1  -2  -1   1    0 0 0 0 0 0 0 0 0 0 0 0 100 0 0 0 0 0 0 0  0.00 0.00\n";
const char* kRow2 = "    2 K    -1   2   0  -1  -3   1   1  -2  -1  -3  -2   5  -1  -3  -1   0  -1  -3  -2  -2    0 0 0 0 0 0 0 0 0 0 0 100 0 0 0 0 0 0 0 0  0.50 0.10\n";
const char* kFooter = "\n                      K         Lambda\nStandard Ungapped    0.1386     0.3144\n";

std::vector<uint8_t> random_codes(std::mt19937& rng, size_t n, int alphabet = 20) {
  std::uniform_int_distribution<int> d(0, alphabet - 1);
  std::vector<uint8_t> v(n);
  for (auto& c : v) c = uint8_t(d(rng));
  return v;
}

QueryProfile random_profile(std::mt19937& rng, uint32_t m, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  QueryProfile p;
  p.length = m;
  p.scores.resize(size_t(m) * kAlphabetSize);
  for (auto& s : p.scores) s = d(rng);
  return p;
}

}  // namespace

TEST(Pssm, ParsesRowsAndMapsColumns) {
  const Pssm p = parse_ascii_pssm(std::string(kHeader) + kRow1 + kRow2 + kFooter, "t.pssm");
  ASSERT_EQ(p.profile.length, 2u);
  EXPECT_EQ(p.residues, "MK");
  EXPECT_EQ(p.profile(0, encode_residue('M')), 6);
  EXPECT_EQ(p.profile(0, encode_residue('A')), -1);
  EXPECT_EQ(p.profile(0, encode_residue('V')), 1);
  EXPECT_EQ(p.profile(1, encode_residue('K')), 5);
  EXPECT_EQ(p.profile(1, encode_residue('R')), 2);
  // Documented scores for the columns a PSSM lacks.
  EXPECT_EQ(p.profile(0, encode_residue('B')), -3);  // floor((-3 + -2) / 2)
  EXPECT_EQ(p.profile(1, encode_residue('Z')), 1);   // floor((1 + 1) / 2)
  EXPECT_EQ(p.profile(1, encode_residue('B')), -1);  // floor((-1 + 0) / 2)
  EXPECT_EQ(p.profile(0, kCodeX), kPssmScoreX);
  EXPECT_EQ(p.profile(1, kCodeStop), kPssmScoreStop);
}

TEST(Pssm, ReadsARealPsiblastFile) {
  const Pssm p = read_ascii_pssm(test::data_path("pss_query.pssm"));
  const SequenceSet q = read_fasta(test::data_path("pss_query.fa"));
  ASSERT_EQ(p.profile.length, q.length(0));
  EXPECT_EQ(p.residues, decode(q.view(0).data, q.length(0)));
  // Row 3 of the file: "3 G  1 -3 -1 -2 -3 -3 -3 6 ...".
  EXPECT_EQ(p.profile(2, encode_residue('G')), 6);
  EXPECT_EQ(p.profile(2, encode_residue('A')), 1);
  EXPECT_EQ(p.profile(2, encode_residue('V')), -4);
}

TEST(Pssm, ErrorsNameFileAndLine) {
  auto expect_error = [](const std::string& text, const std::string& where, const std::string& what) {
    try {
      parse_ascii_pssm(text, "bad.pssm");
      FAIL() << "no error for: " << what;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error("hello\nworld\n", "bad.pssm", "no header");
  expect_error(std::string(kHeader) + kFooter, "bad.pssm", "no rows");
  expect_error(std::string(kHeader) + kRow2, "bad.pssm:4", "out of order");
  expect_error(std::string(kHeader) + "    1 M  -1 2 3\n", "bad.pssm:4", "fewer than 20");
  std::string bad = kRow1;
  bad.replace(bad.find(" 6 "), 3, " x ");
  expect_error(std::string(kHeader) + bad, "bad.pssm:4", "not an integer");
  expect_error(std::string(kHeader) + "    1 1    -1  -2  -2  -3  -2  -1  -2  -3  -2   1   2  -2   6   0  -3  -2  -1  -2  -1   1\n",
               "bad.pssm:4", "not a residue");
  EXPECT_THROW(read_ascii_pssm("/nonexistent/x.pssm"), InputError);
}

TEST(ProfileReference, MatrixProfileEqualsTheReferenceAligner) {
  const ScoreMatrix b62 = load_matrix("BLOSUM62");
  std::mt19937 rng(5);
  for (int t = 0; t < 40; ++t) {
    const auto q = random_codes(rng, 1 + rng() % 120, kAlphabetSize);
    const auto s = random_codes(rng, 1 + rng() % 120, kAlphabetSize);
    const SeqView qv{q.data(), uint32_t(q.size())}, sv{s.data(), uint32_t(s.size())};
    for (GapCosts g : {GapCosts{11, 1}, GapCosts{0, 1}, GapCosts{5, 3}}) {
      const QueryProfile p = QueryProfile::from_matrix(qv, b62);
      EXPECT_EQ(profile_reference_score(p, sv, g), reference_score(AlignMode::Local, qv, sv, b62, g));
    }
  }
}

TEST(ProfileSimd, EqualsProfileReference) {
  std::mt19937 rng(17);
  for (int t = 0; t < 300; ++t) {
    const uint32_t m = 1 + rng() % 200;
    const QueryProfile p = t % 3 == 0 ? random_profile(rng, m, -4, 4) : random_profile(rng, m, -6, 9);
    const GapCosts g = t % 4 == 0 ? GapCosts{0, 1} : (t % 4 == 1 ? GapCosts{11, 1} : GapCosts{3, 2});
    const SwProfileScorer scorer(p, g);
    for (int k = 0; k < 4; ++k) {
      const auto s = random_codes(rng, rng() % 250, kAlphabetSize);
      const SeqView sv{s.data(), uint32_t(s.size())};
      ASSERT_EQ(scorer.score(sv), profile_reference_score(p, sv, g)) << "case " << t << " m " << m << " n " << s.size();
    }
  }
}

TEST(ProfileSimd, SelfAlignmentAndRepeatsNeedLazyF) {
  // Long gaps across segment boundaries: a query with an insertion relative to the target.
  const ScoreMatrix b62 = load_matrix("BLOSUM62");
  std::mt19937 rng(3);
  const auto core = random_codes(rng, 150);
  std::vector<uint8_t> q(core.begin(), core.begin() + 75);
  const auto insert = random_codes(rng, 40);
  q.insert(q.end(), insert.begin(), insert.end());
  q.insert(q.end(), core.begin() + 75, core.end());
  const SeqView qv{q.data(), uint32_t(q.size())}, tv{core.data(), uint32_t(core.size())};
  const QueryProfile p = QueryProfile::from_matrix(qv, b62);
  for (GapCosts g : {GapCosts{11, 1}, GapCosts{2, 1}}) {
    const SwProfileScorer scorer(p, g);
    EXPECT_EQ(scorer.score(tv), reference_score(AlignMode::Local, qv, tv, b62, g));
    EXPECT_EQ(scorer.score(qv), reference_score(AlignMode::Local, qv, qv, b62, g));
  }
}

TEST(ProfileSimd, SaturatingScoresAreRescoredExactly) {
  QueryProfile p;
  p.length = 3000;
  p.scores.assign(size_t(p.length) * kAlphabetSize, 20);  // 3000 x 20 = 60000 > 32767
  const std::vector<uint8_t> t(3000, 0);
  const SwProfileScorer scorer(p, {11, 1});
  EXPECT_EQ(scorer.score({t.data(), 3000}), 60000);
}
