// `hpcalign search` + `hpcalign view --format blast6` against a real blastp run on the same
// data: the 7 queries of oracle_queries() (3 without homologs, 4 with ~45 each) against all
// 2000 sequences of balifam2000.fa.
//
// blastp: makeblastdb -in db.fa -dbtype prot; blastp -matrix BLOSUM62 -gapopen 11 -gapextend 1
//   -comp_based_stats 0 (no composition adjustment: plain BLOSUM62 scores, as ours)
//   -seg no (no masking) -max_target_seqs 5000 -evalue 1e6 (every hit it finds) -outfmt 11,
//   then blast_formatter prints the archive twice: tabular (-outfmt "6 ... score qseq sseq":
//   the printed columns, the raw score and the alignment) and XML (-outfmt 5: the unrounded
//   bit score and E-value, and the search's Lambda, K, query length and database length).
// ours: hpcalign search --max-hits 2000 --evalue 1e6 --stats ka (every pair of positive score;
// ka: the textbook E = K m N exp(-lambda S) checked below; blastp's own E-values, which --stats
// blast reproduces, are checked by tests/scripts/oracle_stats_blastp.sh).
//
// Compared where blastp's best alignment of a pair is the Smith-Waterman optimum (same raw
// score; blastp is heuristic and may stop below it, never above):
//   - the same alignment: every blast6 column but the E-value, byte for byte;
//   - a different alignment of the same score (a tie: our rule in src/align/reference.hpp,
//     blastp its own): its re-scored alignment must give that score, and the bit score
//     column must be equal.
// Bit scores: BLAST's bits = (lambda S - ln K) / ln 2 with its gapped Lambda and K; ours must be
// that value for the same raw score (checked on every blastp HSP, not only shared pairs).
// E-values are NOT compared with blastp's: blastp 2.12 computes them with Spouge's finite-size
// correction (BLAST_SpougeStoE, blast_hits.c, from BLOSUM62 11/1's Gumbel parameters and the
// subject length), ours are plain Karlin-Altschul on the raw lengths (README, search). Ours are
// checked against K m N exp(-lambda S) computed here from blastp's reported Lambda, K, query
// length m and database length N; blastp's own unrounded values check the formatting.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "oracle/blastp_support.hpp"
#include "oracle/oracle_inputs.hpp"
#include "src/align/reference.hpp"
#include "src/report/hit_columns.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using namespace hpc::test;

class BlastpOracle : public ::testing::Test {
 protected:
  // Runs once, in the first test's SetUp: failures there fail that test (a failing
  // SetUpTestSuite would only mark the tests skipped), and the others fail on no results.
  static void run_both() {
    dir_ = test::temp_dir();
    queries_ = test::oracle_queries();
    library_ = read_fasta(test::data_path("balifam2000.fa"));
    test::write_renamed(dir_ + "/q.fa", queries_, "q");
    test::write_renamed(dir_ + "/db.fa", library_, "s");
    const std::string archive = dir_ + "/blast.asn";
    run_ok("makeblastdb -in " + dir_ + "/db.fa -dbtype prot -out " + dir_ + "/db");
    run_ok("blastp -query " + dir_ + "/q.fa -db " + dir_ + "/db -matrix BLOSUM62 -gapopen 11 -gapextend 1 " +
           "-comp_based_stats 0 -seg no -max_target_seqs 5000 -evalue 1e6 -num_threads 2 -outfmt 11 -out " + archive);
    run_ok("blast_formatter -archive " + archive + " -max_target_seqs 5000 -outfmt '6 qseqid sseqid pident length " +
           "mismatch gapopen qstart qend sstart send evalue bitscore score qseq sseq' -out " + dir_ + "/blast.tsv");
    run_ok("blast_formatter -archive " + archive + " -max_target_seqs 5000 -outfmt 5 -out " + dir_ + "/blast.xml");
    hsps_ = read_blast(dir_ + "/blast.xml", dir_ + "/blast.tsv", stats_);

    const std::string out = dir_ + "/ours.h5";
    run_ok(test::binary_path() + " search -q " + dir_ + "/q.fa -d " + dir_ + "/db.fa -o " + out +
           " --max-hits 2000 --evalue 1e6 --stats ka --threads 2 --quiet");
    ours_ = read_hit_table(out);
    std::istringstream view(run_ok(test::binary_path() + " view " + out + " --format blast6"));
    for (std::string line; std::getline(view, line);) blast6_.push_back(split_tabs(line));
  }

  void SetUp() override {
    static bool ran = false;
    if (!ran) ran = true, run_both();
    ASSERT_FALSE(hsps_.empty()) << "no blastp results (blastp, makeblastdb, blast_formatter: package ncbi-blast+)";
    ASSERT_FALSE(blast6_.empty()) << "no hpcalign search results";
  }

  static std::string dir_;
  static SequenceSet queries_, library_;
  static std::vector<BlastHsp> hsps_;
  static SearchStats stats_;
  static HitTable ours_;
  static std::vector<std::vector<std::string>> blast6_;  // our view's lines, in hit order
};
std::string BlastpOracle::dir_;
SequenceSet BlastpOracle::queries_, BlastpOracle::library_;
std::vector<BlastHsp> BlastpOracle::hsps_;
SearchStats BlastpOracle::stats_;
HitTable BlastpOracle::ours_;
std::vector<std::vector<std::string>> BlastpOracle::blast6_;

TEST_F(BlastpOracle, Blast6ColumnsEqualBlastpsWhereItFoundTheOptimum) {
  ASSERT_GT(hsps_.size(), 5000u);
  ASSERT_EQ(blast6_.size(), ours_.hits.size());
  std::map<std::pair<uint32_t, uint32_t>, size_t> our_row;  // (query, target) -> hit index
  for (size_t i = 0; i < ours_.hits.size(); ++i) our_row[{ours_.hits[i].query, ours_.hits[i].target}] = i;
  // blastp's best HSP of each pair (several HSPs may share its score: keep the one like ours).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const BlastHsp*>> best;
  for (const BlastHsp& h : hsps_) {
    auto& b = best[{h.query, h.subject}];
    if (!b.empty() && h.score < b.front()->score) continue;
    if (!b.empty() && h.score > b.front()->score) b.clear();
    b.push_back(&h);
  }
  size_t optimal = 0, identical = 0, ties = 0;
  for (const auto& [pair, candidates] : best) {
    const auto row = our_row.find(pair);
    ASSERT_NE(row, our_row.end()) << "blastp aligned q" << pair.first << " s" << pair.second << ", we did not";
    const Hit& ours = ours_.hits[row->second];
    const int32_t score = candidates.front()->score;
    ASSERT_LE(score, ours.aln.score) << "blastp beat the Smith-Waterman optimum: q" << pair.first << " s"
                                     << pair.second;
    if (score < ours.aln.score) continue;  // blastp's heuristics stopped below the optimum
    ++optimal;
    const SeqView q = queries_.view(pair.first), t = library_.view(pair.second);
    const auto [qs, ts] = gapped_strings(ours.aln, q, t);
    const BlastHsp* same = nullptr;
    for (const BlastHsp* h : candidates)
      if (h->qseq == qs && h->sseq == ts && h->qstart == ours.aln.qstart && h->sstart == ours.aln.tstart) same = h;
    std::vector<std::string> mine = blast6_[row->second];
    ASSERT_EQ(mine.size(), 12u);
    if (same) {
      ++identical;
      std::vector<std::string> theirs = same->columns;
      mine[10] = theirs[10] = "(E-value not compared)";
      EXPECT_EQ(mine, theirs) << "q" << pair.first << " s" << pair.second;
    } else {
      ++ties;
      const BlastHsp& h = *candidates.front();
      EXPECT_EQ(rescore_cigar(from_gapped(h), q, t, load_matrix("BLOSUM62"), {11, 1}), score)
          << "q" << pair.first << " s" << pair.second << ": blastp's alignment does not re-score to its score";
      EXPECT_EQ(mine[11], h.columns[11]) << "bit score column, q" << pair.first << " s" << pair.second;
    }
  }
  EXPECT_GT(identical, optimal / 2);
  std::cout << "[ blastp   ] " << best.size() << " pairs aligned by both; blastp at the optimum in " << optimal
            << ": identical blast6 lines (E-value aside) " << identical << ", equally scored other alignments "
            << ties << "\n";
}

TEST_F(BlastpOracle, BitScoresAndEvaluesFollowBlastpsLambdaAndK) {
  ASSERT_EQ(stats_.lambda, 0.267);  // BLOSUM62 11/1's gapped values, as blastp reports them
  ASSERT_EQ(stats_.K, 0.041);
  ASSERT_EQ(stats_.db_length, double(library_.total_residues()));
  ASSERT_EQ(stats_.query_length.size(), queries_.size());
  // blastp's bit score for a raw score is ours for that score: every HSP it reports.
  size_t blast_checked = 0;
  Differences differ;
  for (const BlastHsp& h : hsps_) {
    EXPECT_NEAR(h.bits, bits_of(stats_, h.score), 5e-6 * h.bits) << "blastp's bits for raw score " << h.score;
    differ.note(format_blast_bits(bits_of(stats_, h.score)), h.columns[11]);
    ++blast_checked;
  }
  EXPECT_EQ(differ.text, "") << "bit score columns for the same raw score, ours vs blastp's";
  // Ours: bits and E-value from blastp's Lambda, K and lengths, computed here.
  for (const Hit& h : ours_.hits) {
    const double want_e = stats_.K * stats_.query_length.at(h.query) * stats_.db_length *
                          std::exp(-stats_.lambda * h.aln.score);
    EXPECT_NEAR(h.bits, bits_of(stats_, h.aln.score), 1e-9) << "q" << h.query << " s" << h.target;
    EXPECT_NEAR(h.evalue, want_e, 1e-12 * want_e) << "q" << h.query << " s" << h.target;
  }
  std::cout << "[ blastp   ] bits checked on " << blast_checked << " blastp HSPs and " << ours_.hits.size()
            << " of our hits; E-values on " << ours_.hits.size() << " of ours\n";
}

TEST_F(BlastpOracle, EvalueAndBitsColumnsFormatLikeBlastp) {
  size_t checked = 0, below_ten = 0;
  Differences evalues, bits;
  for (const BlastHsp& h : hsps_) {
    below_ten += h.bits < 10;
    if (!formats_as(format_blast_evalue, h.evalue, h.columns[10]))
      evalues.note(format_blast_evalue(h.evalue), h.columns[10]);
    if (!formats_as(format_blast_bits, h.bits, h.columns[11])) bits.note(format_blast_bits(h.bits), h.columns[11]);
    ++checked;
  }
  EXPECT_EQ(evalues.text, "") << "E-value columns, ours vs blastp's, for blastp's unrounded values";
  EXPECT_EQ(bits.text, "") << "bit score columns, ours vs blastp's, for blastp's unrounded values";
  EXPECT_GT(below_ten, 0u) << "no bit score below 10 (printed with a leading space) was checked";
  std::cout << "[ blastp   ] E-value and bit score columns formatted as blastp on " << checked << " HSPs ("
            << below_ten << " with bits below 10)\n";
}

// Bit scores of the magnitudes blastp prints differently beyond those of the database run
// (up to 99.9 with one decimal, integers up to 99999, then exponent notation):
// self-alignments of random sequences of growing length, blastp -subject.
TEST(BlastpBits, BitScoreColumnAtEveryMagnitude) {
  // The gapped Lambda and K blastp reports (asserted in BitScoresAndEvaluesFollowBlastpsLambdaAndK).
  const SearchStats blosum62_11_1{0.267, 0.041, 0, {}};
  const std::string dir = test::temp_dir();
  std::mt19937 rng(7);
  const std::string amino = "ACDEFGHIKLMNPQRSTVWY";
  size_t checked = 0;
  for (int length : {40, 300, 6000, 50000}) {
    std::string s;
    for (int k = 0; k < length; ++k) s += amino[rng() % amino.size()];
    const std::string fa = dir + "/self" + std::to_string(length) + ".fa";
    std::ofstream(fa) << ">self\n" << s << "\n";
    std::istringstream out(run_ok("blastp -query " + fa + " -subject " + fa + " -matrix BLOSUM62 -gapopen 11 " +
                                  "-gapextend 1 -comp_based_stats 0 -seg no -outfmt '6 bitscore score'"));
    for (std::string line; std::getline(out, line);) {
      const auto f = split_tabs(line);
      ASSERT_EQ(f.size(), 2u) << line;
      EXPECT_EQ(format_blast_bits(bits_of(blosum62_11_1, std::stoi(f[1]))), f[0]) << "raw score " << f[1];
      ++checked;
    }
  }
  EXPECT_GE(checked, 4u);
}

}  // namespace
}  // namespace hpc
