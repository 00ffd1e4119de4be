// Oracle: WHICH targets pass each filter of `hpcalign msv`, not only how many, against
// hmmsearch 3.3.2, for the 10 models of tests/data/hmm on balifam2000.fa and db2M.fa.
//
// hmmsearch prints no per-filter list, but p7_Pipeline (src/p7_pipeline.c) decides each
// target alone: the MSV, bias and Viterbi P-values come from that sequence's own score and
// length, compared with F1/F2; nothing depends on the other targets of the file. So the test
// splits the database by our verdicts into four files: failed MSV, passed MSV but not bias,
// passed bias but not Viterbi, passed all three. hmmsearch's "Passed MSV/bias/Vit filter"
// counts on those files must be (0,0,0), (n,0,0), (n,n,0) and (n,n,n): then its survivors of
// each filter are exactly ours, target for target.
//
// And, as a listing by name: a target that passed the filters reaches hmmsearch's hit list
// unless domain definition finds no region in it (p7_Pipeline returns early when nregions or
// nenvelopes is 0), so with all later stages open its --tblout lists a subset of the
// survivors:
//   --nobias --F2 1.0 --F3 1.0 -E 1e30 --domE 1e30   the MSV survivors (F2 1.0 skips Viterbi,
//                                                    F3 1.0 passes Forward)
//   --F3 1.0 -E 1e30 --domE 1e30                     the MSV + bias + Viterbi survivors
// Each listed target must be one of ours; the test prints how many of ours were listed.
#include <gtest/gtest.h>

#include <array>
#include <iterator>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/hdf5_columns.hpp"
#include "oracle/oracle_inputs.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

constexpr size_t kModelCount = std::size(test::kFilterTestModels);

using Counts = std::array<long, 3>;  // Passed MSV, bias, Vit filter
using Survivors = std::vector<std::set<uint32_t>>;  // per model, target indices

std::string hmmsearch(const std::string& args) {
  int status = 0;
  const std::string out = test::run_command("hmmsearch --cpu 2 " + args + " 2>&1", &status);
  EXPECT_EQ(status, 0) << "hmmsearch " << args << "\n" << out.substr(0, 2000);
  return out;
}

Counts pipeline_counts(const std::string& report) {
  Counts c{-1, -1, -1};
  const std::regex re(R"(^Passed (MSV|bias|Vit) filter:\s+(\d+))");
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, re)) c[m[1] == "MSV" ? 0 : m[1] == "bias" ? 1 : 2] = std::stol(m[2]);
  }
  return c;
}

// Targets (named t<index>) that an --tblout file lists.
std::set<uint32_t> tblout_targets(const std::string& path) {
  std::set<uint32_t> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == 't') out.insert(uint32_t(std::stoul(line.substr(1, line.find(' ') - 1))));
  return out;
}

// Survivors of `stages`, per model, from an `hpcalign msv` run (its /msv rows, no --all).
Survivors our_survivors(const std::string& models, const std::string& db, const std::string& stages,
                        const std::string& out) {
  int status = 0;
  const std::string log = test::run_command(test::binary_path() + " msv -m " + models + " -d " + db + " -o " + out +
                                                " --stages " + stages + " --threads 2 --quiet 2>&1",
                                            &status);
  EXPECT_EQ(status, 0) << log;
  h5::File f(out, h5::Mode::kReadOnly);
  const auto model = h5::read_all<uint32_t>(f, "msv/model");
  const auto target = h5::read_all<uint32_t>(f, "msv/target");
  const auto passed = h5::read_all<uint8_t>(f, "msv/passed");
  Survivors s(kModelCount);
  for (size_t i = 0; i < model.size(); ++i) {
    EXPECT_TRUE(passed[i]) << "a row without --all that did not pass";
    s.at(model[i]).insert(target[i]);
  }
  return s;
}

struct Tally {
  size_t targets = 0, msv = 0, bias = 0, vit = 0, listed_msv = 0, listed_vit = 0;
};

void compare_survivors(const std::string& db_name) {
  Tally tally;
  const std::string dir = test::temp_dir(), db = dir + "/db.fa", models = dir + "/models.hmm";
  const SequenceSet targets = read_fasta(test::data_path(db_name));
  test::write_renamed(db, targets, "t");
  for (size_t mi = 0; mi < kModelCount; ++mi) {  // model<i>.hmm, and all of them in models.hmm
    const std::string name = test::kFilterTestModels[mi], path = test::data_path("hmm/" + name);
    const bool gz = name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0;
    const std::string one = dir + "/model" + std::to_string(mi) + ".hmm";
    int status = 0;
    test::run_command(std::string(gz ? "zcat " : "cat ") + path + " > " + one + " && cat " + one + " >> " + models,
                      &status);
    ASSERT_EQ(status, 0) << path;
  }
  const Survivors msv = our_survivors(models, db, "msv", dir + "/msv.h5");
  const Survivors bias = our_survivors(models, db, "msv,bias", dir + "/bias.h5");
  const Survivors vit = our_survivors(models, db, "msv,bias,vit", dir + "/vit.h5");

  for (size_t mi = 0; mi < kModelCount; ++mi) {
    const std::string model = dir + "/model" + std::to_string(mi) + ".hmm";
    // The four parts, by the last of our filters each target passed (0: none).
    std::array<std::vector<uint32_t>, 4> part;
    for (uint32_t t = 0; t < targets.size(); ++t) {
      const int passed = vit[mi].count(t) ? 3 : bias[mi].count(t) ? 2 : msv[mi].count(t) ? 1 : 0;
      EXPECT_TRUE(passed < 2 || msv[mi].count(t)) << "survivors of a later filter must have passed MSV";
      part[passed].push_back(t);
    }
    for (int p = 0; p < 4; ++p) {
      if (part[p].empty()) continue;
      const std::string fa = dir + "/part" + std::to_string(p) + ".fa";
      test::write_fasta(fa, targets, part[p], "t");
      const long n = long(part[p].size());
      const Counts want{p >= 1 ? n : 0, p >= 2 ? n : 0, p >= 3 ? n : 0};
      EXPECT_EQ(pipeline_counts(hmmsearch(model + " " + fa)), want)
          << test::kFilterTestModels[mi] << " on " << db_name << ": the " << n << " targets whose last passed filter is "
          << (p == 0 ? "none" : p == 1 ? "MSV" : p == 2 ? "bias" : "Viterbi");
    }
    // hmmsearch's own listings: subsets of our survivors.
    const std::string tbl = dir + "/hits.tbl";
    hmmsearch("-o /dev/null --nobias --F2 1.0 --F3 1.0 -E 1e30 --domE 1e30 --tblout " + tbl + " " + model + " " + db);
    const std::set<uint32_t> listed_msv = tblout_targets(tbl);
    hmmsearch("-o /dev/null --F3 1.0 -E 1e30 --domE 1e30 --tblout " + tbl + " " + model + " " + db);
    const std::set<uint32_t> listed_vit = tblout_targets(tbl);
    for (uint32_t t : listed_msv) EXPECT_TRUE(msv[mi].count(t)) << test::kFilterTestModels[mi] << ": t" << t << " listed, not ours";
    for (uint32_t t : listed_vit) EXPECT_TRUE(vit[mi].count(t)) << test::kFilterTestModels[mi] << ": t" << t << " listed, not ours";
    tally.targets += targets.size();
    tally.msv += msv[mi].size(), tally.bias += bias[mi].size(), tally.vit += vit[mi].size();
    tally.listed_msv += listed_msv.size(), tally.listed_vit += listed_vit.size();
  }
  EXPECT_GT(tally.msv, 200u) << "too few survivors for the comparison to mean much";
  EXPECT_GT(tally.vit, 10u) << "too few survivors for the comparison to mean much";
  std::cout << "[ hmmsearch] " << db_name << ": " << tally.targets << " (model, target) pairs; survivors equal to "
            << "hmmsearch's: MSV " << tally.msv << ", bias " << tally.bias << ", Viterbi " << tally.vit
            << "; listed by its --tblout: " << tally.listed_msv << " of the MSV survivors, " << tally.listed_vit
            << " of the Viterbi survivors\n";
}

TEST(MsvSurvivors, Balifam2000SurvivorsOfEachFilterAreHmmsearchs) { compare_survivors("balifam2000.fa"); }

TEST(MsvSurvivors, Synthetic2MSurvivorsOfEachFilterAreHmmsearchs) { compare_survivors("db2M.fa"); }

}  // namespace
}  // namespace hpc
