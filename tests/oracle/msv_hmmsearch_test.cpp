// Oracle: our MSV / bias / Viterbi filter pass counts equal hmmsearch 3.3.2's pipeline
// statistics ("Passed MSV filter", "Passed bias filter", "Passed Vit filter") exactly, for
// the tutorial models, HMMER testsuite models, on balifam1000 and a 2M-residue database.
// No float-rounding exceptions were needed: every count is equal. Targets rich in the letters
// HMMER reads by its own rules (U, O, J, B, Z, X, '*', '.', '_', '~', lower case) are read
// under those rules (io/fasta.hpp) and give hmmsearch's counts too.
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "io/database.hpp"
#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {


using Counts = std::array<long, 3>;  // MSV, bias, Vit

Counts hmmsearch_counts(const std::string& model, const std::string& db, const std::string& dir) {
  const std::string out = dir + "/hmmsearch.out";
  int status = 0;
  run_command("hmmsearch --cpu 2 -o " + out + " " + model + " " + db + " 2>&1", &status);
  EXPECT_EQ(status, 0) << "hmmsearch failed on " << model;
  std::ifstream in(out);
  std::string line;
  Counts c{-1, -1, -1};
  const std::regex re(R"(^Passed (MSV|bias|Vit) filter:\s+(\d+))");
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, re)) c[m[1] == "MSV" ? 0 : m[1] == "bias" ? 1 : 2] = std::stol(m[2]);
  }
  return c;
}

// balifam2000.fa with HMMER's special letters sprinkled in: 7 sequences in 10 get ~4% of
// their residues replaced by one of U O J B Z X * . _ ~ (either case), a third get a
// lower-case stretch, every fifth ends in '*'. `blast_safe` writes X for '.', '_' and '~'
// (letters BLAST's rules refuse) so the same targets can also be read under BLAST's rules.
std::string rich_fasta(bool blast_safe) {
  std::ifstream in(data_path("balifam2000.fa"));
  std::mt19937 rng(7);
  const std::string special = "UOJBZX*.~_uojbzx";
  std::ostringstream out;
  std::string line, seq, header;
  size_t index = 0;
  auto flush = [&]() {
    if (header.empty()) return;
    std::uniform_real_distribution<double> u(0, 1);
    if (index % 10 < 7)
      for (char& c : seq)
        if (u(rng) < 0.04) c = special[rng() % special.size()];
    if (index % 3 == 0 && seq.size() > 10)
      for (size_t i = seq.size() / 3, n = 0; n < 8; ++i, ++n) seq[i] = char(std::tolower(static_cast<unsigned char>(seq[i])));
    if (index % 5 == 0) seq += '*';
    if (blast_safe)
      for (char& c : seq)
        if (c == '.' || c == '_' || c == '~') c = 'X';
    out << header << "\n" << seq << "\n";
    ++index;
    seq.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') {
      flush();
      header = line;
    } else {
      seq += line;
    }
  }
  flush();
  return out.str();
}

Counts our_counts(const HmmModel& model, const Database& db) {
  const hmm::ModelFilters f(model);
  hmm::FilterWorkspace ws;
  Counts c{0, 0, 0};
  for (size_t t = 0; t < db.seqs.size(); ++t) {
    const SeqView v = db.seqs.view(t);
    const hmm::PairResult r = hmm::run_filters(f, v.data, int(v.length), hmm::FilterSettings{}, ws);
    c[0] += r.msv_pass, c[1] += r.bias_pass, c[2] += r.passed;
  }
  return c;
}

class MsvOracle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temp_dir());
    int status = 0;
    run_command(binary_path() + " makedb --synthetic --residues 2e6 --seed 1 -o " + *dir_ + "/db2M.fa", &status);
    ASSERT_EQ(status, 0);
  }
  static void TearDownTestSuite() { delete dir_; }
  void SetUp() override { ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (Debian package hmmer) is not installed"; }
  void compare_all(const std::string& db_path) {
    const Database db = load_database(db_path, ResidueRules::kHmmer);  // as `hpcalign msv` reads it
    for (const char* name : test::kFilterTestModels) {
      const std::string path = data_path(std::string("hmm/") + name);
      const HmmModel model = read_hmm_file(path).at(0);
      const Counts theirs = hmmsearch_counts(path, db_path, *dir_);
      const Counts ours = our_counts(model, db);
      EXPECT_EQ(ours[0], theirs[0]) << name << ": Passed MSV filter";
      EXPECT_EQ(ours[1], theirs[1]) << name << ": Passed bias filter";
      EXPECT_EQ(ours[2], theirs[2]) << name << ": Passed Vit filter";
      std::cout << "  " << name << " MSV " << ours[0] << "/" << theirs[0] << "  bias " << ours[1] << "/" << theirs[1]
                << "  Vit " << ours[2] << "/" << theirs[2] << "\n";
    }
  }
  static std::string* dir_;
};
std::string* MsvOracle::dir_ = nullptr;

}  // namespace

TEST_F(MsvOracle, Balifam1000CountsEqualHmmsearch) { compare_all(data_path("balifam1000.fa.gz")); }

TEST_F(MsvOracle, Synthetic2MCountsEqualHmmsearch) { compare_all(*dir_ + "/db2M.fa"); }

TEST_F(MsvOracle, CommandLineSummaryAndHdf5AgreeWithHmmsearch) {
  // Three models in one file through the real binary: stdout summary, /pipeline and /msv rows.
  const std::string models = *dir_ + "/three.hmm";
  run_command("cat " + data_path("hmm/globins4.hmm") + " " + data_path("hmm/fn3.hmm") + " " +
              data_path("hmm/Pkinase.hmm") + " > " + models);
  const std::string db = data_path("balifam1000.fa.gz"), out = *dir_ + "/msv.h5";
  int status = 0;
  const std::string stdout_text =
      run_command(binary_path() + " msv -m " + models + " -d " + db + " -o " + out + " --threads 2 --quiet", &status);
  ASSERT_EQ(status, 0) << stdout_text;
  h5::File f(out, h5::Mode::kReadOnly);
  EXPECT_EQ(h5::read_string_attribute(f, "", "status"), "complete");
  EXPECT_EQ(h5::read_string_attribute(f, "", "workload"), "msv");
  const auto past_msv = h5::read_all<uint64_t>(f, "pipeline/past_msv");
  const auto past_bias = h5::read_all<uint64_t>(f, "pipeline/past_bias");
  const auto past_vit = h5::read_all<uint64_t>(f, "pipeline/past_vit");
  const auto row_model = h5::read_all<uint32_t>(f, "msv/model");
  const auto row_passed = h5::read_all<uint8_t>(f, "msv/passed");
  const auto names = h5::read_all<std::string>(f, "models/name");
  ASSERT_EQ(names.size(), 3u);
  for (uint32_t m = 0; m < 3; ++m) {
    const char* file = m == 0 ? "hmm/globins4.hmm" : m == 1 ? "hmm/fn3.hmm" : "hmm/Pkinase.hmm";
    const Counts theirs = hmmsearch_counts(data_path(file), db, *dir_);
    EXPECT_EQ(long(past_msv[m]), theirs[0]) << names[m];
    EXPECT_EQ(long(past_bias[m]), theirs[1]) << names[m];
    EXPECT_EQ(long(past_vit[m]), theirs[2]) << names[m];
    long rows = 0;
    for (size_t i = 0; i < row_model.size(); ++i) rows += row_model[i] == m && row_passed[i];
    EXPECT_EQ(rows, theirs[2]) << names[m] << ": survivors written to /msv";
    EXPECT_NE(stdout_text.find("Query:       " + names[m]), std::string::npos) << stdout_text;
  }
  EXPECT_NE(stdout_text.find("Passed MSV filter:"), std::string::npos) << stdout_text;
}

// Targets full of U, O, J, B, Z, X, '*', '.', '_', '~' and lower case: the pass counts of
// every test model equal hmmsearch's, read under HMMER's rules; BLAST's rules (U/O/J as X,
// a final '*' dropped) would not give them, so the database tells the two apart.
TEST(MsvResidueRules, RichTargetsCountsEqualHmmsearch) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  const std::string dir = temp_dir(), rich = dir + "/rich.fa", safe = dir + "/rich_blast_safe.fa";
  std::ofstream(rich) << rich_fasta(false);
  std::ofstream(safe) << rich_fasta(true);
  const Database hmmer = load_database(rich, ResidueRules::kHmmer);
  const Database safe_hmmer = load_database(safe, ResidueRules::kHmmer);
  const Database safe_blast = load_database(safe, ResidueRules::kBlast);
  ASSERT_EQ(hmmer.seqs.size(), 2000u);
  int blast_differs = 0;
  for (const char* name : test::kFilterTestModels) {
    const std::string path = data_path(std::string("hmm/") + name);
    const HmmModel model = read_hmm_file(path).at(0);
    const Counts theirs = hmmsearch_counts(path, rich, dir), ours = our_counts(model, hmmer);
    EXPECT_EQ(ours, theirs) << name << ": MSV, bias, Vit passes (ours " << ours[0] << " " << ours[1] << " "
                            << ours[2] << ", hmmsearch " << theirs[0] << " " << theirs[1] << " " << theirs[2] << ")";
    const Counts theirs_safe = hmmsearch_counts(path, safe, dir);
    EXPECT_EQ(our_counts(model, safe_hmmer), theirs_safe) << name << " (X for . _ ~)";
    blast_differs += our_counts(model, safe_blast) != theirs_safe;
    std::cout << "  " << name << " MSV " << ours[0] << "/" << theirs[0] << "  bias " << ours[1] << "/" << theirs[1]
              << "  Vit " << ours[2] << "/" << theirs[2] << "\n";
  }
  EXPECT_GT(blast_differs, 0) << "no model tells HMMER's residue rules from BLAST's on this database";

  // The real binary reads msv's targets under HMMER's rules: its /pipeline counts too.
  const std::string models = dir + "/three.hmm", out = dir + "/rich.h5";
  run_command("cat " + data_path("hmm/globins4.hmm") + " " + data_path("hmm/Pkinase.hmm") + " " +
              data_path("hmm/fn3.hmm") + " > " + models);
  int status = 0;
  const std::string text = run_command(binary_path() + " msv -m " + models + " -d " + rich + " -o " + out +
                                       " --threads 2 --quiet 2>&1", &status);
  ASSERT_EQ(status, 0) << text;
  h5::File f(out, h5::Mode::kReadOnly);
  const auto past_msv = h5::read_all<uint64_t>(f, "pipeline/past_msv");
  const auto past_bias = h5::read_all<uint64_t>(f, "pipeline/past_bias");
  const auto past_vit = h5::read_all<uint64_t>(f, "pipeline/past_vit");
  ASSERT_EQ(past_msv.size(), 3u);
  const char* files[] = {"hmm/globins4.hmm", "hmm/Pkinase.hmm", "hmm/fn3.hmm"};
  for (size_t m = 0; m < 3; ++m) {
    const Counts theirs = hmmsearch_counts(data_path(files[m]), rich, dir);
    EXPECT_EQ((Counts{long(past_msv[m]), long(past_bias[m]), long(past_vit[m])}), theirs) << files[m];
  }
}
