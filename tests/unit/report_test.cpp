// src/report: custom BLAST columns, aligned rows from a CIGAR, the pairwise display. The
// expected strings are worked out by hand from the sequences below (BLOSUM62).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "io/matrix.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/report/aligned_pair.hpp"
#include "src/report/fasta_descriptions.hpp"
#include "src/report/hit_columns.hpp"
#include "src/report/pairwise_text.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;

SequenceSet sequences(const std::vector<std::pair<std::string, std::string>>& records) {
  SequenceSet s;
  for (const auto& [id, letters] : records) {
    std::vector<uint8_t> codes;
    for (char c : letters) codes.push_back(encode_residue(c));
    s.add(id, codes.data(), codes.size());
  }
  return s;
}

// q1 MKVLAT (6) against t1 AMKILT (6): q1..6 / t2..6, M=M K=K V/I L=L A/- T=T.
struct Example {
  SequenceSet queries = sequences({{"q1", "MKVLAT"}});
  SequenceSet targets = sequences({{"t0", "WWWW"}, {"t1", "AMKILT"}});
  ScoreMatrix blosum62 = load_matrix("BLOSUM62");
  HitTable table;
  Example() {
    table.query_ids = queries.ids;
    table.target_ids = targets.ids;
    table.query_lengths = {6};
    table.target_lengths = {4, 6};
    Hit h;
    h.query = 0;
    h.target = 1;
    h.bits = 25.06;
    h.evalue = 1.2;
    h.aln = {30, 1, 6, 2, 6, "2=1X1=1I1="};
    table.hits = {h};
  }
  std::string print(const std::string& format) {
    std::ostringstream out;
    print_hit_columns(*parse_hit_columns(format), {table, &queries, &targets, &blosum62}, out);
    return out.str();
  }
};

TEST(AlignedPair, RowsFollowTheCigarWithGaps) {
  Example e;
  const AlignedPair p = aligned_pair(e.table.hits[0].aln, e.queries.view(0), e.targets.view(1), "q1/t1");
  EXPECT_EQ(p.query, "MKVLAT");
  EXPECT_EQ(p.target, "MKIL-T");
}

TEST(AlignedPair, ACigarThatDoesNotFitTheSequencesIsAnError) {
  Example e;
  // Against t0 (WWWW) the first '=' compares M with W: not the sequences the run aligned.
  EXPECT_NE(error_of([&] { aligned_pair(e.table.hits[0].aln, e.queries.view(0), e.targets.view(0), "q1/t0"); })
                .find("does not fit the sequences"),
            std::string::npos);
}

TEST(HitColumns, CustomBlastColumns) {
  Example e;
  // 6 columns, 4 identical, 1 mismatch (V/I scores +3: positive), 1 gap opening of 1.
  EXPECT_EQ(e.print("6 qseqid sseqid pident nident length mismatch positive gapopen gaps ppos qstart qend sstart send "
                    "evalue bitscore score qlen slen qcovs qcovhsp qseq sseq cigar"),
            "q1\tt1\t66.667\t4\t6\t1\t5\t1\t1\t83.33\t1\t6\t2\t6\t1.2\t25.1\t30\t6\t6\t100\t100\tMKVLAT\tMKIL-T\t2=1X1=1I1=\n");
}

TEST(HitColumns, MmseqsNamesAndFractions) {
  Example e;
  EXPECT_EQ(e.print("query,target,fident,alnlen,tstart,tend,raw,tlen,qcov,qaln,taln"),
            "q1\tt1\t0.667\t6\t2\t6\t30\t6\t1.000\tMKVLAT\tMKIL-T\n");
}

TEST(HitColumns, TsvHasAHeaderAndPercentIdentity) {
  Example e;
  EXPECT_EQ(e.print("tsv"),
            "qseqid\tsseqid\tscore\tbitscore\tevalue\tpident\tqstart\tqend\tsstart\tsend\tcigar\n"
            "q1\tt1\t30\t25.059999999999999\t1.2\t66.666666666666671\t1\t6\t2\t6\t2=1X1=1I1=\n");
}

TEST(HitColumns, AbsentStatisticsAndAlignmentsPrintNA) {
  Example e;
  e.table.hits[0].bits = e.table.hits[0].evalue = std::nan("");  // global mode: no statistics
  EXPECT_EQ(e.print("blast6"), "q1\tt1\t66.667\t6\t1\t1\t1\t6\t2\t6\tN/A\tN/A\n");
  e.table.hits[0].aln = {30, 0, 0, 0, 0, ""};  // score-only
  EXPECT_EQ(e.print("6 qseqid score qstart qlen qseq"), "q1\t30\tN/A\t6\tN/A\n");
}

TEST(HitColumns, UnknownColumnsAndOtherFormats) {
  EXPECT_NE(error_of([] { parse_hit_columns("6 qseqid staxids"); }).find("unknown output column 'staxids'"),
            std::string::npos);
  EXPECT_FALSE(parse_hit_columns("pairwise").has_value());
  EXPECT_FALSE(parse_hit_columns("tblout").has_value());
  EXPECT_EQ(parse_hit_columns("6")->columns.size(), 12u);
}

// Title columns print the header lines' texts, also for a pair without an alignment (not N/A).
TEST(HitColumns, TitlesFromTheHeaderLines) {
  Example e;
  const std::vector<std::string> qh = {"q1 query\tone"}, th = {"t0", "t1\tsecond\x01t9 merged\r"};
  const auto print = [&](const std::string& format) {
    std::ostringstream out;
    HitSource src{e.table, &e.queries, &e.targets, &e.blosum62, &qh, &th};
    print_hit_columns(*parse_hit_columns(format), src, out);
    return out.str();
  };
  EXPECT_EQ(print("6 sseqid stitle salltitles"), "t1\tt1   second t9 merged\tt1   second t9 merged\n");
  EXPECT_EQ(print("query,target,qheader,theader"), "q1\tt1\tq1 query\tone\tt1 second\x01t9 merged\r\n");
  e.table.hits[0].aln = {30, 0, 0, 0, 0, ""};  // score-only
  EXPECT_EQ(print("6 qstart stitle"), "N/A\tt1   second t9 merged\n");
  const HitColumns f = *parse_hit_columns("6 qseqid stitle");
  EXPECT_TRUE(f.needs_target_headers());
  EXPECT_FALSE(f.needs_query_headers());
  EXPECT_FALSE(f.needs_sequences());
  EXPECT_TRUE(parse_hit_columns("qheader,target")->needs_query_headers());
  EXPECT_FALSE(parse_hit_columns("qheader,target")->needs_target_headers());
  // Without the header lines it is the caller's mistake; qheader/theader are MMseqs2's names only.
  std::ostringstream out;
  EXPECT_NE(error_of([&] { print_hit_columns(f, {e.table}, out); }).find("need the header lines"), std::string::npos);
  EXPECT_NE(error_of([] { parse_hit_columns("6 qseqid theader"); }).find("unknown output column 'theader'"),
            std::string::npos);
}

// blastp 2.12 printed qcovs 99 for 458 of 460 query residues (tests/scripts/cli_blast_columns.sh).
TEST(HitColumns, BlastPercentRoundsButReaches100OnlyWhenWhole) {
  EXPECT_EQ(blast_percent(458, 460), 99);
  EXPECT_EQ(blast_percent(460, 460), 100);
  EXPECT_EQ(blast_percent(2, 3), 67);
  EXPECT_EQ(blast_percent(1, 3), 33);
}

TEST(Pairwise, BlastLikeBlocks) {
  Example e;
  std::ostringstream out;
  print_pairwise({e.table, &e.queries, &e.targets, &e.blosum62}, out);
  EXPECT_EQ(out.str(),
            "Query= q1  Length=6\n\n"
            ">t1  Length=6\n"
            " Score = 25.1 bits (30), Expect = 1.2\n"
            " Identities = 4/6 (67%), Positives = 5/6 (83%), Gaps = 1/6 (17%)\n\n"
            "Query  1      MKVLAT  6\n"
            "              ||:| |\n"
            "Sbjct  2      MKIL-T  6\n\n");
}

// hmmsearch's "description of target": the header after the id, as easel reads it: also where
// blanks come between '>' and the id, with tabs inside, trailing blanks (kept), CRLF ends
// (dropped), a Ctrl-A or '\r' inside (the end: NCBI nr's merged deflines), and none at all.
TEST(FastaDescriptions, TextAfterTheIdAsHmmsearchShowsIt) {
  const std::string path = test::temp_path("descriptions.fa");
  std::ofstream(path, std::ios::binary) << ">   spaced_id  two  words \nMK\n>tabbed\tdesc\twith tabs\r\nMK\r\n"
                                        << ">bare\nMK\n>trailing   \nMK\n>crlf desc \t \r\nMK\n>blank_crlf \r\nMK\n"
                                        << ">nr first defline\x01WP_2.1 second one\nMK\n>cr first\rrest\nMK\n"
                                        << ">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606\nMK\n";
  const std::vector<std::string> want = {"two  words ", "desc\twith tabs", "", "", "desc \t ", "", "first defline",
                                         "first", "Hemoglobin subunit alpha OS=Homo sapiens OX=9606"};
  EXPECT_EQ(fasta_descriptions(path), want);
  test::write_gz_file(path + ".gz", ">  gz_id  gzipped one\nMK\n");
  EXPECT_EQ(fasta_descriptions(path + ".gz"), std::vector<std::string>{"gzipped one"});
}

// A pipe or device the run has read already gives none (hmmsearch -d /dev/stdin prints blank
// descriptions, as before); it is not opened again (no writer: opening it would wait).
TEST(FastaDescriptions, NoneFromAPipe) {
  const std::string fifo = test::temp_path("descriptions.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(fasta_descriptions(fifo), std::vector<std::string>{});
}

// makeblastdb 2.12 (no -parse_seqids) stores the whole line so; blastp's stitle shows it
// (tests/scripts/cli_titles.sh compares with blastp).
TEST(FastaHeaderLines, BlastTitles) {
  EXPECT_EQ(blast_title("sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606"),
            "sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606");
  EXPECT_EQ(blast_title("   spaced  two \t"), "   spaced  two    ");
  EXPECT_EQ(blast_title("t\ta\t\tx"), "t   a      x");
  EXPECT_EQ(blast_title("nr1 first\x01nr2 second"), "nr1 first nr2 second");
  EXPECT_EQ(blast_title("ctl a\x02" "b\x7f\vc caf\xc3\xa9"), "ctl a#b##c caf##");
  EXPECT_EQ(blast_title("cr first\rrest"), "cr first");
}

// MMseqs2's createdb: the id (kseq's first word), one blank, the rest after the id's delimiter.
TEST(FastaHeaderLines, MmseqsHeaders) {
  EXPECT_EQ(mmseqs_header("id  two\twords "), "id  two\twords ");
  EXPECT_EQ(mmseqs_header("id\tdesc\tmore"), "id desc\tmore");
  EXPECT_EQ(mmseqs_header("id\x01nr"), "id\x01nr");
  EXPECT_EQ(mmseqs_header("id "), "id");
  EXPECT_EQ(mmseqs_header("id"), "id");
  EXPECT_EQ(mmseqs_header("  lead rest"), "lead rest");
}

}  // namespace
}  // namespace hpc
