// src/workloads/view.cpp: BLAST tabular formatting and `hpcalign view` on result files.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "io/database.hpp"
#include "src/core/error.hpp"
#include "src/report/hit_columns.hpp"
#include "src/workloads/view.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::error_of;
using test::temp_path;

void print_blast6(const HitTable& t, std::ostream& out) { print_hit_columns(*parse_hit_columns("blast6"), {t}, out); }

Hit make_hit(uint32_t q, uint32_t t, int32_t score, double bits, double evalue, uint32_t qs, uint32_t qe,
             uint32_t ts, uint32_t te, const std::string& cigar) {
  Hit h;
  h.query = q;
  h.target = t;
  h.bits = bits;
  h.evalue = evalue;
  h.aln = {score, qs, qe, ts, te, cigar};
  return h;
}

// Expected strings are what blastp 2.12.0+ prints for these values in -outfmt 6.
TEST(BlastFormat, EvalueFollowsBlastTabularRules) {
  EXPECT_EQ(format_blast_evalue(0.0), "0.0");
  EXPECT_EQ(format_blast_evalue(9.9e-181), "0.0");
  EXPECT_EQ(format_blast_evalue(6.73e-143), "6.73e-143");
  EXPECT_EQ(format_blast_evalue(2.3712e-105), "2.37e-105");
  EXPECT_EQ(format_blast_evalue(1.04e-31), "1.04e-31");
  EXPECT_EQ(format_blast_evalue(3e-4), "3.00e-04");
  EXPECT_EQ(format_blast_evalue(8.99e-4), "8.99e-04");
  EXPECT_EQ(format_blast_evalue(0.0009), "0.001");
  EXPECT_EQ(format_blast_evalue(0.0551), "0.055");
  EXPECT_EQ(format_blast_evalue(0.23), "0.23");
  EXPECT_EQ(format_blast_evalue(0.996), "1.00");
  EXPECT_EQ(format_blast_evalue(1.0), "1.0");
  EXPECT_EQ(format_blast_evalue(1.74), "1.7");
  EXPECT_EQ(format_blast_evalue(9.9), "9.9");
  EXPECT_EQ(format_blast_evalue(10.0), "10");
  EXPECT_EQ(format_blast_evalue(996.4), "996");
}

// Real blastp runs check both formatters on ~47,000 values: tests/oracle/blastp_oracle_test.cpp.
TEST(BlastFormat, BitScoreFollowsBlastTabularRules) {
  EXPECT_EQ(format_blast_bits(9.2), " 9.2");  // "%4.1lf": a leading space below 10
  EXPECT_EQ(format_blast_bits(12.34), "12.3");
  EXPECT_EQ(format_blast_bits(27.7), "27.7");
  EXPECT_EQ(format_blast_bits(99.3673), "99.4");
  EXPECT_EQ(format_blast_bits(99.9), "99.9");
  // Above 99.9 BLAST truncates to an integer (it casts to long): 100.52 -> 100, 638.65 -> 638.
  EXPECT_EQ(format_blast_bits(100.5229), "100");
  EXPECT_EQ(format_blast_bits(638.6467), "638");
  EXPECT_EQ(format_blast_bits(9999.0), "9999");
  EXPECT_EQ(format_blast_bits(13490.3), "13490");
  EXPECT_EQ(format_blast_bits(111800.4), "1.118e+05");
}

HitTable hand_built_table() {
  HitTable t;
  t.query_ids = {"q1", "q2"};
  t.target_ids = {"sp|P1|A", "t2", "t3"};
  t.hits = {
      make_hit(0, 0, 120, 51.234, 2.37e-105, 1, 8, 3, 10, "8="),
      make_hit(0, 2, 40, 100.52, 0.0005, 2, 9, 1, 8, "7=1X"),
      make_hit(1, 1, 30, 25.06, 1.2, 4, 14, 7, 17, "3=1X2=2I2=2D1="),
      make_hit(1, 0, 0, 0, 10, 0, 0, 0, 0, ""),
  };
  return t;
}

TEST(BlastFormat, LinesCarryCigarDerivedColumns) {
  std::ostringstream out;
  print_blast6(hand_built_table(), out);
  EXPECT_EQ(out.str(),
            "q1\tsp|P1|A\t100.000\t8\t0\t0\t1\t8\t3\t10\t2.37e-105\t51.2\n"
            "q1\tt3\t87.500\t8\t1\t0\t2\t9\t1\t8\t5.00e-04\t100\n"
            // 3=1X2=2I2=2D1=: 13 columns, 8 identical, 1 mismatch, 2 gap openings.
            "q2\tt2\t61.538\t13\t1\t2\t4\t14\t7\t17\t1.2\t25.1\n"
            // No alignment (a score-only pair): BLAST's N/A, not made-up coordinates.
            "q2\tsp|P1|A\tN/A\tN/A\tN/A\tN/A\tN/A\tN/A\tN/A\tN/A\t10\t 0.0\n");
}

TEST(BlastFormat, IndexOutsideTheIdListIsAnError) {
  HitTable t = hand_built_table();
  t.hits[1].target = 3;
  std::ostringstream out;
  EXPECT_NE(error_of([&] { print_blast6(t, out); }).find("hit refers to target 3 but the file lists 3"),
            std::string::npos);
}

SequenceSet ids_only(const std::vector<std::string>& ids) {
  SequenceSet s;
  const uint8_t a[1] = {0};
  for (const auto& id : ids) s.add(id, a, 1);
  return s;
}

// The result file's /queries and /targets: `t`'s ids (its rows are the test's to add).
void write_ids(ResultFile& rf, const HitTable& t) {
  rf.write_sequences("queries", ids_only(t.query_ids));
  rf.write_sequences("targets", ids_only(t.target_ids));
}

TEST(View, FinishedRunPrintsHitsWithoutWarning) {
  const std::string path = temp_path("done.h5");
  const HitTable t = hand_built_table();
  {
    ResultFile rf(path);
    write_ids(rf, t);
    rf.append_tile(0, t.hits);
    rf.finish(t.hits);
  }
  std::ostringstream out, err, want;
  EXPECT_EQ(run_view(path, "blast6", out, err), 0);
  print_blast6(t, want);
  EXPECT_EQ(out.str(), want.str());
  EXPECT_EQ(err.str(), "");
}

TEST(View, UnfinishedRunWarnsAndPrintsStagedRowsInHitOrder) {
  const std::string path = temp_path("unfinished.h5");
  const HitTable t = hand_built_table();
  {
    ResultFile rf(path);
    write_ids(rf, t);
    rf.append_tile(1, {t.hits[3], t.hits[1]});  // arrival order differs from hit order
    rf.append_tile(0, {t.hits[0]});
  }
  std::ostringstream out, err;
  EXPECT_EQ(run_view(path, "blast6", out, err), 0);
  EXPECT_EQ(err.str(), "warning: " + path + " is from an unfinished run\n");
  HitTable want_table = t;
  want_table.hits = {t.hits[0], t.hits[1], t.hits[3]};  // query, then score descending
  std::ostringstream want;
  print_blast6(want_table, want);
  EXPECT_EQ(out.str(), want.str());
}

// Title columns read the FASTA the request names (a makedb file keeps no titles) and check it
// holds the run's records.
TEST(View, TitlesComeFromTheFastaFile) {
  const std::string path = temp_path("titles.h5");
  const HitTable t = hand_built_table();
  {
    ResultFile rf(path);
    write_ids(rf, t);
    rf.finish(t.hits);
  }
  const std::string fasta = temp_path("titles.fa"), db = temp_path("titles_db.h5");
  std::ofstream(fasta) << ">sp|P1|A alpha\tone\nA\n>t2\nA\n>t3 three\nA\n";
  write_database(load_database(fasta), db);
  std::ostringstream out, err;
  EXPECT_EQ(run_view(ViewRequest{path, "6 qseqid stitle", "", fasta, ""}, out, err), 0);
  EXPECT_EQ(out.str(), "q1\tsp|P1|A alpha   one\nq1\tt3 three\nq2\tt2\nq2\tsp|P1|A alpha   one\n");
  EXPECT_EQ(error_of([&] { run_view(ViewRequest{path, "6 stitle", "", db, ""}, out, err); }),
            db + " is a makedb database, which keeps no titles: title columns need the target FASTA file it was "
                 "made from: pass -d FILE.fa");
  EXPECT_EQ(error_of([&] { run_view(ViewRequest{path, "qheader,target", "", fasta, ""}, out, err); }),
            "title columns need the query FASTA file; the result file names none: pass -q FILE.fa");
  const std::string other = temp_path("other.fa");
  std::ofstream(other) << ">sp|P1|A\nA\n>t2x\nA\n>t3\nA\n";
  EXPECT_EQ(error_of([&] { run_view(ViewRequest{path, "6 stitle", "", other, ""}, out, err); }),
            other + " does not hold the run's target sequences (record 2 is t2x, the run's is t2); pass the FASTA "
                    "file the run read with -d");
  EXPECT_EQ(error_of([&] { check_view_inputs("hits", ViewRequest{"", "6 stitle", "", db, ""}); }),
            db + " is a makedb database, which keeps no titles: title columns need the target FASTA file it was "
                 "made from: pass -d FILE.fa");
  EXPECT_NO_THROW(check_view_inputs("hits", ViewRequest{"", "6 stitle", "", fasta, ""}));
  EXPECT_NO_THROW(check_view_inputs("hits", ViewRequest{"", "6 qseqid sseq", "", db, ""}));
}

// Sequence and title columns together: each file read once gives both (an allvsall-like run names
// one file for both sides; a search two), and a file that is not the run's is refused once, with
// the title columns' message.
TEST(View, SequenceAndTitleColumnsFromOneRead) {
  const std::string fasta = temp_path("both.fa"), copy = temp_path("both_copy.fa.gz");
  const std::string text = ">a  first\tdesc\r\nMKV\r\n>b second\x01" "b2 merged\nMKIL\n";
  std::ofstream(fasta, std::ios::binary) << text;
  test::write_gz_file(copy, text);
  HitTable t;
  t.query_ids = t.target_ids = {"a", "b"};
  t.hits = {make_hit(0, 1, 12, 20.1, 0.5, 1, 3, 1, 3, "2=1X")};
  const std::string path = temp_path("both.h5");
  {
    ResultFile rf(path);
    const SequenceSet seqs = load_database(fasta).seqs;
    rf.write_sequences("queries", seqs);
    rf.write_sequences("targets", seqs);
    rf.finish(t.hits);
  }
  const std::string want = "a\tb\tMKV\tMKI\ta  first\tdesc\tb second\x01" "b2 merged\n";
  for (const std::string& target : {fasta, copy}) {
    std::ostringstream out, err;
    EXPECT_EQ(run_view(ViewRequest{path, "query,target,qaln,taln,qheader,theader", fasta, target, ""}, out, err), 0);
    EXPECT_EQ(out.str(), want);
    std::ostringstream blast;
    EXPECT_EQ(run_view(ViewRequest{path, "6 qseqid sseq stitle", fasta, target, ""}, blast, err), 0);
    EXPECT_EQ(blast.str(), "a\tMKI\tb second b2 merged\n");
  }
  const std::string other = temp_path("both_other.fa");
  std::ofstream(other) << ">a\nMKV\n>c\nMKIL\n";
  std::ostringstream out, err;
  EXPECT_EQ(error_of([&] { run_view(ViewRequest{path, "6 sseq stitle", fasta, other, ""}, out, err); }),
            other + " does not hold the run's target sequences (record 2 is c, the run's is b); pass the FASTA "
                    "file the run read with -d");
  std::ofstream(other) << ">a\nMKV\n>b\nMKILV\n";  // the ids, not the lengths
  EXPECT_EQ(error_of([&] { run_view(ViewRequest{path, "6 sseq stitle", fasta, other, ""}, out, err); }),
            other + " does not hold the run's target sequences (sequence 2 is b, the run's is b); pass the files "
                    "the run read with -d");
  EXPECT_EQ(out.str(), "");
}

TEST(View, UnknownFormatsAndNonResultFilesAreErrors) {
  const std::string path = temp_path("fmt.h5");
  ResultFile(path).finish({});
  std::ostringstream out, err;
  EXPECT_EQ(error_of([&] { run_view(path, "sam", out, err); }), "unknown output format 'sam' for hits (known: blast6, tsv, pairwise, \"6 COL ...\", "
            "\"COL,COL,...\"; tblout is for msv files)");

  const std::string fasta = test::data_path("queries3.fa");
  EXPECT_EQ(error_of([&] { run_view(fasta, "blast6", out, err); }),
            fasta + " is not an hpcalign result file (not HDF5)");

  const std::string db = temp_path("db.h5");
  write_database(load_database(fasta), db);
  EXPECT_EQ(error_of([&] { run_view(db, "blast6", out, err); }),
            db + " is an hpcalign database (from makedb), not a result file");
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace hpc
