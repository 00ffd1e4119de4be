// HMMER3 model file reader: fields, formats (3/e, 3/f, gzip, concatenated) and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;
using hpc::test::data_path;

namespace {

std::string slurp_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Replaces the first occurrence of `from` in `text`.
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const size_t p = text.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  return text.replace(p, from.size(), to);
}

// Expects parse_hmm_text to throw an InputError at `line` whose message contains `what`.
void expect_error(const std::string& text, long line, const std::string& what) {
  try {
    parse_hmm_text(text, "bad.hmm");
    ADD_FAILURE() << "no error; expected line " << line << ": " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_EQ(e.file(), "bad.hmm");
  }
}

const std::string& globins() {
  static const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  return text;
}

}  // namespace

TEST(HmmFile, ReadsHeaderFieldsOfGlobins4) {
  const auto models = read_hmm_file(data_path("hmm/globins4.hmm"));
  ASSERT_EQ(models.size(), 1u);
  const HmmModel& m = models[0];
  EXPECT_EQ(m.format, "3/f");
  EXPECT_EQ(m.name, "globins4");
  EXPECT_EQ(m.length, 149);
  EXPECT_TRUE(m.has_cons);
  EXPECT_TRUE(m.has_map);
  EXPECT_FALSE(m.has_rf);
  EXPECT_EQ(m.nseq, 4);
  EXPECT_FLOAT_EQ(m.effn, 0.964844f);
  EXPECT_EQ(m.checksum, 2027839109ul);
  EXPECT_TRUE(m.has_stats);
  EXPECT_FLOAT_EQ(m.msv_mu, -9.9014f);
  EXPECT_FLOAT_EQ(m.msv_lambda, 0.70957f);
  EXPECT_FLOAT_EQ(m.vit_mu, -10.7224f);
  EXPECT_FLOAT_EQ(m.fwd_tau, -4.1637f);
  ASSERT_TRUE(m.has_compo);
  EXPECT_FLOAT_EQ(m.compo[0], std::exp(-2.36553f));
  // Node 1 match: A = 1.70038, V = 1.67328; MAP 9, consensus v.
  EXPECT_FLOAT_EQ(m.mat[1][0], std::exp(-1.70038f));
  EXPECT_FLOAT_EQ(m.mat[1][17], std::exp(-1.67328f));
  EXPECT_EQ(m.map[1], 9);
  EXPECT_EQ(m.consensus[1], 'v');
  // Node 0 transitions: d->d is '*' (probability 0); m->m = exp(-0.57544).
  EXPECT_EQ(m.t[0][kTDD], 0.0f);
  EXPECT_FLOAT_EQ(m.t[0][kTMM], std::exp(-0.57544f));
  // Emissions sum to ~1 at every node.
  for (int k = 1; k <= m.length; ++k) {
    float s = 0;
    for (float p : m.mat[k]) s += p;
    EXPECT_NEAR(s, 1.0f, 1e-3f) << k;
  }
}

TEST(HmmFile, ReadsGzipAndOlderFormat) {
  const auto m = read_hmm_file(data_path("hmm/20aa.hmm.gz"));
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].format, "3/e");
  EXPECT_EQ(m[0].name, "test");
  EXPECT_EQ(m[0].length, 20);
  EXPECT_TRUE(m[0].has_rf);
  EXPECT_EQ(m[0].rf[1], 'x');
  EXPECT_EQ(m[0].consensus[1], 'A');
}

TEST(HmmFile, ReadsConcatenatedModels) {
  const std::string text = globins() + slurp_text(data_path("hmm/fn3.hmm")) + "\n" + globins();
  const auto models = parse_hmm_text(text, "many.hmm");
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].name, "globins4");
  EXPECT_EQ(models[1].name, "fn3");
  EXPECT_EQ(models[1].length, 86);
  EXPECT_EQ(models[2].name, "globins4");
  EXPECT_GT(models[1].first_line, 1);
}

TEST(HmmFile, RejectsNucleicModels) {
  try {
    read_hmm_file(data_path("hmm/3box.hmm.gz"));
    FAIL() << "DNA model accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("protein models only"), std::string::npos) << e.what();
    EXPECT_EQ(e.line(), 5);
  }
}

TEST(HmmFile, ErrorsNameFileAndLine) {
  const std::string& g = globins();
  expect_error("", 0, "no HMM");
  expect_error("HMMER2.0 [2.3.2]\n", 1, "HMMER2");
  expect_error(edit(g, "HMMER3/f", "HMMER9/z"), 1, "expected a HMMER3/f header");
  expect_error(edit(g, "LENG  149", "LENG  abc"), 3, "invalid LENG");
  expect_error(edit(g, "ALPH  amino", "ALPH  DNA"), 4, "protein models only");
  expect_error(edit(g, "ALPH  amino", "ALPH  weird"), 4, "unknown alphabet");
  expect_error(edit(g, "MAP   yes", "MAP   maybe"), 9, "yes or no");
  expect_error(edit(g, "DATE ", "BOGUS "), 10, "unrecognized header tag");
  expect_error(edit(g, "STATS LOCAL VITERBI  -10.7224  0.70957\n", ""), 16, "missing one or more STATS");
  expect_error(edit(g, "STATS LOCAL MSV       -9.9014  0.70957", "STATS LOCAL MSV -9.9014"), 14, "too few fields");
  expect_error(edit(g, "STATS LOCAL MSV ", "STATS GLOBAL MSV "), 14, "expected LOCAL");
  expect_error(edit(g, "  COMPO   2.36553", "  COMPO   x.36553"), 19, "invalid COMPO line");
  // Node 1's match line is line 22; its insert line 23; transition line 24.
  expect_error(edit(g, "      1   1.70038", "      7   1.70038"), 22, "expected match line of node 1");
  expect_error(edit(g, "      1   1.70038", "      1   -1.70038"), 22, "cannot be negative");
  expect_error(edit(g, "0.03156  3.86736  4.58970  0.61958  0.77255  0.34406  1.23405",
                    "0.03156  3.86736  4.58970"), 24, "too few fields on node 1 transition line");
}

TEST(HmmFile, TruncatedAndMissingEnd) {
  const std::string& g = globins();
  const size_t end = g.rfind("//");
  // Without the closing //: error at the last line.
  const std::string no_end = g.substr(0, end);
  try {
    parse_hmm_text(no_end, "cut.hmm");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing //"), std::string::npos) << e.what();
    EXPECT_GT(e.line(), 400);
  }
  // LENG larger than the body: the // shows up where node 150 should be.
  try {
    parse_hmm_text(edit(g, "LENG  149", "LENG  150"), "long.hmm");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("LENG says 150"), std::string::npos) << e.what();
  }
  // Cut inside the header.
  try {
    parse_hmm_text(g.substr(0, g.find("STATS")), "head.hmm");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 13);
    EXPECT_NE(std::string(e.what()).find("no HMM line"), std::string::npos) << e.what();
  }
}

TEST(HmmFile, MissingFileIsAnError) {
  EXPECT_THROW(read_hmm_file("/nonexistent/x.hmm"), InputError);
}

// Four or more models are parsed on all cores: the same models and line numbers as one by
// one, and a broken model among them still gives the serial parse's first error.
TEST(HmmFile, ManyModelsParseAsOneByOne) {
  const std::string fn3 = slurp_text(data_path("hmm/fn3.hmm")), pk = slurp_text(data_path("hmm/Pkinase.hmm"));
  const std::vector<std::string> parts = {globins(), fn3, "\n", pk, globins(), fn3};
  std::string text;
  for (const auto& p : parts) text += p;
  const auto many = parse_hmm_text(text, "many.hmm");
  ASSERT_EQ(many.size(), 5u);
  long line = 1;
  size_t k = 0;
  for (const auto& p : parts) {
    if (p == "\n") {
      ++line;
      continue;
    }
    const auto one = parse_hmm_text(p, "one.hmm");
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(many[k].name, one[0].name);
    EXPECT_EQ(many[k].length, one[0].length);
    EXPECT_EQ(many[k].first_line, line) << many[k].name;
    EXPECT_TRUE(many[k].mat == one[0].mat && many[k].ins == one[0].ins && many[k].t == one[0].t) << many[k].name;
    EXPECT_EQ(many[k].msv_mu, one[0].msv_mu);
    line += long(std::count(p.begin(), p.end(), '\n'));
    ++k;
  }
  // The fourth model's LENG broken: the error names its line, as a serial parse does.
  const std::string broken = globins() + fn3 + pk + edit(globins(), "LENG  149", "LENG  abc") + fn3;
  const long at = 1 + long(std::count(broken.begin(), broken.begin() + broken.find("LENG  abc"), '\n'));
  expect_error(broken, at, "invalid LENG");
}
