// io/fasta.cpp: records, ids, residue mapping, gzip, and every input error with its line.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "io/fasta.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

std::string write_file(const std::string& name, const std::string& content) {
  static const std::string dir = test::temp_dir();
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

std::string write_gz(const std::string& name, const std::string& content) {
  const std::string path = write_file(name, "");
  test::write_gz_file(path, content);
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string residues_of(const SequenceSet& s, size_t i) { return decode(s.view(i).data, s.length(i)); }

// Reads `content` and returns the InputError it must raise.
InputError expect_input_error(const std::string& name, const std::string& content) {
  const std::string path = write_file(name, content);
  try {
    read_fasta(path);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return e;
  }
  ADD_FAILURE() << name << ": no InputError";
  return InputError(path, -1, "none");
}

TEST(Fasta, MultiLineAndSingleLineRecords) {
  const std::string path = write_file("mixed.fa", ">one first\nACDE\nFGHI\nK\n>two\nLMNPQRSTVWY\n>three\nAC\n");
  const SequenceSet s = read_fasta(path);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.ids, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_EQ(residues_of(s, 0), "ACDEFGHIK");
  EXPECT_EQ(residues_of(s, 1), "LMNPQRSTVWY");
  EXPECT_EQ(residues_of(s, 2), "AC");
  EXPECT_EQ(s.offsets, (std::vector<uint64_t>{0, 9, 20, 22}));
  EXPECT_EQ(s.total_residues(), 22u);
  EXPECT_EQ(s.source, path);
}

TEST(Fasta, IdIsFirstWordOfHeader) {
  const SequenceSet s = read_fasta(
      write_file("ids.fa", ">sp|P02232.2|LGB1_VICFA RecName: x\nA\n>  spaced\tdesc\nA\n>tab\tafter\nA\n>last"
                           "\r\nA\n"));
  EXPECT_EQ(s.ids, (std::vector<std::string>{"sp|P02232.2|LGB1_VICFA", "spaced", "tab", "last"}));
}

TEST(Fasta, LowerCaseIsFolded) {
  const SequenceSet s = read_fasta(write_file("lower.fa", ">a\nacdefghiklmnpqrstvwybzx\n"));
  EXPECT_EQ(residues_of(s, 0), "ACDEFGHIKLMNPQRSTVWYBZX");
}

TEST(Fasta, RareLettersScoreAsXAndAreCounted) {
  FastaReport report;
  const SequenceSet s = read_fasta(write_file("rare.fa", ">a\nAUOJ\n>b\nuoCj\n"), &report);
  EXPECT_EQ(residues_of(s, 0), "AXXX");
  EXPECT_EQ(residues_of(s, 1), "XXCX");
  EXPECT_EQ(report.rare_letters, 6u);
}

TEST(Fasta, TrailingStopIsDroppedInnerStopKept) {
  const SequenceSet s = read_fasta(write_file("stop.fa", ">a\nAC*DE*\n>b\nKL\n*\n>c\nM*\n*\n"));
  EXPECT_EQ(residues_of(s, 0), "AC*DE");
  EXPECT_EQ(residues_of(s, 1), "KL");
  EXPECT_EQ(residues_of(s, 2), "M*");  // only one stop marker is dropped
}

// HMMER's rules (msv): U/O/J kept as such, a final '*' kept (hmmsearch counts it in the
// length), '.', '_' and '~' read as '*', '-' still an error.
TEST(Fasta, HmmerRules) {
  FastaReport report;
  const SequenceSet s =
      read_fasta(write_file("hmmer.fa", ">a\nAuOJ*\n>b\nK._~L\n*\n"), &report, ResidueRules::kHmmer);
  EXPECT_EQ(residues_of(s, 0), "AUOJ*");
  EXPECT_EQ(residues_of(s, 1), "K***L*");
  EXPECT_EQ(report.rare_letters, 0u);
  EXPECT_THROW(read_fasta(write_file("gap.fa", ">a\nAC-D\n"), nullptr, ResidueRules::kHmmer), InputError);
  EXPECT_THROW(read_fasta(write_file("dot.fa", ">a\nAC.D\n")), InputError);  // BLAST's rules: no '.'
}

TEST(Fasta, CrlfBlankLinesAndInnerWhitespace) {
  const SequenceSet s =
      read_fasta(write_file("crlf.fa", "\r\n\n>a desc\r\nAC DE\r\n\r\n\tFG\r\n\n>b\r\nKL\r\n\r\n"));
  EXPECT_EQ(s.ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(residues_of(s, 0), "ACDEFG");
  EXPECT_EQ(residues_of(s, 1), "KL");
}

TEST(Fasta, LastLineWithoutNewline) {
  const SequenceSet s = read_fasta(write_file("nonl.fa", ">a\nACD"));
  EXPECT_EQ(residues_of(s, 0), "ACD");
}

TEST(Fasta, RealTestDataFiles) {
  const SequenceSet bali = read_fasta(test::data_path("balifam2000.fa"));
  EXPECT_EQ(bali.size(), 2000u);
  EXPECT_EQ(bali.total_residues(), 341439u);
  EXPECT_EQ(bali.offsets.size(), 2001u);
  EXPECT_EQ(bali.offsets.back(), 341439u);

  const SequenceSet q = read_fasta(test::data_path("queries3.fa"));
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.length(0), 144u);
  EXPECT_EQ(q.length(1), 375u);
  EXPECT_EQ(q.length(2), 729u);
  EXPECT_EQ(q.ids[0], "gi|122087146|sp|P02232.2|LGB1_VICFA");
  EXPECT_EQ(residues_of(q, 0).substr(0, 10), "MGFTEKQEAL");
}

TEST(Fasta, GzipEqualsPlain) {
  const std::string plain = test::data_path("balifam2000.fa");
  const std::string gz = write_gz("bali.fa.gz", slurp(plain));
  const SequenceSet a = read_fasta(plain), b = read_fasta(gz);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.residues, b.residues);
  EXPECT_EQ(b.source, gz);
}

TEST(Fasta, TruncatedGzipIsAnInputError) {
  const std::string full = slurp(write_gz("full.fa.gz", slurp(test::data_path("balifam2000.fa"))));
  ASSERT_GT(full.size(), 1000u);
  const InputError e = expect_input_error("cut.fa.gz", full.substr(0, full.size() / 2));
  EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
}

TEST(Fasta, CorruptGzipIsAnInputError) {
  std::string bytes = slurp(write_gz("ok.fa.gz", slurp(test::data_path("queries3.fa"))));
  for (size_t i = 20; i < bytes.size() - 8; i += 7) bytes[i] = char(bytes[i] ^ 0x5A);
  const InputError e = expect_input_error("bad.fa.gz", bytes);
  EXPECT_NE(std::string(e.what()).find("gzip"), std::string::npos) << e.what();
}

// Records bigger than the 1 MiB read block: headers and lines straddle block ends.
TEST(Fasta, RecordsSpanningReadBlocks) {
  std::mt19937 rng(7);
  std::string content, expect_all;
  std::vector<std::string> ids;
  for (int r = 0; r < 40; ++r) {
    ids.push_back("rec" + std::to_string(r) + std::string(r * 37 % 200, 'h'));
    content += ">" + ids.back() + " description\n";
    const size_t len = 1 + rng() % 200000;
    for (size_t i = 0; i < len; ++i) {
      const char c = "ACDEFGHIKLMNPQRSTVWY"[rng() % 20];
      content += c;
      expect_all += c;
      if (i % 61 == 60) content += '\n';
    }
    content += '\n';
  }
  ASSERT_GT(content.size(), 3u << 20);
  const SequenceSet s = read_fasta(write_file("big.fa", content));
  EXPECT_EQ(s.ids, ids);
  EXPECT_EQ(decode(s.residues.data(), s.residues.size()), expect_all);
  // An error far into the file still reports its line.
  const long lines = long(std::count(content.begin(), content.end(), '\n'));
  const InputError e = expect_input_error("big_bad.fa", content + ">tail\nAC-D\n");
  EXPECT_EQ(e.line(), lines + 2);
}

TEST(FastaErrors, MissingFileIsNamed) {
  const std::string path = test::temp_dir() + "/does_not_exist.fa";
  try {
    read_fasta(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(FastaErrors, EmptyFileHasNoSequences) {
  for (const char* content : {"", "\n\n  \r\n"}) {
    const InputError e = expect_input_error("empty.fa", content);
    EXPECT_NE(std::string(e.what()).find("no sequences"), std::string::npos) << e.what();
  }
}

TEST(FastaErrors, TextBeforeFirstHeader) {
  const InputError e = expect_input_error("pre.fa", "\nACDE\n>a\nAC\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(std::string(e.what()).find("before the first '>'"), std::string::npos) << e.what();
}

TEST(FastaErrors, HeaderWithEmptyId) {
  EXPECT_EQ(expect_input_error("noid.fa", ">a\nAC\n>\nAC\n").line(), 3);
  EXPECT_EQ(expect_input_error("noid2.fa", ">a\nAC\n\n>   \t\nAC\n").line(), 4);
  EXPECT_EQ(expect_input_error("noid3.fa", ">a\nAC\n>").line(), 3);
}

TEST(FastaErrors, RecordWithoutResiduesNamesItsHeaderLine) {
  EXPECT_EQ(expect_input_error("nores.fa", ">a\nAC\n>b\n>c\nAC\n").line(), 3);
  EXPECT_EQ(expect_input_error("nores_last.fa", ">a\nAC\n\n>b x\n\n").line(), 4);
  EXPECT_EQ(expect_input_error("only_stop.fa", ">a\n*\n").line(), 1);
}

TEST(FastaErrors, InvalidBytesNameLineAndCharacter) {
  struct Case {
    std::string content;
    long line;
    std::string shown;
  };
  const std::vector<Case> cases = {
      {">a\nACDE\nAC1D\n", 3, "'1'"},
      {">a\nAC\n>b\nAC-DE\n", 4, "'-'"},
      {">a\nAC.D\n", 2, "'.'"},
      {">a\nAC\x01" "D\n", 2, "0x01"},
      {">a\nAC\xC3\xA9\n", 2, "0xC3"},
  };
  for (const Case& c : cases) {
    const InputError e = expect_input_error("invalid.fa", c.content);
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.shown), std::string::npos) << e.what();
  }
}

// A byte-order mark is named as such (hmmsearch refuses the file too), not taken for binary data.
TEST(FastaErrors, ByteOrderMarkIsNamed) {
  const InputError e = expect_input_error("bom.fa", "\xEF\xBB\xBF>a\nAC\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_NE(std::string(e.what()).find("byte-order mark"), std::string::npos) << e.what();
}

// Files given for FASTA by mistake are named by their format (decompress or convert them first).
TEST(FastaErrors, OtherContainersAreNamed) {
  struct Case {
    std::string content, shown;
  };
  const std::vector<Case> cases = {
      {std::string("BZh91AY&SY\x01\x02", 12), "bzip2-compressed"},
      {std::string("\xFD" "7zXZ\0\0\x04", 8), "xz-compressed"},
      {std::string("\x28\xB5\x2F\xFD\x24\x00", 6), "zstd-compressed"},
      {std::string("PK\x03\x04\x14\0\0\0", 8), "zip archive"},
      {std::string("\x89HDF\r\n\x1a\n\0\0", 10), "HDF5 file"},
  };
  for (const Case& c : cases) {
    const InputError e = expect_input_error("container", c.content);
    EXPECT_EQ(e.line(), 1) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.shown), std::string::npos) << e.what();
  }
}

// Lines ending in CR alone read as one header holding the whole file: said so, not just "no residues".
TEST(FastaErrors, CarriageReturnOnlyLineEnds) {
  for (const std::string content : {">a desc\rMKVL\r>b\rMKV\r", ">a\rMKVL\r>b\rMKV\r\n"}) {
    const InputError e = expect_input_error("mac.fa", content);
    EXPECT_EQ(e.line(), 1) << e.what();
    EXPECT_NE(std::string(e.what()).find("CR alone"), std::string::npos) << e.what();
  }
  // A CRLF file is read as usual, and so is a record without residues after a CRLF header.
  EXPECT_EQ(read_fasta(write_file("crlf.fa", ">a desc\r\nMKVL\r\n")).length(0), 4u);
  const InputError e = expect_input_error("crlf_empty.fa", ">a desc\r\n>b\r\nMKV\r\n");
  EXPECT_EQ(std::string(e.what()).find("CR alone"), std::string::npos) << e.what();
}

// A record of a lone '*' (a translated stop codon) is empty once the marker is dropped: said so.
TEST(FastaErrors, RecordOfOnlyAStop) {
  const InputError e = expect_input_error("stop.fa", ">a\nMKV\n>orf2 translated\n*\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_NE(std::string(e.what()).find("only a '*'"), std::string::npos) << e.what();
}

// DNA/RNA records are read (as protein) and counted for the callers' warning; proteins, short
// nucleotide-like peptides, X runs and Gly/Ala-rich stretches are not counted.
TEST(FastaReport, CountsNucleotideLikeRecords) {
  FastaReport report;
  const SequenceSet s = read_fasta(write_file("nuc.fa",
                                              ">cds\nATGGCTAGCTAGCTAGGCTAGCTAGCATCGATCGA\n"
                                              ">rna\naugGCUAGCUAGCUAGGCUAGCUAGCAUCGAUCGANNNN\n"
                                              ">prot\nMKVLAAGIVGLLLAAQPAMAWHH\n>short\nACGTACGT\n"
                                              ">xrun\nXXXXXXXXXXXXXXXXXXXXXXXXXXXX\n>ala\nAAAAAAAAAAAAAAAAAAAAGGGGGGGGGGGG\n"),
                                   &report);
  EXPECT_EQ(s.size(), 6u);
  EXPECT_EQ(report.sequences, 6u);
  EXPECT_EQ(report.nucleotide_like, 2u);
  EXPECT_EQ(report.rare_letters, 8u);  // the RNA's U
}

// Reads `bytes` from a FIFO, which gives its bytes once (as `-q /dev/stdin` does).
SequenceSet read_from_fifo(const std::string& name, const std::string& bytes, std::vector<std::string>* header_lines,
                           bool residues = true) {
  const std::string path = test::temp_path(name);
  std::remove(path.c_str());  // a FIFO of an earlier call (opening it would wait for a reader)
  if (mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("cannot make the FIFO " + path);
  EXPECT_TRUE(is_read_once(path));
  std::thread writer([&] { std::ofstream(path, std::ios::binary) << bytes; });
  SequenceSet s;
  try {
    s = residues ? read_fasta(path, nullptr, ResidueRules::kBlast, header_lines) : read_fasta_headers(path, header_lines);
  } catch (...) {
    writer.join();
    throw;
  }
  writer.join();
  return s;
}

// One read gives the sequences and each record's header line (what title columns and hmmsearch's
// descriptions show): from a stream that can be read once, plain and gzip, the lines as they are
// but for their "\r\n" or "\n" end (blanks before the id, tabs, Ctrl-A, an inner '\r', a line
// longer than any read block); the sequences are those a read without the lines gives.
TEST(FastaHeaderLines, OneReadGivesSequencesAndHeaderLines) {
  const std::string long_title(100000, 'x');
  const std::string text = "\r\n>first  a\tb \r\nMK\r\n>  lead\x01nr\nMK\nMK\n>" + long_title +
                           "\nMK\n>cr\rmid\nMK\n\n>sp|P69905|HBA_HUMAN Hemoglobin alpha\nMKV";
  const std::vector<std::string> want_lines = {"first  a\tb ", "  lead\x01nr", long_title, "cr\rmid",
                                               "sp|P69905|HBA_HUMAN Hemoglobin alpha"};
  const std::string gz = write_gz("lines.fa.gz", text);
  for (const std::string& bytes : {text, slurp(gz)}) {
    std::vector<std::string> lines = {"left from before"};
    const SequenceSet s = read_from_fifo("lines.fifo", bytes, &lines);
    EXPECT_EQ(lines, want_lines);
    EXPECT_EQ(s.ids, (std::vector<std::string>{"first", "lead\x01nr", long_title, "cr", "sp|P69905|HBA_HUMAN"}));
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(residues_of(s, 1), "MKMK");
    EXPECT_EQ(residues_of(s, 4), "MKV");
    const SequenceSet alone = read_fasta(write_file("lines.fa", text));
    EXPECT_EQ(s.ids, alone.ids);
    EXPECT_EQ(s.offsets, alone.offsets);
    EXPECT_EQ(s.residues, alone.residues);
    // Title columns alone: the same ids and lines, no residues kept.
    std::vector<std::string> only_lines;
    const SequenceSet ids = read_from_fifo("lines_only.fifo", bytes, &only_lines, false);
    EXPECT_EQ(only_lines, want_lines);
    EXPECT_EQ(ids.ids, s.ids);
    EXPECT_EQ(ids.offsets, std::vector<uint64_t>(6, 0));
    EXPECT_TRUE(ids.residues.empty());
  }
  EXPECT_FALSE(is_read_once(gz));
  // Asking for the lines, with or without the residues, changes no refusal: a byte-order mark, a
  // record without residues or of a lone stop marker, an invalid residue.
  for (const std::string& bad : {std::string("\xEF\xBB\xBF>a\nMK\n"), std::string(">a\nMK\n>cr\rmid\n>b\nMK\n"),
                                 std::string(">a\nMK\n>s\n*\n"), std::string(">a\nMK\n>b\nM1K\n")}) {
    const std::string path = write_file("bad_lines.fa", bad);
    std::vector<std::string> lines;
    EXPECT_EQ(test::error_of([&] { read_fasta(path, nullptr, ResidueRules::kBlast, &lines); }),
              test::error_of([&] { read_fasta(path); }));
    EXPECT_EQ(test::error_of([&] { read_fasta_headers(path, &lines); }), test::error_of([&] { read_fasta(path); }));
    EXPECT_NE(test::error_of([&] { read_fasta(path); }), "(no error)");
  }
}

// A file the run has read and checked already (hmmsearch's descriptions at the end): its residue
// lines are passed over unread, so the header lines and ids equal the checked read's, and an
// invalid residue, which only the checked read refuses, goes unseen.
TEST(FastaHeaderLines, SkippedResidueLinesGiveTheCheckedReadsLines) {
  const std::string text = "\r\n>first  a\tb \r\nMK\r\n>  lead\x01nr\nMK\nMK\n\n>last desc\nMKV";
  const std::string path = write_gz("skipped.fa.gz", text);
  std::vector<std::string> checked, skipped;
  const SequenceSet a = read_fasta_headers(path, &checked);
  const SequenceSet b = read_fasta_headers(path, &skipped, ResidueRules::kHmmer, ResidueLines::kSkipped);
  EXPECT_EQ(skipped, (std::vector<std::string>{"first  a\tb ", "  lead\x01nr", "last desc"}));
  EXPECT_EQ(skipped, checked);
  EXPECT_EQ(b.ids, a.ids);
  EXPECT_EQ(b.offsets, std::vector<uint64_t>(4, 0));
  const std::string bad = write_file("skipped_bad.fa", ">a x\nMK\n>b y\nM1K\n");
  EXPECT_NE(test::error_of([&] { read_fasta_headers(bad, &checked); }), "(no error)");
  EXPECT_EQ(test::error_of([&] { read_fasta_headers(bad, &skipped, ResidueRules::kHmmer, ResidueLines::kSkipped); }),
            "(no error)");
  EXPECT_EQ(skipped, (std::vector<std::string>{"a x", "b y"}));
}

TEST(FastaErrors, BinaryInput) {
  const std::string elf("\x7f" "ELF\x02\x01\x01\0\0\0\0", 12);
  EXPECT_NE(std::string(expect_input_error("bin1", elf).what()).find("binary"), std::string::npos);
  const std::string nul_in_seq(">a\nAC\0D\n", 8);
  const InputError e = expect_input_error("bin2", nul_in_seq);
  EXPECT_EQ(e.line(), 2);
  EXPECT_NE(std::string(e.what()).find("binary"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace hpc
