// Oracle: hmmsearch 3.3.2's --tblout and --domtblout rows (default options, --cpu 1) against
// ours (src/hmm/hmmsearch_pipeline.hpp + hmmsearch_tables.hpp), field by field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "oracle/hmmsearch_tables_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

void report(const char* what, const FieldComparison& c) {
  std::cout << "  " << what << ": rows ours " << c.ours << " hmmsearch " << c.theirs << " paired " << c.paired
            << " identical " << c.identical_rows << "\n   per field:";
  for (size_t f = 0; f < c.identical.size(); ++f) std::cout << " " << c.identical[f];
  std::cout << "\n";
  for (const auto& d : c.differences) std::cout << "   " << d << "\n";
}

// What hmmsearch's rows exercise: targets with clustered regions (clu > 0), overlapping
// envelopes (ov > 0), several domains, and targets named rich* (rare letters).
// E-values printed as 0 (below the smallest normal double: hmmsearch flushes denormals).
struct Coverage {
  int rows = 0, clustered = 0, overlaps = 0, multidomain = 0, rich = 0, zero_evalue = 0;
};

Coverage coverage(const std::string& tblout) {
  Coverage c;
  for (const auto& r : table_rows(tblout, 18)) {
    ++c.rows;
    c.clustered += std::stoi(r[12]) > 0;
    c.overlaps += std::stoi(r[13]) > 0;
    c.multidomain += std::stoi(r[15]) > 1;
    c.rich += r[0].rfind("rich", 0) == 0;
    c.zero_evalue += r[4] == "0";
  }
  return c;
}

// `cutoff`: "" or "GA", "TC", "NC" (hmmsearch --cut_ga, --cut_tc, --cut_nc).
Coverage compare_model(const std::string& model, const std::string& fasta, const std::string& cutoff = "") {
  const std::string dir = temp_dir();
  std::string option = cutoff;
  std::transform(option.begin(), option.end(), option.begin(), [](char c) { return char(std::tolower(c)); });
  const Tables theirs = hmmsearch_tables(model, fasta, dir, cutoff.empty() ? "" : "--cut_" + option);
  const Tables ours = our_tables(model, fasta, cutoff);
  const Coverage cov = coverage(theirs.tblout);
  std::cout << model << " vs " << fasta << (cutoff.empty() ? "" : " --cut_" + option) << ": hmmsearch rows " << cov.rows << ", clustered " << cov.clustered
            << ", overlaps " << cov.overlaps << ", multi-domain " << cov.multidomain << ", rare letters "
            << cov.rich << ", E-value 0 " << cov.zero_evalue << "\n";
  const FieldComparison t = compare_tables(ours.tblout, theirs.tblout, 18, {0, 2, 18});
  const FieldComparison d = compare_tables(ours.domtblout, theirs.domtblout, 22, {0, 3, 9, 22});
  report("tblout", t);
  report("domtblout", d);
  EXPECT_EQ(t.ours, t.theirs);
  EXPECT_EQ(t.identical_rows, t.theirs);
  EXPECT_EQ(d.ours, d.theirs);
  EXPECT_EQ(d.identical_rows, d.theirs);
  EXPECT_EQ(ours.past_fwd, theirs.past_fwd) << "Passed Fwd filter";
  EXPECT_TRUE(t.same_order && d.same_order) << "rows listed in another order than hmmsearch's";
  EXPECT_TRUE(t.same_header) << ours.tblout.substr(0, 600) << "\n" << theirs.tblout.substr(0, 600);
  EXPECT_TRUE(d.same_header) << ours.domtblout.substr(0, 800) << "\n" << theirs.domtblout.substr(0, 800);
  return cov;
}

}  // namespace

TEST(HmmsearchPipelineOracle, Globins4Balifam1000) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/globins4.hmm"), data_path("balifam1000.fa.gz"));
}

class HmmsearchPipelineModels : public ::testing::TestWithParam<const char*> {};

TEST_P(HmmsearchPipelineModels, Balifam1000RowsEqualHmmsearch) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path(std::string("hmm/") + GetParam()), data_path("balifam1000.fa.gz"));
}

INSTANTIATE_TEST_SUITE_P(TestModels, HmmsearchPipelineModels,
                         ::testing::Values("Pkinase.hmm", "fn3.hmm", "20aa.hmm.gz", "2OG-FeII_Oxy_3.hmm.gz",
                                           "Caudal_act.hmm.gz", "LuxC.hmm.gz", "M1.hmm", "RRM_1.hmm.gz",
                                           "XYPPX.hmm"));

// Several models in one file (Pfam style, with GA/TC/NC lines), as hmmsearch runs several
// queries: each query's rows after the last's, header lines once. (hmmsearch cannot rewind a
// .gz target file for a second query, hence balifam1000 uncompressed.)
TEST(HmmsearchPipelineOracle, SeveralQueriesInOneFile) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  const std::string fasta = temp_dir() + "/balifam1000.fa";
  run_command("zcat " + data_path("balifam1000.fa.gz") + " > " + fasta);
  const Coverage c = compare_model(data_path("hmm/pfam_style.hmm"), fasta);
  EXPECT_GT(c.rows, 0);
}

// HMMER's tutorial: sevenless has many fibronectin type III domains (clustered regions).
TEST(HmmsearchPipelineOracle, Fn3SevenlessMultidomain) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/fn3.hmm"), data_path("7LESS_DROME.fa"));
  compare_model(data_path("hmm/Pkinase.hmm"), data_path("7LESS_DROME.fa"));
}


TEST(HmmsearchPipelineOracle, Globins4Globins45) {
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed by this test";
  compare_model(data_path("hmm/globins4.hmm"), data_path("globins45.fa"));
}

namespace {

struct Record {
  std::string header, seq;
};

std::vector<Record> read_records(const std::string& fasta) {
  std::ifstream in(fasta);
  std::vector<Record> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '>') out.push_back({line, ""});
    else if (!out.empty()) out.back().seq += line;
  }
  return out;
}

std::string family(const Record& r) { return r.header.substr(r.header.find("pfam=") + 5); }

// balifam2000.fa, plus 300 tandem targets (two or three members of one family joined by short
// random linkers: multi-domain regions), plus 300 copies with ~4% of residues replaced by
// U O J B Z X * . ~ _ (HMMER's degenerate, nonresidue, gap and missing-data symbols; some in
// lower case).
std::string stress_targets(const std::vector<Record>& recs) {
  std::mt19937 rng(11);
  std::map<std::string, std::vector<size_t>> by_family;
  for (size_t i = 0; i < recs.size(); ++i) by_family[family(recs[i])].push_back(i);
  std::vector<std::string> families;
  for (const auto& f : by_family)
    if (f.second.size() >= 3) families.push_back(f.first);
  std::ostringstream out;
  for (const Record& r : recs) out << r.header << "\n" << r.seq << "\n";
  const std::string aa = "ACDEFGHIKLMNPQRSTVWY", special = "UOJBZX*.~_uojbzx";
  for (int t = 0; t < 300; ++t) {
    const auto& members = by_family[families[rng() % families.size()]];
    std::string s;
    const int parts = 2 + int(rng() % 2);
    for (int p = 0; p < parts; ++p) {
      if (p) for (int n = int(rng() % 30); n > 0; --n) s += aa[rng() % aa.size()];
      s += recs[members[rng() % members.size()]].seq;
    }
    out << ">tandem" << t << " pfam=" << family(recs[members[0]]) << "\n" << s << "\n";
  }
  for (int t = 0; t < 300; ++t) {
    std::string s = recs[rng() % recs.size()].seq;
    for (char& c : s)
      if (rng() % 25 == 0) c = special[rng() % special.size()];
    out << ">rich" << t << "\n" << s << "\n";
  }
  return out.str();
}

// hmmbuild's model of recs[i] alone, named fam<i>; "" when hmmbuild fails.
std::string single_sequence_model(const std::string& dir, const std::vector<Record>& recs, size_t i) {
  const std::string one = dir + "/one.fa", model = dir + "/fam" + std::to_string(i) + ".hmm";
  std::ofstream(one) << ">seq" << i << "\n" << recs[i].seq << "\n";
  int status = 0;
  const std::string out = run_command("hmmbuild --amino -n fam" + std::to_string(i) + " " + model + " " + one + " 2>&1", &status);
  if (status != 0) std::cerr << out;
  return status == 0 ? model : "";
}

}  // namespace

// Single-sequence models (hmmbuild from one balifam sequence of each of 40 families) against
// balifam2000 with tandem multi-domain and rare-letter targets.
TEST(HmmsearchPipelineOracle, SingleSequenceModelsStressTargets) {
  ASSERT_TRUE(have_program("hmmsearch") && have_program("hmmbuild")) << "HMMER 3.3.2 is needed by this test";
  const std::string dir = temp_dir();
  const std::vector<Record> recs = read_records(data_path("balifam2000.fa"));
  ASSERT_EQ(recs.size(), 2000u);
  const std::string targets = dir + "/stress.fa";
  std::ofstream(targets) << stress_targets(recs);
  std::set<std::string> done;
  Coverage all;
  for (size_t i = 3; i < recs.size() && done.size() < 40; i += 13) {
    if (!done.insert(family(recs[i])).second) continue;
    const std::string model = single_sequence_model(dir, recs, i);
    ASSERT_FALSE(model.empty());
    const Coverage c = compare_model(model, targets);
    all.clustered += c.clustered, all.multidomain += c.multidomain, all.rich += c.rich;
    all.zero_evalue += c.zero_evalue;
    run_command("cat " + model + " >> " + dir + "/all.hmm");
  }
  // The 40 models as 40 queries of one hmmsearch run.
  EXPECT_GT(compare_model(dir + "/all.hmm", targets).rows, 200);
  EXPECT_GT(all.clustered, 0) << "no clustered region among the rows: the test misses stochastic clustering";
  EXPECT_GT(all.multidomain, 0);
  EXPECT_GT(all.rich, 0) << "no target with rare letters among the rows";
  EXPECT_GT(all.zero_evalue, 0) << "no E-value below the smallest normal double among the rows";
}

// One sequence of each of 12 families as a model (hmmbuild), against all 57,592 balifam1000
// sequences: every family's ~1,000 members are near-threshold to strong hits.
TEST(HmmsearchPipelineOracle, SingleSequenceModelsBalifam1000) {
  ASSERT_TRUE(have_program("hmmsearch") && have_program("hmmbuild")) << "HMMER 3.3.2 is needed by this test";
  const std::string dir = temp_dir();
  const std::vector<Record> recs = read_records(data_path("balifam2000.fa"));
  std::set<std::string> done;
  int rows = 0;
  for (size_t i = 5; i < recs.size() && done.size() < 12; i += 41) {
    if (!done.insert(family(recs[i])).second) continue;
    const std::string model = single_sequence_model(dir, recs, i);
    ASSERT_FALSE(model.empty());
    rows += compare_model(model, data_path("balifam1000.fa.gz")).rows;
  }
  EXPECT_GT(rows, 1000);
}

// Family models from alignments (informative transitions, as Pfam's): 30 members of each of 6
// balifam families aligned by hmmalign to one member's model, hmmbuild from that alignment,
// then searched against all of balifam1000.
TEST(HmmsearchPipelineOracle, AlignedFamilyModelsBalifam1000) {
  ASSERT_TRUE(have_program("hmmsearch") && have_program("hmmbuild") && have_program("hmmalign"))
      << "HMMER 3.3.2 is needed by this test";
  const std::string dir = temp_dir();
  const std::vector<Record> recs = read_records(data_path("balifam2000.fa"));
  std::map<std::string, std::vector<size_t>> by_family;
  for (size_t i = 0; i < recs.size(); ++i) by_family[family(recs[i])].push_back(i);
  int models = 0, rows = 0;
  for (const auto& [name, members] : by_family) {
    if (members.size() < 30) continue;
    const std::string seed = single_sequence_model(dir, recs, members[0]);
    ASSERT_FALSE(seed.empty());
    const std::string fasta = dir + "/members.fa", sto = dir + "/members.sto", model = dir + "/" + name + ".hmm";
    {
      std::ofstream out(fasta);
      for (size_t j = 0; j < 30; ++j) out << ">m" << j << "\n" << recs[members[j]].seq << "\n";
    }
    int status = 0;
    const std::string log = run_command("hmmalign --trim -o " + sto + " " + seed + " " + fasta + " 2>&1 && hmmbuild --amino -n " +
                                            name + " " + model + " " + sto + " 2>&1",
                                        &status);
    ASSERT_EQ(status, 0) << log;
    rows += compare_model(model, data_path("balifam1000.fa.gz")).rows;
    if (++models == 6) break;
  }
  EXPECT_EQ(models, 6);
  EXPECT_GT(rows, 5000);
}

// Pfam's bit-score cut-offs: fn3's GA 8.0/7.2 (3 of sevenless' 9 domains below the domain
// cut-off), and a single-sequence model given cut-offs in the middle of its ~1,000 balifam hits
// (many domains each: targets listed by score, domains cut by score).
TEST(HmmsearchPipelineOracle, PfamCutoffs) {
  ASSERT_TRUE(have_program("hmmsearch") && have_program("hmmbuild")) << "HMMER 3.3.2 is needed by this test";
  const std::string dir = temp_dir();
  const std::vector<Record> recs = read_records(data_path("balifam2000.fa"));
  const std::string built = single_sequence_model(dir, recs, 46), model = dir + "/cut.hmm";
  ASSERT_FALSE(built.empty());
  // Where Pfam writes them, before STATS (hmmsearch 3.3.2 crashes on GA lines right after LENG).
  run_command("sed '0,/^STATS/s//GA    60.00 40.00;\\nTC    80.00 50.00;\\nNC    30.00 20.00;\\nSTATS/' " + built + " > " + model);
  int rows = 0;
  for (const char* cut : {"GA", "TC", "NC"}) {
    compare_model(data_path("hmm/fn3.hmm"), data_path("7LESS_DROME.fa"), cut);
    compare_model(data_path("hmm/Pkinase.hmm"), data_path("7LESS_DROME.fa"), cut);
    rows += compare_model(model, data_path("balifam1000.fa.gz"), cut).rows;
  }
  EXPECT_GT(rows, 500);
  EXPECT_NE(error_of([] { hmm::model_cutoff_thresholds(read_hmm_file(data_path("hmm/globins4.hmm")).at(0), "GA"); })
                .find("GA bit thresholds unavailable on model globins4"),
            std::string::npos);
}
