// `hpcalign hmmscan --backend cuda`: hmmsearch's GPU workers (the MSV and Viterbi filters on
// the GPU, the rest on host threads) with the sequence set as their database, listed per query
// sequence. Its -o report (with each sequence's pipeline statistics), --tblout, --domtblout and
// --pfamtblout equal --backend cpu's byte for byte (which cli_hmmscan holds to HMMER's hmmscan),
// under the default filters and hmmscan's filter options, with sixteen workers a GPU or one.
#include <gtest/gtest.h>

#include <sstream>

#include "io/hdf5_columns.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

struct Outputs {
  std::string report, tbl, dom, pfam;
};

// hpcalign hmmscan in a fresh directory (`env`: variables before the command), outputs under
// the same relative names in every run so that the report's header lines agree; --h5 out.h5.
Outputs hmmscan(const std::string& env, const std::string& options, const std::string& models,
                const std::string& queries, std::string* dir_out = nullptr) {
  const std::string dir = temp_dir();
  int status = 0;
  const std::string log = run_command("cd " + dir + " && " + env + " " + binary_path() + " hmmscan --quiet " + options +
                                          " --h5 out.h5 -o out --tblout tbl --domtblout dom --pfamtblout pfam " +
                                          models + " " + queries + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << env << " " << options << ": " << log;
  if (dir_out) *dir_out = dir;
  auto text = [&](const char* name) { return run_command("cat " + dir + "/" + name); };
  return {text("out"), text("tbl"), text("dom"), text("pfam")};
}

size_t rows(const std::string& table) {
  std::istringstream in(table);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty() && line[0] != '#';
  return n;
}

void expect_same(const Outputs& a, const Outputs& b, const std::string& what) {
  EXPECT_EQ(a.tbl, b.tbl) << what << ": --tblout";
  EXPECT_EQ(a.dom, b.dom) << what << ": --domtblout";
  EXPECT_EQ(a.pfam, b.pfam) << what << ": --pfamtblout";
  EXPECT_TRUE(a.report == b.report) << what << ": -o reports differ (" << a.report.size() << " and "
                                    << b.report.size() << " bytes)";
}

std::string backend_of(const std::string& dir) {
  const h5::File f(dir + "/out.h5", h5::Mode::kReadOnly);
  return h5::read_string_attribute(f, "", "backend");
}

// Eight Pfam models with GA/TC/NC lines (fn3, Pkinase, globins4, XYPPX, 2OG-FeII_Oxy_3, RRM_1,
// Caudal_act, LuxC) against globins45, sevenless (nine fn3 repeats, a kinase domain), chimeras
// of each globin with sevenless's kinase region and two of its fn3 repeats (three models, one
// with two domains, a query), every 10th balifam1000 domain (none of these families) and the
// synthetic db2M (random sequences: survivors that fail later stages): 11,444 queries; with
// the default filters 182 (model, sequence) rows and 235 domains.
struct Inputs {
  std::string models, queries;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    const std::string dir = temp_dir();
    Inputs i{dir + "/pfam8.hmm", dir + "/q.fa"};
    int status = 0;
    run_command("cat " + data_path("hmm/fn3.hmm") + " " + data_path("hmm/Pkinase.hmm") + " " +
                    data_path("hmm/pfam_style.hmm") + " >" + i.models + " && zcat " +
                    data_path("hmm/2OG-FeII_Oxy_3.hmm.gz") + " " + data_path("hmm/RRM_1.hmm.gz") + " " +
                    data_path("hmm/Caudal_act.hmm.gz") + " " + data_path("hmm/LuxC.hmm.gz") + " >>" + i.models,
                &status);
    EXPECT_EQ(status, 0);
    run_command("cat " + data_path("globins45.fa") + " " + data_path("7LESS_DROME.fa") + " >" + i.queries +
                    " && zcat " + data_path("balifam1000.fa.gz") + " | awk '/^>/ { n++; keep = n % 10 == 0 } keep' >>" +
                    i.queries + " && cat " + data_path("db2M.fa") + " >>" + i.queries,
                &status);
    EXPECT_EQ(status, 0);
    run_command("awk 'FNR == 1 { f++ } /^>/ { if (f == 1) name[++n] = substr($1, 2); next }"
                " { if (f == 1) g[n] = g[n] $0; else s = s $0 }"
                " END { k = substr(s, 2201, 290); a = substr(s, 431, 95); b = substr(s, 1301, 90);"
                " for (i = 1; i <= n; i++) print \">chimera_\" name[i] \" globin, kinase, two fn3\\n\" g[i]"
                " \"GSGSGGSG\" k \"GSGSGGSG\" a \"GSGSGGSG\" b }' " +
                    data_path("globins45.fa") + " " + data_path("7LESS_DROME.fa") + " >>" + i.queries,
                &status);
    EXPECT_EQ(status, 0);
    return i;
  }();
  return in;
}

}  // namespace

TEST(HmmscanGpu, OutputsEqualTheCpuPath) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Inputs& in = inputs();
  for (const std::string options : {"", "--nobias", "--F1 0.1 --F2 0.01 --F3 1e-3", "--cut_ga"}) {
    SCOPED_TRACE("options '" + options + "'");
    std::string gpu_dir;
    const Outputs gpu = hmmscan("", "--backend cuda " + options, in.models, in.queries, &gpu_dir);
    EXPECT_EQ(backend_of(gpu_dir), "cuda");
    const Outputs cpu = hmmscan("", "--backend cpu " + options, in.models, in.queries);
    EXPECT_GT(rows(cpu.tbl), 150u) << "few (model, sequence) hits: a weak test";
    EXPECT_GT(rows(cpu.dom), rows(cpu.tbl) + 40) << "few sequences with several domains of a model: a weak test";
    expect_same(gpu, cpu, "cuda vs cpu");
  }
}

// --max: every pair through Forward; auto picks the GPU; one worker a GPU with 16 host threads.
TEST(HmmscanGpu, MaxAutoAndOneWorkerEqualTheCpuPath) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Inputs& in = inputs();
  const std::string small = data_path("globins45.fa") + " " + data_path("7LESS_DROME.fa");
  const std::string both = temp_dir() + "/small.fa";
  int status = 0;
  run_command("cat " + small + " >" + both, &status);
  ASSERT_EQ(status, 0);
  const Outputs max_gpu = hmmscan("", "--backend cuda --max", in.models, both);
  const Outputs max_cpu = hmmscan("", "--backend cpu --max", in.models, both);
  EXPECT_GT(rows(max_cpu.tbl), 40u);
  expect_same(max_gpu, max_cpu, "--max: cuda vs cpu");

  std::string auto_dir;
  const Outputs automatic = hmmscan("", "", in.models, in.queries, &auto_dir);
  EXPECT_EQ(backend_of(auto_dir), "cuda");
  const Outputs cpu = hmmscan("", "--backend cpu", in.models, in.queries);
  expect_same(automatic, cpu, "auto vs cpu");
  // --cpu is echoed in the report: the same on both sides.
  const Outputs one = hmmscan("HPCALIGN_WORKERS_PER_GPU=1", "--backend cuda --cpu 16", in.models, in.queries);
  expect_same(one, hmmscan("", "--backend cpu --cpu 16", in.models, in.queries), "one worker a GPU vs cpu");
}
