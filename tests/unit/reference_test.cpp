// Scalar reference aligners: hand-checked cases, the tie rule, and property tests
// against a deliberately naive full-matrix implementation and exhaustive search.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/matrix.hpp"
#include "src/align/reference.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "random_sequences.hpp"

namespace hpc {
namespace {

std::vector<uint8_t> enc(const std::string& s) {
  std::vector<uint8_t> v;
  for (char c : s) v.push_back(encode_residue(static_cast<unsigned char>(c)));
  return v;
}
using test::view;

const ScoreMatrix& blosum62() {
  static const ScoreMatrix m = load_matrix("BLOSUM62");
  return m;
}

struct Case {
  Alignment aln;
  int32_t score;   // reference_score
  int32_t replay;  // rescore_cigar of aln
};
Case run(AlignMode mode, const std::string& q, const std::string& t, GapCosts g = {11, 1},
         const ScoreMatrix& m = blosum62()) {
  const auto qv = enc(q), tv = enc(t);
  Case c{reference_align(mode, view(qv), view(tv), m, g), reference_score(mode, view(qv), view(tv), m, g), 0};
  c.replay = rescore_cigar(c.aln, view(qv), view(tv), m, g);
  return c;
}

void expect_aln(const Case& c, int32_t score, const std::string& cigar, uint32_t qs, uint32_t qe,
                uint32_t ts, uint32_t te) {
  EXPECT_EQ(c.aln.score, score);
  EXPECT_EQ(c.score, score);
  EXPECT_EQ(c.replay, score);
  EXPECT_EQ(c.aln.cigar, cigar);
  EXPECT_EQ(c.aln.qstart, qs);
  EXPECT_EQ(c.aln.qend, qe);
  EXPECT_EQ(c.aln.tstart, ts);
  EXPECT_EQ(c.aln.tend, te);
}

constexpr AlignMode kModes[] = {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal};

// ---------------------------------------------------------------- hand-checked cases
// BLOSUM62 entries used: W/W 11, C/C 9, A/A 4, W/A -3, A/R -1, W/G -2, W/Y 2.

TEST(ReferenceHand, IdenticalSequences) {
  // W W + C C + W W = 11 + 9 + 11 = 31, one run of 3 matches, in every mode.
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_aln(run(mode, "WCW", "WCW"), 31, "3=", 1, 3, 1, 3);
  }
}

TEST(ReferenceHand, SingleMismatch) {
  // WWAWW vs WWRWW: 4 x 11 + s(A,R) = 44 - 1 = 43; any shorter local piece is at most 22.
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_aln(run(mode, "WWAWW", "WWRWW"), 43, "2=1X2=", 1, 5, 1, 5);
  }
}

TEST(ReferenceHand, GapOfLengthOne) {
  // Query WWWWGWWWW has an extra G: 8 x 11 - (11 + 1*1) = 76. Mismatching the G
  // instead (G/W = -2) forces a W into a gap: 7 x 11 - 2 - 12 = 63; no gap: 44 - 2 + 33 = 75.
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_aln(run(mode, "WWWWGWWWW", "WWWWWWWW"), 76, "4=1I4=", 1, 9, 1, 8);
  }
  // The same gap on the target side is a 'D'.
  expect_aln(run(AlignMode::Local, "WWWWWWWW", "WWWWGWWWW"), 76, "4=1D4=", 1, 8, 1, 9);
}

TEST(ReferenceHand, GapOfLengthThreeCostsOpenPlusThreeExtends) {
  // 8 x 11 = 88 minus one gap of 3: open + 3*extend.
  //   11/1: 88 - 14 = 74;  10/2: 88 - 16 = 72;  0/4 (linear): 88 - 12 = 76.
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_aln(run(mode, "WWWWGGGWWWW", "WWWWWWWW", {11, 1}), 74, "4=3I4=", 1, 11, 1, 8);
    expect_aln(run(mode, "WWWWGGGWWWW", "WWWWWWWW", {10, 2}), 72, "4=3I4=", 1, 11, 1, 8);
    expect_aln(run(mode, "WWWWGGGWWWW", "WWWWWWWW", {0, 4}), 76, "4=3I4=", 1, 11, 1, 8);
  }
}

TEST(ReferenceHand, TieRuleDiagonalBeforeGap) {
  // Global WAAW vs WAW: W-AW ("1=1I2=") and WA-W ("2=1I1=") both score 11+4+11-12 = 14.
  // Walking back from (4,3): W/W diagonal, then at (3,2) H = 3 equals both the diagonal
  // H(2,1)+4 = -1+4 and F = H(2,2)-12 = 15-12; the diagonal wins, so the gap ends up
  // on the left: "1=1I2=".
  expect_aln(run(AlignMode::Global, "WAAW", "WAW"), 14, "1=1I2=", 1, 4, 1, 3);
}

TEST(ReferenceHand, TieRuleSmallestEndCell) {
  // Local WAAW vs WAW: "WA/WA" ends at (2,2) and "AW/AW" at (4,3), both 15 (> 14, the
  // gapped whole). The smaller row wins: query 1..2, target 1..2.
  expect_aln(run(AlignMode::Local, "WAAW", "WAW"), 15, "2=", 1, 2, 1, 2);
  // Same row, two columns: W vs AWAW scores 11 at (1,2) and (1,4): the smaller column.
  expect_aln(run(AlignMode::Local, "W", "AWAW"), 11, "1=", 1, 1, 2, 2);
}

TEST(ReferenceHand, TieRuleGapPrefersOpening) {
  // Global W vs AWWA: "1D1=2D" and "2D1=1D" both score 11 - 12 - 13 = -14.
  // At (1,4) H comes from E (diag -17, F -27); E(1,4) = max(E(1,3)-1, H(1,3)-12) =
  // max(-13-1, -2-12): a tie, and opening wins, so the walk steps into H(1,3) = -2,
  // takes the W/W diagonal there and finishes with 2 D's along row 0: "2D1=1D".
  expect_aln(run(AlignMode::Global, "W", "AWWA"), -14, "2D1=1D", 1, 1, 1, 4);
}

TEST(ReferenceHand, TieRuleDiagonalBeforeEndGap) {
  // Global WW vs W, linear gaps 0/2: WW/W- ("1=1I") and WW/-W ("1I1=") both 11 - 2 = 9.
  // At (2,1) the diagonal H(1,0)+11 = -2+11 = 9 beats F = H(1,1)-2 = 9 by rule: "1I1=".
  // Roles swapped, W vs WW: the diagonal again wins at (1,2): "1D1=".
  expect_aln(run(AlignMode::Global, "WW", "W", {0, 2}), 9, "1I1=", 1, 2, 1, 1);
  expect_aln(run(AlignMode::Global, "W", "WW", {0, 2}), 9, "1D1=", 1, 1, 1, 2);
}

TEST(ReferenceHand, TieRuleUpBeforeLeft) {
  // Global WA vs GGW, 11/1: "2D1=1I" = -13 + 11 - 12 = -14 and "2X1D" = W/G -2 + A/G 0 - 12
  // = -14. At (2,3): diagonal H(1,2)+s(A,W) = -14-3 = -17, F = H(1,3)-12 = -2-12 = -14,
  // E = H(2,2)-12 = -2-12 = -14. F (up, 'I') wins over E: the last column is A/gap,
  // then W/W and two D's along row 0.
  expect_aln(run(AlignMode::Global, "WA", "GGW"), -14, "2D1=1I", 1, 2, 1, 3);
}

TEST(ReferenceHand, LocalStopsAtZero) {
  // Local GWWG vs AWWA: only the W/W pairs are positive: 22 at q 2..3, t 2..3.
  expect_aln(run(AlignMode::Local, "GWWG", "AWWA"), 22, "2=", 2, 3, 2, 3);
  // Nothing positive: score 0, empty alignment.
  expect_aln(run(AlignMode::Local, "W", "A"), 0, "", 0, 0, 0, 0);
  expect_aln(run(AlignMode::Local, "", "WAC"), 0, "", 0, 0, 0, 0);
}

TEST(ReferenceHand, SemiGlobalOverhangsAreFree) {
  // Query suffix WWC overlaps target prefix WWC: 11+11+9 = 31, the AAA and GGG
  // overhangs cost nothing (global would charge two end gaps).
  expect_aln(run(AlignMode::SemiGlobal, "AAAWWC", "WWCGGG"), 31, "3=", 4, 6, 1, 3);
  // W vs A: nothing aligned beats -3; the empty overlap scores 0.
  expect_aln(run(AlignMode::SemiGlobal, "W", "A"), 0, "", 0, 0, 0, 0);
}

TEST(ReferenceHand, GlobalWithEmptySequence) {
  // One gap: open + 3*extend = 14.
  expect_aln(run(AlignMode::Global, "", "WAC"), -14, "3D", 0, 0, 1, 3);
  expect_aln(run(AlignMode::Global, "WAC", ""), -14, "3I", 1, 3, 0, 0);
  expect_aln(run(AlignMode::Global, "", ""), 0, "", 0, 0, 0, 0);
  expect_aln(run(AlignMode::SemiGlobal, "", "WAC"), 0, "", 0, 0, 0, 0);
}

TEST(ReferenceHand, GlobalEndGapsAreCharged) {
  // AAAWWC vs WWCGGG globally: sliding the overlap costs two end gaps of 3 (14 each):
  // 31 - 28 = 3; aligning position by position: A/W A/W A/C W/G W/G C/G = -3-3+0-2-2-3 = -13.
  expect_aln(run(AlignMode::Global, "AAAWWC", "WWCGGG"), 3, "3I3=3D", 1, 6, 1, 6);
}

TEST(ReferenceRescore, RejectsCigarsThatDoNotFit) {
  const auto q = enc("WCW"), t = enc("WCW");
  Alignment a;
  a.score = 31, a.qstart = 1, a.qend = 3, a.tstart = 1, a.tend = 3;
  a.cigar = "3=";
  EXPECT_EQ(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), 31);
  a.cigar = "4=";  // longer than both sequences
  EXPECT_THROW(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), Error);
  a.cigar = "1=1X1=";  // C/C are identical, 'X' is a lie
  EXPECT_THROW(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), Error);
  a.cigar = "3Q";
  EXPECT_THROW(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), Error);
  a.cigar = "3=", a.qend = 4;  // coordinates disagree with the span
  EXPECT_THROW(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), Error);
  // Adjacent runs of one op are one gap: "1=2I1I..." costs open once.
  const auto q2 = enc("WGGGW"), t2 = enc("WW");
  Alignment b;
  b.qstart = 1, b.qend = 5, b.tstart = 1, b.tend = 2, b.cigar = "1=2I1I1=";
  EXPECT_EQ(rescore_cigar(b, view(q2), view(t2), blosum62(), {11, 1}), 22 - 14);
}

// ---------------------------------------------------------------- naive oracle
// Full H/E/F matrices, the tie rule written out plainly (no packing, no rectangles).
struct Naive {
  AlignMode mode;
  const std::vector<uint8_t>& q;
  const std::vector<uint8_t>& t;
  const ScoreMatrix& mat;
  GapCosts g;
  static constexpr int64_t kNeg = std::numeric_limits<int64_t>::min() / 4;
  size_t m = q.size(), n = t.size();
  std::vector<std::vector<int64_t>> H{}, E{}, F{};

  int64_t s(size_t i, size_t j) const { return mat(q[i - 1], t[j - 1]); }

  Alignment align() {
    const int64_t oe = g.open + g.extend;
    H.assign(m + 1, std::vector<int64_t>(n + 1, 0));
    E.assign(m + 1, std::vector<int64_t>(n + 1, kNeg));
    F = E;
    if (mode == AlignMode::Global) {
      for (size_t j = 1; j <= n; ++j) H[0][j] = -(g.open + int64_t(j) * g.extend);
      for (size_t i = 1; i <= m; ++i) H[i][0] = -(g.open + int64_t(i) * g.extend);
    }
    for (size_t i = 1; i <= m; ++i)
      for (size_t j = 1; j <= n; ++j) {
        E[i][j] = std::max(E[i][j - 1] - g.extend, H[i][j - 1] - oe);
        F[i][j] = std::max(F[i - 1][j] - g.extend, H[i - 1][j] - oe);
        H[i][j] = std::max({H[i - 1][j - 1] + s(i, j), E[i][j], F[i][j]});
        if (mode == AlignMode::Local) H[i][j] = std::max<int64_t>(H[i][j], 0);
      }
    // End cell: candidates in row-major order, strict '>' keeps the first.
    size_t bi = m, bj = n;
    if (mode != AlignMode::Global) {
      int64_t best = kNeg;
      for (size_t i = 0; i <= m; ++i)
        for (size_t j = 0; j <= n; ++j) {
          const bool cand = mode == AlignMode::Local || i == m || j == n;
          if (cand && H[i][j] > best) best = H[i][j], bi = i, bj = j;
        }
    }
    Alignment a;
    a.score = int32_t(H[bi][bj]);
    std::string ops;
    size_t i = bi, j = bj;
    char state = 'H';
    while (i > 0 && j > 0) {
      if (state == 'H') {
        if (mode == AlignMode::Local && H[i][j] == 0) break;
        if (H[i][j] == H[i - 1][j - 1] + s(i, j)) {
          ops += q[i - 1] == t[j - 1] ? '=' : 'X';
          --i, --j;
        } else {
          state = H[i][j] == F[i][j] ? 'F' : 'E';
        }
      } else if (state == 'F') {
        const bool open = F[i][j] == H[i - 1][j] - oe;
        ops += 'I', --i;
        if (open) state = 'H';
      } else {
        const bool open = E[i][j] == H[i][j - 1] - oe;
        ops += 'D', --j;
        if (open) state = 'H';
      }
    }
    if (mode == AlignMode::Global) ops += std::string(i, 'I') + std::string(j, 'D'), i = j = 0;
    std::reverse(ops.begin(), ops.end());
    for (size_t k = 0; k < ops.size();) {
      size_t r = k;
      while (r < ops.size() && ops[r] == ops[k]) ++r;
      a.cigar += std::to_string(r - k) + ops[k];
      k = r;
    }
    if (bi > i) a.qstart = uint32_t(i + 1), a.qend = uint32_t(bi);
    if (bj > j) a.tstart = uint32_t(j + 1), a.tend = uint32_t(bj);
    return a;
  }
};

// Random pairs: unrelated, related (mutated copies with indels), and from tiny
// alphabets where ties are everywhere.
struct PairMaker {
  std::mt19937_64 rng;
  explicit PairMaker(uint64_t seed) : rng(seed) {}
  uint32_t below(uint32_t n) { return uint32_t(rng() % n); }

  std::vector<uint8_t> random_seq(uint32_t len, uint32_t alphabet) {
    std::vector<uint8_t> s(len);
    for (auto& c : s) c = uint8_t(below(alphabet));
    return s;
  }
  std::vector<uint8_t> mutate(const std::vector<uint8_t>& s, uint32_t alphabet) {
    std::vector<uint8_t> out;
    for (uint8_t c : s) {
      const uint32_t r = below(100);
      if (r < 8) continue;                                       // deletion
      if (r < 16) out.push_back(uint8_t(below(alphabet)));       // insertion
      out.push_back(r < 30 ? uint8_t(below(alphabet)) : c);      // substitution / keep
    }
    return out;
  }
  std::pair<std::vector<uint8_t>, std::vector<uint8_t>> pair(uint32_t max_len) {
    const uint32_t alphabet = below(3) == 0 ? 2 + below(3) : (below(8) == 0 ? kAlphabetSize : 20);
    auto a = random_seq(below(max_len + 1), alphabet);
    if (below(2)) return {a, mutate(a, alphabet)};
    return {a, random_seq(below(max_len + 1), alphabet)};
  }
};

struct Scoring {
  const char* matrix;
  GapCosts gaps;
};
const Scoring kScorings[] = {{"BLOSUM62", {11, 1}}, {"BLOSUM62", {10, 2}}, {"BLOSUM45", {14, 2}},
                             {"PAM30", {9, 1}},     {"BLOSUM80", {0, 3}},  {"BLOSUM50", {13, 0}}};

TEST(ReferenceProperty, MatchesNaiveImplementationAndRescores) {
  PairMaker maker(12345);
  int checked = 0;
  for (const Scoring& sc : kScorings) {
    const ScoreMatrix mat = load_matrix(sc.matrix);
    for (int k = 0; k < 200; ++k) {
      const auto [q, t] = maker.pair(300);
      for (AlignMode mode : kModes) {
        SCOPED_TRACE(std::string(to_string(mode)) + " " + sc.matrix + " " + std::to_string(sc.gaps.open) +
                     "/" + std::to_string(sc.gaps.extend) + " pair " + std::to_string(k));
        const Alignment got = reference_align(mode, view(q), view(t), mat, sc.gaps);
        const Alignment want = Naive{mode, q, t, mat, sc.gaps}.align();
        ASSERT_EQ(reference_score(mode, view(q), view(t), mat, sc.gaps), want.score);
        ASSERT_EQ(got.score, want.score);
        ASSERT_EQ(rescore_cigar(got, view(q), view(t), mat, sc.gaps), got.score);
        ASSERT_EQ(got.cigar, want.cigar);
        ASSERT_EQ(got.qstart, want.qstart);
        ASSERT_EQ(got.qend, want.qend);
        ASSERT_EQ(got.tstart, want.tstart);
        ASSERT_EQ(got.tend, want.tend);
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 6 * 200 * 3);
}

TEST(ReferenceProperty, RescoreEqualsScoreOnManyPairs) {
  PairMaker maker(777);
  const ScoreMatrix mat = load_matrix("BLOSUM62");
  for (int k = 0; k < 3000; ++k) {
    const auto [q, t] = maker.pair(300);
    const GapCosts g{int(maker.below(15)), int(1 + maker.below(3))};
    for (AlignMode mode : kModes) {
      const Alignment a = reference_align(mode, view(q), view(t), mat, g);
      ASSERT_EQ(a.score, reference_score(mode, view(q), view(t), mat, g)) << to_string(mode) << " pair " << k;
      ASSERT_EQ(rescore_cigar(a, view(q), view(t), mat, g), a.score) << to_string(mode) << " pair " << k;
      if (mode == AlignMode::Global) {  // global consumes everything
        const CigarStats st = cigar_stats(a.cigar);
        ASSERT_EQ(st.query_span, q.size());
        ASSERT_EQ(st.target_span, t.size());
      }
    }
  }
}

// ---------------------------------------------------------------- exhaustive search
// Best score over every path of I/D/diagonal moves from (i, j) to (ei, ej).
int64_t best_path(const std::vector<uint8_t>& q, const std::vector<uint8_t>& t, size_t i, size_t j,
                  size_t ei, size_t ej, char prev, const ScoreMatrix& mat, GapCosts g) {
  if (i == ei && j == ej) return 0;
  int64_t best = std::numeric_limits<int64_t>::min() / 4;
  if (i < ei && j < ej) best = std::max(best, mat(q[i], t[j]) + best_path(q, t, i + 1, j + 1, ei, ej, 'M', mat, g));
  if (i < ei)
    best = std::max(best, -(prev == 'I' ? 0 : g.open) - g.extend + best_path(q, t, i + 1, j, ei, ej, 'I', mat, g));
  if (j < ej)
    best = std::max(best, -(prev == 'D' ? 0 : g.open) - g.extend + best_path(q, t, i, j + 1, ei, ej, 'D', mat, g));
  return best;
}

int64_t exhaustive(AlignMode mode, const std::vector<uint8_t>& q, const std::vector<uint8_t>& t,
                   const ScoreMatrix& mat, GapCosts g) {
  const size_t m = q.size(), n = t.size();
  if (mode == AlignMode::Global) return best_path(q, t, 0, 0, m, n, 0, mat, g);
  int64_t best = 0;  // the empty alignment
  for (size_t a = 0; a <= m; ++a)
    for (size_t c = 0; c <= n; ++c)
      for (size_t b = a; b <= m; ++b)
        for (size_t d = c; d <= n; ++d) {
          // Semiglobal: start on the first row or column, end on the last row or column.
          if (mode == AlignMode::SemiGlobal && !((a == 0 || c == 0) && (b == m || d == n))) continue;
          best = std::max(best, best_path(q, t, a, c, b, d, 0, mat, g));
        }
  return best;
}

TEST(ReferenceProperty, ScoresEqualExhaustiveSearchOnTinySequences) {
  PairMaker maker(99);
  const ScoreMatrix mat = load_matrix("BLOSUM62");
  for (int k = 0; k < 150; ++k) {
    const uint32_t alphabet = k % 2 ? 3 : 20;
    const auto q = maker.random_seq(maker.below(5), alphabet), t = maker.random_seq(maker.below(5), alphabet);
    const GapCosts g{int(maker.below(12)), int(maker.below(4))};
    for (AlignMode mode : kModes)
      ASSERT_EQ(reference_score(mode, view(q), view(t), mat, g), exhaustive(mode, q, t, mat, g))
          << to_string(mode) << " pair " << k << " gaps " << g.open << "/" << g.extend;
  }
}

TEST(ReferenceProperty, LongLocalHitInsideLongSequences) {
  // A 200-residue shared segment inside 4000-residue random sequences: the local
  // traceback works on a reduced rectangle and must still match the score pass.
  PairMaker maker(5);
  auto core = maker.random_seq(200, 20);
  auto q = maker.random_seq(1900, 20), t = maker.random_seq(3100, 20);
  q.insert(q.begin() + 1000, core.begin(), core.end());
  const auto mutated = maker.mutate(core, 20);
  t.insert(t.begin() + 2500, mutated.begin(), mutated.end());
  const Alignment a = reference_align(AlignMode::Local, view(q), view(t), blosum62(), {11, 1});
  EXPECT_EQ(a.score, reference_score(AlignMode::Local, view(q), view(t), blosum62(), {11, 1}));
  EXPECT_EQ(rescore_cigar(a, view(q), view(t), blosum62(), {11, 1}), a.score);
  EXPECT_GT(a.score, 300);
  EXPECT_NEAR(double(a.qstart), 1001.0, 30.0);
  EXPECT_NEAR(double(a.tstart), 2501.0, 30.0);
}

TEST(ReferenceErrors, NegativeGapCostsAreRejected) {
  const auto q = enc("WCW");
  EXPECT_THROW(reference_score(AlignMode::Local, view(q), view(q), blosum62(), {-1, 1}), Error);
  EXPECT_THROW(reference_align(AlignMode::Global, view(q), view(q), blosum62(), {11, -1}), Error);
}

}  // namespace
}  // namespace hpc
