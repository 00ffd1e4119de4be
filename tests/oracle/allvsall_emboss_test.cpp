// `hpcalign allvsall` end to end against EMBOSS and the reference aligners, on 60 sequences
// of tests/data/balifam2000.fa (1,770 pairs; two families of 15 for real alignments with
// gaps, 30 others for unrelated pairs):
//   global     scores = needle -endweight Y -endopen 12 -endextend 1 (-gapopen 12 -gapextend 1)
//   local      scores = water (-gapopen 12 -gapextend 1)
//   semiglobal score = needle with its default -endweight N (end gaps free: leading and
//              trailing gaps of either sequence cost nothing, ours the same: src/align/
//              reference.hpp); score, coordinates and CIGAR = reference_align
//   every mode: each CIGAR re-scored (rescore_cigar) gives the reported score, and the
//   traceback budget (bounded-memory path for most pairs) does not change a byte of /hits.
// Conventions as tests/oracle/emboss_oracle_test.cpp: our 11/1 is EMBOSS 12/1; both sides read
// EMBOSS's EBLOSUM62 file. One water/needle call per query: -asequence s_i, -bsequence
// s_{i+1..59} (the pairs allvsall reports with query i).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "src/align/reference.hpp"
#include "src/core/alphabet.hpp"
#include "oracle/emboss_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::emboss_matrix_path;
using test::families;
using test::index_range;
using test::write_fasta;

// 15 sequences of each of two families, then every 61st other sequence, 60 in all,
// renamed s0..s59 (EMBOSS output names them back to us).
SequenceSet sample_set(const std::string& fasta) {
  const SequenceSet all = read_fasta(fasta);
  const std::vector<std::string> fam = families(fasta);
  std::vector<uint32_t> pick;
  std::map<std::string, int> taken;
  for (uint32_t i = 0; i < all.size(); ++i)
    if ((fam[i] == "PF00202" || fam[i] == "PF00051") && taken[fam[i]] < 15) ++taken[fam[i]], pick.push_back(i);
  for (uint32_t i = 0; i < all.size() && pick.size() < 60; i += 61)
    if (fam[i] != "PF00202" && fam[i] != "PF00051") pick.push_back(i);
  SequenceSet s;
  for (uint32_t i : pick) s.add("s" + std::to_string(s.size()), all.view(i).data, all.length(i));
  return s;
}

// (a index, b index) -> EMBOSS score, from "# 1: s<a>", "# 2: s<b>", "# Score: x".
void parse_scores(const std::string& path, std::map<std::pair<uint32_t, uint32_t>, double>& scores) {
  std::ifstream in(path);
  long a = -1, b = -1;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# 1: s", 0) == 0) a = std::stol(line.substr(6));
    if (line.rfind("# 2: s", 0) == 0) b = std::stol(line.substr(6));
    if (line.rfind("# Score:", 0) == 0 && a >= 0 && b >= 0) scores[{uint32_t(a), uint32_t(b)}] = std::stod(line.substr(8));
  }
}

std::string dump_hits(const HitTable& t) {
  std::ostringstream o;
  for (const Hit& h : t.hits)
    o << h.query << ' ' << h.target << ' ' << h.aln.score << ' ' << h.aln.qstart << ' ' << h.aln.qend << ' '
      << h.aln.tstart << ' ' << h.aln.tend << ' ' << h.aln.cigar << '\n';
  return o.str();
}

class AllVsAllEmboss : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test::have_program("water") && test::have_program("needle") && test::have_program("embossdata"))
        << "EMBOSS (water, needle, embossdata) is not installed";
    matrix_path_ = emboss_matrix_path();
    ASSERT_FALSE(matrix_path_.empty()) << "EMBOSS data file EBLOSUM62 not found";
    dir_ = test::temp_dir();
    set_ = sample_set(test::data_path("balifam2000.fa"));
    ASSERT_EQ(set_.size(), 60u);
    write_fasta(dir_ + "/set.fa", set_, index_range(0, 60));
    matrix_ = load_matrix(matrix_path_);
  }

  HitTable run_allvsall(const std::string& mode, const std::string& extra = "") {
    const std::string out = dir_ + "/" + mode + std::to_string(runs_++) + ".h5";
    int st = 0;
    const std::string log = test::run_command(test::binary_path() + " allvsall -i " + dir_ + "/set.fa -o " + out +
                                              " --mode " + mode + " --matrix " + matrix_path_ +
                                              " --threads 2 --quiet " + extra + " 2>&1", &st);
    EXPECT_EQ(st, 0) << log;
    return read_hit_table(out);
  }

  // Checks shared by every mode: all 1,770 pairs once (query < target), in the documented
  // order (hit_order: query, score descending, target), CIGARs re-score.
  void check_rows(const HitTable& t, AlignMode mode) {
    ASSERT_EQ(t.status, "complete");
    ASSERT_EQ(t.hits.size(), 60u * 59u / 2u);
    EXPECT_TRUE(std::is_sorted(t.hits.begin(), t.hits.end(), hit_order));
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const Hit& h : t.hits) {
      const uint32_t a = h.query, b = h.target;
      ASSERT_LT(a, b);
      ASSERT_LT(b, 60u);
      ASSERT_TRUE(pairs.insert({a, b}).second) << "pair " << a << " " << b << " twice";
      if (h.aln.cigar.empty()) {
        EXPECT_TRUE(h.aln.score == 0 || mode == AlignMode::Global) << a << " " << b;
        continue;
      }
      EXPECT_EQ(rescore_cigar(h.aln, set_.view(a), set_.view(b), matrix_, {11, 1}), h.aln.score) << a << " " << b;
    }
  }

  std::map<std::pair<uint32_t, uint32_t>, double> emboss(const std::string& program, const std::string& extra) {
    std::map<std::pair<uint32_t, uint32_t>, double> scores;
    for (uint32_t a = 0; a + 1 < 60; ++a) {
      write_fasta(dir_ + "/a.fa", set_, {a});
      write_fasta(dir_ + "/b.fa", set_, index_range(a + 1, 60));
      int st = 0;
      test::run_command(program + " -asequence " + dir_ + "/a.fa -bsequence " + dir_ + "/b.fa -datafile " +
                            matrix_path_ + " -gapopen 12 -gapextend 1" + extra + " -aformat3 pair -auto -outfile " +
                            dir_ + "/emboss.txt 2>&1",
                        &st);
      EXPECT_EQ(st, 0) << program << " failed";
      parse_scores(dir_ + "/emboss.txt", scores);
    }
    return scores;
  }

  void expect_scores_equal(const HitTable& t, const std::map<std::pair<uint32_t, uint32_t>, double>& theirs) {
    ASSERT_EQ(theirs.size(), t.hits.size()) << "EMBOSS scores parsed";
    size_t differ = 0;
    for (const Hit& h : t.hits) {
      const auto it = theirs.find({h.query, h.target});
      ASSERT_NE(it, theirs.end()) << h.query << " " << h.target;
      if (double(h.aln.score) != it->second && ++differ <= 5)
        ADD_FAILURE() << "s" << h.query << " vs s" << h.target << ": ours " << h.aln.score << ", EMBOSS " << it->second;
    }
    EXPECT_EQ(differ, 0u);
  }

  std::string dir_, matrix_path_;
  SequenceSet set_;
  ScoreMatrix matrix_;
  int runs_ = 0;
};

TEST_F(AllVsAllEmboss, GlobalEqualsNeedleWithEndGapsPenalised) {
  const HitTable t = run_allvsall("global");
  check_rows(t, AlignMode::Global);
  expect_scores_equal(t, emboss("needle", " -endweight Y -endopen 12 -endextend 1"));
  // A 2 kB traceback budget sends almost every pair down the bounded-memory path: same bytes.
  EXPECT_EQ(dump_hits(run_allvsall("global", "--traceback-budget 2000")), dump_hits(t));
}

TEST_F(AllVsAllEmboss, LocalEqualsWater) {
  const HitTable t = run_allvsall("local");
  check_rows(t, AlignMode::Local);
  expect_scores_equal(t, emboss("water", ""));
  EXPECT_EQ(dump_hits(run_allvsall("local", "--traceback-budget 2000")), dump_hits(t));
}

TEST_F(AllVsAllEmboss, SemiglobalEqualsNeedleWithFreeEndGaps) {
  // needle without -endweight: end gaps cost nothing on both sequences, and it optimises
  // for that (its score is not a penalised alignment re-scored without its end gaps).
  const HitTable t = run_allvsall("semiglobal");
  check_rows(t, AlignMode::SemiGlobal);
  expect_scores_equal(t, emboss("needle", ""));
  // The comparison tells the modes apart: on these pairs free end gaps give scores that
  // neither the local nor the fully charged global optimum gives.
  size_t unlike_local = 0, unlike_global = 0;
  for (const Hit& h : t.hits) {
    const SeqView a = set_.view(h.query), b = set_.view(h.target);
    unlike_local += h.aln.score != reference_score(AlignMode::Local, a, b, matrix_, {11, 1});
    unlike_global += h.aln.score != reference_score(AlignMode::Global, a, b, matrix_, {11, 1});
  }
  EXPECT_GT(unlike_local, t.hits.size() / 2);
  EXPECT_GT(unlike_global, t.hits.size() / 2);
  std::cout << "[ needle   ] " << t.hits.size() << " semiglobal scores equal; unlike the local score in "
            << unlike_local << ", unlike the global one in " << unlike_global << "\n";
}

TEST_F(AllVsAllEmboss, SemiglobalEqualsReferenceAligner) {
  const HitTable t = run_allvsall("semiglobal");
  check_rows(t, AlignMode::SemiGlobal);
  for (const Hit& h : t.hits) {
    const Alignment ref = reference_align(AlignMode::SemiGlobal, set_.view(h.query), set_.view(h.target), matrix_, {11, 1});
    ASSERT_EQ(h.aln.score, ref.score) << h.query << " " << h.target;
    ASSERT_EQ(h.aln.cigar, ref.cigar) << h.query << " " << h.target;
    ASSERT_EQ(h.aln.qstart, ref.qstart);
    ASSERT_EQ(h.aln.qend, ref.qend);
    ASSERT_EQ(h.aln.tstart, ref.tstart);
    ASSERT_EQ(h.aln.tend, ref.tend);
  }
  EXPECT_EQ(dump_hits(run_allvsall("semiglobal", "--traceback-budget 2000")), dump_hits(t));
}

}  // namespace
}  // namespace hpc
