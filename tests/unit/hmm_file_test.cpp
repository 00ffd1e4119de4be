// HMMER3 model file reader: fields, formats (3/e, 3/f, gzip, concatenated) and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "io/checkpoint.hpp"
#include "io/hmm_file.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

using namespace hpc;
using hpc::test::data_path;
using hpc::test::have_program;
using hpc::test::run_command;
using hpc::test::temp_path;

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
  // Node 1 match: A = 1.70038, V = 1.67328; consensus v (the MAP column is checked, not kept).
  EXPECT_FLOAT_EQ(m.mat[1][0], std::exp(-1.70038f));
  EXPECT_FLOAT_EQ(m.mat[1][17], std::exp(-1.67328f));
  ASSERT_EQ(m.consensus.size(), 150u);
  EXPECT_EQ(m.consensus.substr(0, 4), " vvL");
  EXPECT_TRUE(m.rf.empty() && m.cs.empty());  // RF no, CS no
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

// The node line of node k in a model's text: its 20 match emissions as probabilities,
// read from the text independently of the parser.
std::array<float, kHmmAlphabet> match_line(const std::string& text, size_t from, int k) {
  std::istringstream in(text.substr(from));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != std::to_string(k)) continue;
    std::array<float, kHmmAlphabet> p{};
    for (float& x : p) {
      std::string v;
      words >> v;
      x = v == "*" ? 0.0f : std::exp(-std::stof(v));
    }
    return p;
  }
  ADD_FAILURE() << "no node " << k;
  return {};
}

void expect_cutoff(const HmmCutoff& c, float seq, float dom, const char* what) {
  EXPECT_TRUE(c.set) << what;
  EXPECT_FLOAT_EQ(c.seq, seq) << what;
  EXPECT_FLOAT_EQ(c.dom, dom) << what;
}

// Name, ACC, DESC, LENG and the GA, TC, NC cut-offs (sequence, domain) of a Pfam model.
void expect_pfam_header(const HmmModel& m, const std::string& name, const std::string& acc, const std::string& desc,
                        int length, const std::array<float, 6>& cut) {
  EXPECT_EQ(m.name, name);
  EXPECT_EQ(m.accession, acc);
  EXPECT_EQ(m.description, desc);
  EXPECT_EQ(m.length, length);
  expect_cutoff(m.ga, cut[0], cut[1], "GA");
  expect_cutoff(m.tc, cut[2], cut[3], "TC");
  expect_cutoff(m.nc, cut[4], cut[5], "NC");
}

// hmmsearch 3.3.2 reads `path` (exit status 0); a missing hmmsearch fails the test.
void expect_hmmsearch_reads(const std::string& path, bool accepted = true) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  int status = 0;
  const std::string out = run_command("hmmsearch -o /dev/null " + path + " " + data_path("queries3.fa") + " 2>&1", &status);
  EXPECT_EQ(status == 0, accepted) << path << ": " << out;
}

// numbers_crc (the resume's fingerprint of the models) is the CRC-32 of the numbers as they were
// held before the insert emissions were dropped: mat, the insert emissions (read here from the
// text, apart from the parser), t; an insert emission edited changes it and nothing else.
TEST(HmmFile, NumbersCrcCountsTheInsertEmissions) {
  const HmmModel m = parse_hmm_text(globins(), "g.hmm").at(0);
  std::istringstream in(globins());
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  size_t compo = 0;
  while (lines.at(compo).find("COMPO") == std::string::npos) ++compo;
  std::vector<std::array<float, kHmmAlphabet>> ins(size_t(m.length) + 1);
  for (size_t k = 0; k < ins.size(); ++k) {  // node k's insert line: after COMPO, three lines a node
    std::istringstream words(lines.at(compo + 1 + 3 * k));
    for (float& x : ins[k]) {
      std::string v;
      words >> v;
      x = v == "*" ? 0.0f : std::exp(-float(std::strtod(v.c_str(), nullptr)));
    }
  }
  EXPECT_EQ(m.numbers_crc, checkpoint::Crc32().add(m.mat).add(ins).add(m.t).value());
  const HmmModel e = parse_hmm_text(edit(globins(), "2.68618  4.42225", "2.68618  4.42226"), "e.hmm").at(0);
  EXPECT_TRUE(e.mat == m.mat && e.t == m.t);
  EXPECT_NE(e.numbers_crc, m.numbers_crc);
}

// Pfam's release files: ACC, DESC, cut-offs written "GA    25.10 25.10;", BM and SM lines
// (tests/data/hmm/make_pfam_style.sh made them with hmmbuild from the .sto files there).
TEST(HmmFile, ReadsPfamReleaseHeaders) {
  for (const char* file : {"hmm/pfam_style.hmm", "hmm/pfam_style_3e.hmm"}) {
    SCOPED_TRACE(file);
    const std::string path = data_path(file), text = slurp_text(path);
    const auto m = read_hmm_file(path);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].format, std::string(file).find("3e") != std::string::npos ? "3/e" : "3/f");
    expect_pfam_header(m[0], "globins4", "PF00042.25", "Globin", 149, {25.10f, 25.10f, 25.20f, 25.30f, 24.90f, 24.80f});
    expect_pfam_header(m[1], "XYPPX", "PF02162.8", "XYPPX repeat", 5, {14.30f, 0.70f, 14.40f, 0.70f, 14.20f, 4.00f});
    EXPECT_EQ(m[1].first_line, long(std::count(text.begin(), text.begin() + text.find("HMMER3", 1), '\n')) + 1);
    for (int k : {1, 77, 149}) EXPECT_EQ(m[0].mat[k], match_line(text, 0, k)) << "globins4 node " << k;
    for (int k : {1, 5}) EXPECT_EQ(m[1].mat[k], match_line(text, text.find("HMMER3", 1), k)) << "XYPPX node " << k;
    EXPECT_EQ(m[0].consensus[1], 'v');
    EXPECT_TRUE(m[0].rf.empty());  // RF no: the column's '-' is not kept
    expect_hmmsearch_reads(path);
  }
  // No cut-off lines: none set.
  const auto plain = read_hmm_file(data_path("hmm/globins4.hmm"));
  EXPECT_FALSE(plain[0].ga.set || plain[0].tc.set || plain[0].nc.set);
}

TEST(HmmFile, CutoffLineErrors) {
  const std::string text = slurp_text(data_path("hmm/pfam_style.hmm"));
  expect_error(edit(text, "GA    25.10 25.10;", "GA    25.10;"), 16, "expected two cut-offs");
  expect_error(edit(text, "GA    25.10 25.10;", "GA    25.10 ;"), 16, "expected two cut-offs");
  expect_error(edit(text, "TC    25.20 25.30;", "TC    25.20 x;"), 17, "invalid TC cut-off 'x'");
  expect_error(edit(text, "NC    24.90 24.80;", "NC    24.90 24.80;;"), 18, "invalid NC cut-off");
  // A separate ';' and no ';' are both read.
  const auto m = parse_hmm_text(edit(edit(text, "GA    25.10 25.10;", "GA 25.10 25.10 ;"), "TC    25.20 25.30;", "TC 25.2 25.3"), "x");
  expect_cutoff(m[0].ga, 25.10f, 25.10f, "GA");
  expect_cutoff(m[0].tc, 25.2f, 25.3f, "TC");
}

// One model in each HMMER3 text format (hmmconvert --outfmt 3/a .. 3/e, and hmmbuild's 3/f):
// the same probabilities everywhere; the fields each format has; hmmsearch reads them all.
TEST(HmmFile, ReadsEveryHmmer3Format) {
  const HmmModel f = read_hmm_file(data_path("hmm/XYPPX_3f.hmm")).at(0);
  EXPECT_TRUE(f.has_cons && f.has_map);
  EXPECT_EQ(f.consensus.substr(1), "GYPPq");  // the CONS column of nodes 1..5
  EXPECT_FLOAT_EQ(f.msv_mu, -5.1112f);
  EXPECT_FLOAT_EQ(f.vit_mu, -4.7526f);
  for (const char v : {'a', 'b', 'c', 'd', 'e', 'f'}) {
    const std::string path = data_path(std::string("hmm/XYPPX_3") + v + ".hmm");
    SCOPED_TRACE(path);
    const HmmModel m = read_hmm_file(path).at(0);
    EXPECT_EQ(m.format, std::string("3/") + v);
    EXPECT_EQ(m.length, 5);
    EXPECT_TRUE(m.mat == f.mat && m.t == f.t && m.compo == f.compo);
    EXPECT_EQ(m.numbers_crc, f.numbers_crc);  // the insert emissions too
    expect_cutoff(m.ga, 14.30f, 0.70f, "GA");
    // Consensus columns from 3/e on (before, HMMER computes a consensus; we keep none).
    EXPECT_EQ(m.has_cons, v >= 'e');
    EXPECT_EQ(m.consensus, v >= 'e' ? f.consensus : std::string());
    ASSERT_TRUE(m.has_stats);
    if (v == 'a') {  // VLAMBDA, VMU, FTAU: HMMER's mapping (hmmconvert wrote the MSV mu and lambda)
      EXPECT_FLOAT_EQ(m.msv_mu, f.msv_mu);
      EXPECT_FLOAT_EQ(m.vit_mu, f.msv_mu);
      EXPECT_FLOAT_EQ(m.vit_lambda, f.msv_lambda);
      EXPECT_FLOAT_EQ(m.fwd_lambda, f.msv_lambda);
    } else {
      EXPECT_FLOAT_EQ(m.msv_mu, f.msv_mu);
      EXPECT_FLOAT_EQ(m.vit_mu, f.vit_mu);
      EXPECT_FLOAT_EQ(m.vit_lambda, f.vit_lambda);
    }
    EXPECT_FLOAT_EQ(m.fwd_tau, f.fwd_tau);
    // MAXL is a header field from 3/c on; HMMER skips it before.
    const std::string text = slurp_text(path);
    EXPECT_EQ(parse_hmm_text(edit(text, "ALPH", "MAXL  30\nALPH"), "maxl.hmm").at(0).max_length, v >= 'c' ? 30 : 0);
    expect_hmmsearch_reads(path);
  }
}

// hmmsearch reads all models of a file in the first one's format and refuses a change of
// format ("bad file format"); we read each model in its own format, so files concatenated
// from several HMMER versions (3/e and 3/f) load.
TEST(HmmFile, ReadsMixedFormatsThatHmmsearchRefuses) {
  const std::string f = slurp_text(data_path("hmm/XYPPX_3f.hmm")), e = slurp_text(data_path("hmm/XYPPX_3e.hmm"));
  const auto two = parse_hmm_text(f + e, "mixed.hmm");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].format, "3/f");
  EXPECT_EQ(two[1].format, "3/e");
  EXPECT_TRUE(two[0].mat == two[1].mat && two[0].t == two[1].t && two[0].compo == two[1].compo);
  const auto five = parse_hmm_text(globins() + e + f + e + globins(), "mixed.hmm");  // the parallel parse
  ASSERT_EQ(five.size(), 5u);
  for (size_t k = 0; k < 5; ++k) EXPECT_EQ(five[k].format, k % 2 ? "3/e" : "3/f") << k;
  EXPECT_TRUE(five[1].mat == two[0].mat && five[2].mat == two[0].mat);
  const std::string mixed = temp_path("mixed.hmm");
  std::ofstream(mixed) << f + e;
  expect_hmmsearch_reads(mixed, false);
}

// Tags HMMER does not know are skipped, as HMMER skips them.
TEST(HmmFile, SkipsUnknownHeaderTags) {
  const auto m = parse_hmm_text(edit(globins(), "DATE ", "XTRA  anything\nDATE "), "x.hmm");
  EXPECT_EQ(m.at(0).length, 149);
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
  expect_error(edit(g, "NSEQ  4", "NSEQ  0"), 11, "invalid NSEQ");
  expect_error(edit(g, "EFFN  0.964844", "EFFN  0"), 12, "invalid EFFN");
  expect_error(edit(g, "LENG  149", "LENG  0"), 3, "invalid LENG");
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

// A number field reads as float(strtod(token)) and fails where strtod fails (no full parse,
// ERANGE, not finite): the fast path (from_chars) must take no token strtod reads otherwise.
TEST(HmmFile, NumbersReadAsStrtodReadsThem) {
  const std::string& g = globins();
  for (const char* tok : {"0.964844", "1", "12345.678901234567", "3.4028235e38", "1e-30", "0.1", "+0.5", "0x1p-3",
                          "2.2250738585072014e-308", "4.9e-324", "1e-320", "1e400", "inf", "nan", "1.5.2", "1e",
                          ".5", "5.", "-0.25", "00.750", "123456789012345", "1234567890123456", "99999999.9999999",
                          "0.000000000000001", "000000000000000.5", "1.0000000000000001", "0.1000000000000000055511151231257827"}) {
    char* end = nullptr;
    errno = 0;
    const double want = std::strtod(tok, &end);
    const bool ok = end != tok && *end == '\0' && errno != ERANGE && std::isfinite(want) && float(want) > 0;
    const std::string text = edit(g, "EFFN  0.964844", std::string("EFFN  ") + tok);
    if (!ok) {
      EXPECT_THROW(parse_hmm_text(text, "n.hmm"), InputError) << tok;
      continue;
    }
    const HmmModel m = parse_hmm_text(text, "n.hmm").at(0);
    EXPECT_EQ(m.effn, float(want)) << tok;
  }
}

// Plain decimals (digits and a point) read as strtod reads them, whatever their digit counts:
// random ones on COMPO lines (stored as probabilities: expf of the negated float).
TEST(HmmFile, PlainDecimalsReadAsStrtodReadsThem) {
  const std::string& g = globins();
  const size_t compo = g.find("COMPO"), eol = g.find('\n', compo);
  std::mt19937 rng(11);
  for (int model = 0; model < 150; ++model) {
    std::vector<std::string> toks;
    std::string line = "COMPO";
    for (int i = 0; i < kHmmAlphabet; ++i) {
      std::string tok = std::to_string(rng() % (model < 50 ? 10u : model < 100 ? 100000u : 1000000000u));
      const int fraction = int(rng() % 18);  // 0: none; 16 and more: beyond the short path's 15 digits
      if (fraction > 0) {
        tok += '.';
        for (int d = 0; d < fraction; ++d) tok += char('0' + rng() % 10);
      }
      toks.push_back(tok);
      line += "  " + tok;
    }
    const HmmModel m = parse_hmm_text(g.substr(0, compo) + line + g.substr(eol), "d.hmm").at(0);
    for (int i = 0; i < kHmmAlphabet; ++i)
      ASSERT_EQ(m.compo[i], std::exp(-float(std::strtod(toks[i].c_str(), nullptr)))) << toks[i];
  }
}

// Words are split on every whitespace character a stream skips, in runs of any length (also
// across the reader's 64-character blocks): the body's fields read the same.
TEST(HmmFile, WordsSplitOnAnyWhitespace) {
  const std::string& g = globins();
  const HmmModel want = parse_hmm_text(g, "w.hmm").at(0);
  const size_t body = g.find("\nHMM ") + 1;
  std::mt19937 rng(3);
  const char spaces[] = {' ', '\t', '\v', '\f'};
  for (int round = 0; round < 20; ++round) {
    std::string text = g.substr(0, body);
    for (size_t i = body; i < g.size(); ++i) {
      if (g[i] != ' ') {
        text += g[i];
        continue;
      }
      const size_t run = rng() % 8 == 0 ? 1 + rng() % 70 : 1;
      for (size_t j = 0; j < run; ++j) text += spaces[rng() % 4];
    }
    const HmmModel m = parse_hmm_text(text, "w.hmm").at(0);
    EXPECT_EQ(m.mat, want.mat);
    EXPECT_EQ(m.t, want.t);
    EXPECT_EQ(m.compo, want.compo);
    EXPECT_EQ(m.consensus, want.consensus);
    EXPECT_EQ(m.numbers_crc, want.numbers_crc);
  }
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
    EXPECT_TRUE(many[k].mat == one[0].mat && many[k].t == one[0].t) << many[k].name;
    EXPECT_EQ(many[k].numbers_crc, one[0].numbers_crc) << many[k].name;
    EXPECT_EQ(many[k].msv_mu, one[0].msv_mu);
    line += long(std::count(p.begin(), p.end(), '\n'));
    ++k;
  }
  // The fourth model's LENG broken: the error names its line, as a serial parse does.
  const std::string broken = globins() + fn3 + pk + edit(globins(), "LENG  149", "LENG  abc") + fn3;
  const long at = 1 + long(std::count(broken.begin(), broken.begin() + broken.find("LENG  abc"), '\n'));
  expect_error(broken, at, "invalid LENG");
}

// The message parse_hmm_text gives for the whole `text` ("(no error)" if it parses): what a
// chunked read of the same file must report.
std::string whole_text_error(const std::string& text, const std::string& name) {
  return test::error_of([&] { parse_hmm_text(text, name); });
}
// The message read_hmm_file gives for the file read `chunk` bytes at a time on `threads`.
std::string chunked_read_error(const std::string& path, size_t chunk, size_t threads) {
  return test::error_of([&] { read_hmm_file(path, chunk, threads); });
}

// read_hmm_file parses the file a chunk of whole models at a time: chunks far smaller than the
// file (a model or less) give the models of the whole text's parse, and an error in a later
// chunk its line in the file and the whole text's message.
TEST(HmmFile, ChunkedReadEqualsTheWholeTextAndKeepsErrorLines) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  std::string many;
  for (int i = 0; i < 6; ++i) many += text + (i % 2 ? "\n" : "");
  const std::string path = temp_path("chunked.hmm");
  std::ofstream(path) << many;
  const auto whole = parse_hmm_text(many, path);
  ASSERT_EQ(whole.size(), 6u);
  // Several chunks parse at once (threads beside the reading one), joined in file order.
  for (size_t threads : {1, 2, 3, 8})
    for (size_t chunk : {text.size() / 3, text.size() / 2 + 1, text.size() * 2, many.size() * 2}) {
      const auto read = read_hmm_file(path, chunk, threads);
      ASSERT_EQ(read.size(), whole.size()) << chunk;
      for (size_t k = 0; k < read.size(); ++k) {
        EXPECT_EQ(read[k].name, whole[k].name);
        EXPECT_EQ(read[k].first_line, whole[k].first_line);
        EXPECT_EQ(read[k].numbers_crc, whole[k].numbers_crc);
        EXPECT_EQ(read[k].mat, whole[k].mat);
        EXPECT_EQ(read[k].t, whole[k].t);
      }
    }
  // The fifth model one node short of its LENG: the whole text's message and line.
  size_t fifth = 0;
  for (int i = 0; i < 5; ++i) fifth = many.find("LENG  149", fifth) + 1;
  std::string bad = many;
  bad.replace(fifth - 1, 9, "LENG  150");
  std::ofstream(path) << bad;
  const std::string expected = whole_text_error(bad, path);
  ASSERT_NE(expected, "(no error)");  // its line is in the fifth copy: a later chunk's
  for (size_t threads : {1, 4})
    for (size_t chunk : {text.size() / 3, text.size() / 2 + 1, text.size() * 2})
      EXPECT_EQ(chunked_read_error(path, chunk, threads), expected) << chunk;
}

// Windows line ends read as Unix ones, in a file cut into chunks or whole.
TEST(HmmFile, ReadsCrlfLineEnds) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  std::string crlf;
  for (int i = 0; i < 3; ++i)
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const std::string path = temp_path("crlf.hmm");
  std::ofstream(path, std::ios::binary) << crlf;
  const auto whole = parse_hmm_text(text + text + text, "lf");
  for (size_t chunk : {text.size() / 2, crlf.size() * 2}) {
    const auto read = read_hmm_file(path, chunk, 2);
    ASSERT_EQ(read.size(), 3u);
    for (size_t k = 0; k < read.size(); ++k) {
      EXPECT_EQ(read[k].first_line, whole[k].first_line);
      EXPECT_EQ(read[k].description, whole[k].description);
      EXPECT_EQ(read[k].numbers_crc, whole[k].numbers_crc);
      EXPECT_EQ(read[k].consensus, whole[k].consensus);
    }
  }
}

// Chunks parsed at once fail in any order; the error reported is the first in file order: the
// second model's, near its end, though the third's (its header) fails sooner on its thread.
TEST(HmmFile, ChunkedReadReportsTheFirstErrorInFileOrder) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  std::string bad;
  for (int i = 0; i < 8; ++i) bad += text;
  const size_t second = bad.find("\n    149 ", bad.find("\n    149 ") + 1);
  ASSERT_NE(second, std::string::npos);
  bad.replace(second, 10, "\n    148 ");
  size_t third = 0;
  for (int i = 0; i < 3; ++i) third = bad.find("LENG  149", third) + 1;
  bad.replace(third - 1, 9, "LENG  abc");
  const std::string path = temp_path("two_errors.hmm");
  std::ofstream(path) << bad;
  const std::string expected = whole_text_error(bad, path);
  ASSERT_NE(expected.find("node 149"), std::string::npos) << expected;
  for (int round = 0; round < 5; ++round)
    for (size_t threads : {2, 4, 8})  // a model a chunk
      EXPECT_EQ(chunked_read_error(path, text.size() / 2, threads), expected) << threads;
}

// A chunk's error is built from the chunk alone (its first line is known as it is cut): in a
// plain or gzip file, in the first, a middle or the last of many chunks, the whole text's
// message and line. That holds also where the chunk's text ends inside the broken model (LENG
// past its nodes: the whole file reads on into the next model), which is parsed again with the
// text after it.
TEST(HmmFile, ChunkedReadsOfPlainAndGzipFilesGiveTheWholeTextsErrorInAnyChunk) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  const std::vector<std::pair<std::string, std::string>> breaks = {
      {"LENG  149", "LENG  abc"},       // in the header
      {"\n    149 ", "\n    148 "},     // the last node, near the chunk's end
      {"LENG  149", "LENG  150"}};      // more nodes than the model has: runs past the chunk
  const std::string plain = temp_path("late.hmm"), gz = temp_path("late.hmm.gz");
  for (int broken : {0, 4, 7})
    for (const auto& [from, to] : breaks) {
      std::string bad;
      for (int i = 0; i < 8; ++i) bad += i == broken ? edit(text, from, to) : text;
      std::ofstream(plain, std::ios::binary | std::ios::trunc) << bad;
      test::write_gz_file(gz, bad);
      for (const std::string& path : {plain, gz}) {
        const std::string expected = whole_text_error(bad, path);
        ASSERT_NE(expected, "(no error)") << broken << to;
        for (size_t chunk : {text.size() / 2, text.size() * 3})  // a model a chunk, three
          for (size_t threads : {1, 4})
            EXPECT_EQ(chunked_read_error(path, chunk, threads), expected)
                << path << " model " << broken << " " << to << " chunk " << chunk << " threads " << threads;
      }
    }
}

// The last model one node short of its LENG, then more blank lines than a chunk: the cut after
// its "//" leaves them out of the chunk, but the whole file's parse reads them (they make up
// the lines LENG asks for) and fails at the "//"; so must the chunked read.
TEST(HmmFile, ChunkedReadOfATruncatedLastModelSeesTheBlankLinesAfterIt) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  const std::string bad = text + text + edit(text, "LENG  149", "LENG  150") + std::string(text.size(), '\n');
  const std::string path = temp_path("blank_tail.hmm.gz");
  test::write_gz_file(path, bad);
  const std::string expected = whole_text_error(bad, path);
  ASSERT_NE(expected.find("ends after 149 nodes"), std::string::npos) << expected;
  for (size_t threads : {1, 4})
    EXPECT_EQ(chunked_read_error(path, text.size() / 2, threads), expected);
}

// A "//" line in a header is a tag the reader skips, so the model goes on past it; a chunk cut
// there ends inside the model, which is read whole with the next chunk's text.
TEST(HmmFile, ChunkedReadOfAModelEndLineInsideAHeaderEqualsTheWholeText) {
  const std::string text = slurp_text(data_path("hmm/globins4.hmm"));
  std::string many;
  for (int i = 0; i < 6; ++i) many += i == 2 || i == 5 ? edit(text, "LENG ", "// not the end\nLENG ") : text;
  const std::string path = temp_path("slashes.hmm.gz");
  test::write_gz_file(path, many);
  const auto whole = parse_hmm_text(many, path);
  ASSERT_EQ(whole.size(), 6u);
  for (size_t threads : {1, 4})
    for (size_t chunk : {text.size() / 4, text.size() / 2, text.size() * 2}) {
      const auto read = read_hmm_file(path, chunk, threads);
      ASSERT_EQ(read.size(), whole.size()) << chunk;
      for (size_t k = 0; k < read.size(); ++k) {
        EXPECT_EQ(read[k].first_line, whole[k].first_line);
        EXPECT_EQ(read[k].numbers_crc, whole[k].numbers_crc);
      }
    }
}
