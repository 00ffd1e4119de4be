// Reference aligners against EMBOSS water (local) and needle (global).
//
// Commands (one call per sampled "a" sequence, its partners batched in -bsequence):
//   water  -asequence a.fa -bsequence b.fa -datafile EBLOSUM62 -gapopen 12 -gapextend 1
//          -aformat3 pair -outfile out.txt -auto
//   needle -asequence a.fa -bsequence b.fa -datafile EBLOSUM62 -gapopen 12 -gapextend 1
//          -endweight Y -endopen 12 -endextend 1 -aformat3 pair -outfile out.txt -auto
// and the same with -gapopen 12 -gapextend 2 (-endopen 12 -endextend 2).
//
// Conventions: our gap of length k costs open + k*extend; EMBOSS charges -gapopen for
// the first residue and -gapextend for each further one, so EMBOSS gapopen = open +
// extend and gapextend = extend: our 11/1 is EMBOSS 12/1, our 10/2 is EMBOSS 12/2.
// needle charges nothing for end gaps unless -endweight Y; -endopen/-endextend then
// follow the same convention, so end gaps cost exactly like our global gaps.
// The matrix is EMBOSS's own EBLOSUM62 file, read by our NCBI-format parser, so both
// sides use the very same table. (It differs from our built-in BLOSUM62 in the X row
// and a few B/Z entries: the built-in follows BLAST+'s internal table.)
// EMBOSS prints scores as decimals ("# Score: 123.0"); with integer costs they are exact.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/align/reference.hpp"
#include "src/core/alphabet.hpp"
#include "oracle/emboss_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::emboss_matrix_path;
using test::families;
using test::write_fasta;

// "# 2: s<index>" names the b sequence of each alignment; "# Score: x" follows it.
std::map<uint32_t, double> parse_scores(const std::string& path) {
  std::ifstream in(path);
  std::map<uint32_t, double> scores;
  long current = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# 2: s", 0) == 0) current = std::stol(line.substr(6));
    if (line.rfind("# Score:", 0) == 0 && current >= 0) scores[uint32_t(current)] = std::stod(line.substr(8));
  }
  return scores;
}

struct Pair {
  uint32_t a;
  std::vector<uint32_t> partners;
};

// Deterministic sample: 8 "a" sequences, each with up to 15 partners of its own
// family (real alignments with gaps) and 15 random partners.
std::vector<Pair> sample_pairs(const SequenceSet& set, const std::vector<std::string>& fam) {
  std::mt19937 rng(20240611);  // mt19937's output is fixed by the standard
  std::vector<Pair> pairs;
  const uint32_t n = uint32_t(set.size());
  for (uint32_t k = 0; k < 8; ++k) {
    Pair p{uint32_t(rng() % n), {}};
    for (uint32_t step = 1; step < n && p.partners.size() < 15; ++step) {
      const uint32_t b = (p.a + step) % n;
      if (fam[b] == fam[p.a]) p.partners.push_back(b);
    }
    while (p.partners.size() < 30) p.partners.push_back(uint32_t(rng() % n));
    pairs.push_back(p);
  }
  return pairs;
}

struct Setting {
  GapCosts ours;
  int emboss_open, emboss_extend;
};

TEST(EmbossOracle, WaterAndNeedleScoresMatchReference) {
  ASSERT_TRUE(test::have_program("water") && test::have_program("needle") && test::have_program("embossdata"))
      << "EMBOSS (water, needle, embossdata) is not installed";
  const std::string matrix_path = emboss_matrix_path();
  ASSERT_FALSE(matrix_path.empty()) << "EMBOSS data file EBLOSUM62 not found";
  const ScoreMatrix matrix = load_matrix(matrix_path);

  const std::string fasta = test::data_path("balifam2000.fa");
  const SequenceSet set = read_fasta(fasta);
  const std::vector<std::string> fam = families(fasta);
  ASSERT_EQ(fam.size(), set.size());
  const std::vector<Pair> pairs = sample_pairs(set, fam);

  const std::string dir = test::temp_dir();
  const Setting settings[] = {{{11, 1}, 12, 1}, {{10, 2}, 12, 2}};
  size_t compared = 0;
  for (const Setting& s : settings) {
    const std::string gaps = " -datafile " + matrix_path + " -gapopen " + std::to_string(s.emboss_open) +
                             " -gapextend " + std::to_string(s.emboss_extend);
    const std::string end_gaps = " -endweight Y -endopen " + std::to_string(s.emboss_open) + " -endextend " +
                                 std::to_string(s.emboss_extend);
    for (const Pair& p : pairs) {
      write_fasta(dir + "/a.fa", set, {p.a});
      write_fasta(dir + "/b.fa", set, p.partners);
      const std::string io = " -asequence " + dir + "/a.fa -bsequence " + dir + "/b.fa -aformat3 pair -auto -outfile ";
      int st_w = 0, st_n = 0;
      test::run_command("water" + io + dir + "/water.txt" + gaps + " 2>&1", &st_w);
      test::run_command("needle" + io + dir + "/needle.txt" + gaps + end_gaps + " 2>&1", &st_n);
      ASSERT_EQ(st_w, 0) << "water failed";
      ASSERT_EQ(st_n, 0) << "needle failed";
      const auto water = parse_scores(dir + "/water.txt"), needle = parse_scores(dir + "/needle.txt");
      const SeqView a = set.view(p.a);
      for (uint32_t b : p.partners) {
        SCOPED_TRACE(set.ids[p.a] + " vs " + set.ids[b] + " gaps " + std::to_string(s.ours.open) + "/" +
                     std::to_string(s.ours.extend));
        ASSERT_TRUE(water.count(b) && needle.count(b)) << "no EMBOSS score parsed";
        EXPECT_EQ(double(reference_score(AlignMode::Local, a, set.view(b), matrix, s.ours)), water.at(b));
        EXPECT_EQ(double(reference_score(AlignMode::Global, a, set.view(b), matrix, s.ours)), needle.at(b));
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, 2u * 200u);
}

}  // namespace
}  // namespace hpc
