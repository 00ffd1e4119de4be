// Regressions for inputs found by the libFuzzer targets (tests/fuzz/), and the in-memory
// FASTA entry point those targets use.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io/fasta.hpp"
#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;
using hpc::test::data_path;

namespace {

std::string globins_text() {
  std::ifstream in(data_path("hmm/globins4.hmm"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Expects parse_hmm_text to throw an InputError at `line` whose message contains `what`.
void expect_hmm_error(const std::string& text, long line, const std::string& what) {
  try {
    parse_hmm_text(text, "fuzz.hmm");
    ADD_FAILURE() << "no error; expected line " << line << ": " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

}  // namespace

// Fuzzer crash: a blank line in the model body made the node loop read w[0] of an empty
// word list (undefined behaviour; UBSan: reference binding to null pointer).
TEST(FuzzRegression, BlankLineInHmmBodyIsAnError) {
  std::string g = globins_text();
  // Line 23 is node 1's insert-emission line: put a blank line before it, and before node 1.
  const size_t node1 = g.find("\n      1   1.70038");
  ASSERT_NE(node1, std::string::npos);
  expect_hmm_error(std::string(g).insert(node1 + 1, "\n"), 22, "blank line inside an HMM body");
  const size_t insert1 = g.find('\n', node1 + 1);
  expect_hmm_error(std::string(g).insert(insert1 + 1, "   \n"), 23, "blank line inside an HMM body");
}

// A tiny file claiming a huge LENG fails before allocating LENG+1 nodes.
TEST(FuzzRegression, HugeLengWithShortBodyFailsFast) {
  std::string g = globins_text();
  const size_t p = g.find("LENG  149");
  ASSERT_NE(p, std::string::npos);
  g.replace(p, 9, "LENG  1000000");
  try {
    parse_hmm_text(g, "fuzz.hmm");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("LENG says 1000000"), std::string::npos) << e.what();
  }
}

TEST(FuzzRegression, FastaFromMemoryMatchesTheFileReader) {
  const std::string text = ">a first\nACDE\nFG*\n>b\nuw\n";
  FastaReport report;
  const SequenceSet s = parse_fasta_text(text.data(), text.size(), "mem.fa", &report);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.ids[0], "a");
  EXPECT_EQ(s.length(0), 6u);  // the trailing '*' stop marker is dropped
  EXPECT_EQ(s.length(1), 2u);
  EXPECT_EQ(report.rare_letters, 1u);
  try {
    parse_fasta_text("x\n", 2, "mem.fa");
    FAIL() << "accepted text before the header";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mem.fa");
    EXPECT_EQ(e.line(), 1);
  }
}
