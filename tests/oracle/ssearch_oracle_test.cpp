// Reference local scores against ssearch36 (FASTA package, Smith-Waterman) for the
// 3 queries of queries3.fa against all 2000 sequences of balifam2000.fa.
//
// Command (one call per query; options in tests/oracle/ssearch_support.hpp):
//   ssearch36 -q -s BP62 -f -11 -g -1 -m 9 -b 2000 -d 0 -E 1e6 -z -1 -T 2 query.fa balifam2000.fa
// Conventions: ssearch36's -f -11 -g -1 charge a gap of length k as 11 + k*1, exactly our
// GapCosts{11, 1}. BP62's 20 standard residues equal our built-in BLOSUM62; for X, B,
// Z the two tables differ (see MatrixConventionsOfBP62), which could matter only for
// the 8 X residues in the library and, measured, changes none of the 6000 scores.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/align/reference.hpp"
#include "src/core/alphabet.hpp"
#include "oracle/ssearch_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

std::string run_ssearch(const std::string& query_fa, const std::string& library, const std::string& matrix = "BP62") {
  return test::run_ssearch(query_fa, library, matrix, 2000);
}

std::string write_query(const std::string& dir, const SequenceSet& set, size_t k) {
  const std::string path = dir + "/query" + std::to_string(k) + ".fa";
  std::ofstream out(path);
  const SeqView v = set.view(k);
  out << ">" << set.ids[k] << "\n" << decode(v.data, v.length) << "\n";
  return path;
}

TEST(SsearchOracle, LocalScoresMatchEveryLibrarySequence) {
  ASSERT_TRUE(test::have_program("ssearch36")) << "ssearch36 (Debian package fasta3) is not installed";
  const std::string library_path = test::data_path("balifam2000.fa");
  const SequenceSet queries = read_fasta(test::data_path("queries3.fa"));
  const SequenceSet library = read_fasta(library_path);
  const ScoreMatrix blosum62 = load_matrix("BLOSUM62");
  const GapCosts gaps{11, 1};

  // ssearch sorts by score, so find library sequences by id; one id occurs twice in
  // balifam2000 (two domains of AAT5_ARATH), the length tells them apart.
  std::multimap<std::string, uint32_t> by_id;
  for (uint32_t k = 0; k < library.size(); ++k) by_id.emplace(library.ids[k], k);

  const std::string dir = test::temp_dir();
  size_t compared = 0;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const auto lists = test::parse_best_scores(run_ssearch(write_query(dir, queries, qi), library_path));
    ASSERT_EQ(lists.size(), 1u);
    const std::vector<test::SsearchHit>& hits = lists[0];
    ASSERT_EQ(hits.size(), library.size()) << "ssearch36 did not list every library sequence";
    std::vector<bool> seen(library.size(), false);
    for (const test::SsearchHit& h : hits) {
      long target = -1;
      for (auto [it, end] = by_id.equal_range(h.id); it != end; ++it)
        if (library.length(it->second) == h.length && !seen[it->second]) target = it->second;
      ASSERT_GE(target, 0) << "ssearch36 listed an unknown sequence " << h.id;
      seen[size_t(target)] = true;
      const Alignment a = reference_align(AlignMode::Local, queries.view(qi), library.view(size_t(target)), blosum62, gaps);
      EXPECT_EQ(a.score, h.score) << queries.ids[qi] << " vs " << h.id;
      ++compared;
    }
  }
  EXPECT_EQ(compared, queries.size() * library.size());
  // Coordinates: tests/oracle/ssearch_coordinates_test.cpp asserts them.
  std::cout << "[ ssearch  ] " << compared << " scores compared\n";
}

// Reads BP62 back out of ssearch36: query WWWW a WWWW against library WWWW b WWWW
// scores 8 x 11 + s(a, b) (every s >= -4 keeps the full-length alignment optimal).
// The 20 standard residues must equal our built-in BLOSUM62. BP62 is NCBI's
// blosum62.txt; our built-in is BLAST+'s internal table, and they differ for X, B, Z:
//   X row: BP62 A 0, C -2, P -2, S 0, T 0, W -2 (others -1); ours -1 everywhere;
//   B/N 3 vs 4, Z/Q 3 vs 4, B/Z 1 vs 0, Z/W -3 vs -2.
// Those differences are printed, not asserted: none changes a score of the main test
// (its 8 library X's never sit in an optimal alignment where the tables disagree).
TEST(SsearchOracle, MatrixConventionsOfBP62) {
  ASSERT_TRUE(test::have_program("ssearch36")) << "ssearch36 (Debian package fasta3) is not installed";
  const std::string letters = "ARNDCQEGHILKMFPSTWYVBZX";
  const std::string dir = test::temp_dir();
  {
    std::ofstream q(dir + "/probe_q.fa"), lib(dir + "/probe_lib.fa");
    for (size_t k = 0; k < letters.size(); ++k) {
      q << ">q" << k << "\nWWWW" << letters[k] << "WWWW\n";
      lib << ">t" << k << "\nWWWW" << letters[k] << "WWWW\n";
    }
  }
  const auto lists = test::parse_best_scores(run_ssearch(dir + "/probe_q.fa", dir + "/probe_lib.fa"));
  ASSERT_EQ(lists.size(), letters.size());
  const ScoreMatrix ours = load_matrix("BLOSUM62");
  std::string differences;
  for (size_t a = 0; a < letters.size(); ++a) {
    ASSERT_EQ(lists[a].size(), letters.size());
    for (const test::SsearchHit& h : lists[a]) {
      const size_t b = std::stoul(h.id.substr(1));
      const int bp62 = h.score - 88;
      const int mine = ours(encode_residue(letters[a]), encode_residue(letters[b]));
      if (a < 20 && b < 20) {
        EXPECT_EQ(mine, bp62) << letters[a] << "/" << letters[b];
      } else if (mine != bp62 && a <= b) {
        differences += std::string(" ") + letters[a] + "/" + letters[b] + " " + std::to_string(bp62) + " vs " +
                       std::to_string(mine) + ";";
      }
    }
  }
  std::cout << "[ ssearch  ] BP62 vs our BLOSUM62 outside the 20 residues (BP62 vs ours):" << differences << "\n";
}


// What ssearch36 makes of the letters outside the 20 with NCBI's matrix file (-s FILE), read
// back as in MatrixConventionsOfBP62 (query WWWW a WWWW vs library WWWW b WWWW, 8 x 11 + s):
// against the 20 residues, U scores as C, O as K, J as the better of I and L (not the file's
// J row), '*' as X (not the file's '*' row), lower case as upper case; B, Z and X take the
// file's rows, as ours do. So search's BLAST rules (U/O/J as X, '*' from the file) agree with
// ssearch36 on B, Z, X and lower case only: the test below compares scores on those.
TEST(SsearchOracle, HowSsearchReadsRareLettersWithNcbiMatrixFile) {
  ASSERT_TRUE(test::have_program("ssearch36")) << "ssearch36 (FASTA package) is needed by this test";
  const std::string twenty = "ARNDCQEGHILKMFPSTWYV", probes = "UOJ*BZXbzxc";
  const std::string dir = test::temp_dir();
  {
    std::ofstream q(dir + "/rare_q.fa"), lib(dir + "/rare_lib.fa");
    for (size_t k = 0; k < probes.size(); ++k) q << ">q" << k << "\nWWWW" << probes[k] << "WWWW\n";
    for (size_t k = 0; k < twenty.size(); ++k) lib << ">t" << k << "\nWWWW" << twenty[k] << "WWWW\n";
  }
  const auto lists = test::parse_best_scores(run_ssearch(dir + "/rare_q.fa", dir + "/rare_lib.fa", test::kNcbiBlosum62));
  ASSERT_EQ(lists.size(), probes.size());
  const ScoreMatrix ncbi = load_matrix(test::kNcbiBlosum62);
  auto s = [&](char a, char b) { return ncbi(encode_residue(a), encode_residue(b)); };
  for (size_t p = 0; p < probes.size(); ++p) {
    ASSERT_EQ(lists[p].size(), twenty.size());
    for (const test::SsearchHit& h : lists[p]) {
      const char b = twenty[std::stoul(h.id.substr(1))], a = probes[p];
      const int theirs = h.score - 88;
      const int expected = a == 'U' ? s('C', b) : a == 'O' ? s('K', b) : a == 'J' ? std::max(s('I', b), s('L', b))
                         : a == '*' ? s('X', b) : s(a, b);
      EXPECT_EQ(theirs, expected) << a << "/" << b;
    }
  }
}

// Sequences full of B, Z, X and lower case, scored with NCBI's BLOSUM62 file by both
// programs: every local score equals ssearch36's.
TEST(SsearchOracle, DegenerateAndLowerCaseLettersWithNcbiMatrixFile) {
  ASSERT_TRUE(test::have_program("ssearch36")) << "ssearch36 (FASTA package) is needed by this test";
  const std::string dir = test::temp_dir();
  const SequenceSet base = read_fasta(test::data_path("balifam2000.fa"));
  const SequenceSet q3 = read_fasta(test::data_path("queries3.fa"));
  // Every 7th residue of the first 300 library sequences and of the queries becomes B, Z, X, b,
  // z or x in turn; every 11th is written in lower case.
  auto sprinkle = [](std::string s, size_t salt) {
    for (size_t i = 0; i < s.size(); ++i) {
      if ((i + salt) % 7 == 0) s[i] = "BZXbzx"[(i / 7 + salt) % 6];
      else if ((i + salt) % 11 == 0) s[i] = char(std::tolower(static_cast<unsigned char>(s[i])));
    }
    return s;
  };
  const std::string library_path = dir + "/rich_lib.fa", query_path = dir + "/rich_q.fa";
  {
    std::ofstream lib(library_path), q(query_path);
    for (size_t k = 0; k < 300; ++k)
      lib << ">t" << k << "\n" << sprinkle(decode(base.view(k).data, base.length(k)), k) << "\n";
    for (size_t k = 0; k < q3.size(); ++k)
      q << ">q" << k << "\n" << sprinkle(decode(q3.view(k).data, q3.length(k)), k) << "\n";
  }
  const SequenceSet queries = read_fasta(query_path), library = read_fasta(library_path);
  const ScoreMatrix ncbi = load_matrix(test::kNcbiBlosum62);
  const auto lists = test::parse_best_scores(run_ssearch(query_path, library_path, test::kNcbiBlosum62));
  ASSERT_EQ(lists.size(), queries.size());
  size_t compared = 0;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    ASSERT_EQ(lists[qi].size(), library.size());
    for (const test::SsearchHit& h : lists[qi]) {
      const size_t t = std::stoul(h.id.substr(1));
      const Alignment a = reference_align(AlignMode::Local, queries.view(qi), library.view(t), ncbi, GapCosts{11, 1});
      EXPECT_EQ(a.score, h.score) << "q" << qi << " vs " << h.id;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3u * 300u);
}

}  // namespace
}  // namespace hpc
