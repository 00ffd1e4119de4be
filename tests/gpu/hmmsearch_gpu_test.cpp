// `hpcalign hmmsearch --backend cuda`: the MSV, bias and Viterbi filters through the GPU msv
// engine, the survivors through the rest of the pipeline on host threads. Its --tblout,
// --domtblout and -o pipeline statistics equal --backend cpu's and HMMER 3.3.2 hmmsearch's,
// under the default filters and hmmsearch's filter options; auto picks the GPU; one or four
// workers a GPU give the same tables.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/hdf5_columns.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "test_support.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A table without hmmsearch's trailing comment block ("#\n# Program: ..."), which we do not write.
std::string table_body(const std::string& text) {
  const size_t end = text.find("#\n# Program:");
  return end == std::string::npos ? text : text.substr(0, end);
}

size_t rows(const std::string& table) {
  std::istringstream in(table);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty() && line[0] != '#';
  return n;
}

// -o's pipeline statistics lines (hmmsearch's CPU time lines aside).
std::string statistics(const std::string& report) {
  std::istringstream in(report);
  std::string out;
  for (std::string line; std::getline(in, line);)
    for (const char* head : {"Query:", "Target sequences", "Passed", "Initial search", "Domain search"})
      if (line.rfind(head, 0) == 0) out += line + "\n";
  return out;
}

struct Result {
  std::string tbl, dom, stats;
};

Result read_result(const std::string& dir) {
  return {table_body(slurp(dir + "/tbl")), table_body(slurp(dir + "/dom")), statistics(slurp(dir + "/out"))};
}

// hpcalign hmmsearch (`env`: variables before the command) into a fresh directory.
Result ours(const std::string& env, const std::string& options, const std::string& models, const std::string& db) {
  const std::string dir = temp_dir();
  int status = 0;
  const std::string log = run_command(env + " " + binary_path() + " hmmsearch --quiet " + options + " -o " + dir +
                                          "/out --tblout " + dir + "/tbl --domtblout " + dir + "/dom " + models + " " +
                                          db + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << options << ": " << log;
  return read_result(dir);
}

Result hmmsearch(const std::string& options, const std::string& models, const std::string& db) {
  const std::string dir = temp_dir();
  int status = 0;
  const std::string log = run_command("hmmsearch --cpu 4 " + options + " -o " + dir + "/out --tblout " + dir +
                                          "/tbl --domtblout " + dir + "/dom " + models + " " + db + " 2>&1",
                                      &status);
  EXPECT_EQ(status, 0) << "hmmsearch " << options << ": " << log;
  return read_result(dir);
}

void expect_same(const Result& a, const Result& b, const std::string& what) {
  EXPECT_EQ(a.tbl, b.tbl) << what << ": --tblout";
  EXPECT_EQ(a.dom, b.dom) << what << ": --domtblout";
  EXPECT_EQ(a.stats, b.stats) << what << ": -o statistics";
}

// Pfam-style models (fn3, Pkinase, globins4, XYPPX, 2OG-FeII_Oxy_3; HMMER3/f, one format a file
// as hmmsearch wants) against globins45, sevenless, every 10th balifam1000 domain and the
// synthetic db2M (2M residues: several tiles, survivors that fail later stages).
struct Inputs {
  std::string models, db;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    const std::string dir = temp_dir();
    Inputs i{dir + "/pfam5.hmm", dir + "/db.fa"};
    int status = 0;
    run_command("cat " + data_path("hmm/fn3.hmm") + " " + data_path("hmm/Pkinase.hmm") + " " +
                    data_path("hmm/pfam_style.hmm") + " >" + i.models + " && zcat " +
                    data_path("hmm/2OG-FeII_Oxy_3.hmm.gz") + " >>" + i.models,
                &status);
    EXPECT_EQ(status, 0);
    run_command("cat " + data_path("globins45.fa") + " " + data_path("7LESS_DROME.fa") + " >" + i.db + " && zcat " +
                    data_path("balifam1000.fa.gz") + " | awk '/^>/ { n++; keep = n % 10 == 0 } keep' >>" + i.db +
                    " && cat " + data_path("db2M.fa") + " >>" + i.db,
                &status);
    EXPECT_EQ(status, 0);
    return i;
  }();
  return in;
}

}  // namespace

TEST(HmmsearchGpu, TablesEqualCpuAndHmmsearch) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed";
  const Inputs& in = inputs();
  for (const std::string options : {"", "--nobias", "--F1 0.1 --F2 0.01 --F3 1e-3", "--nonull2", "--cut_ga"}) {
    SCOPED_TRACE("options '" + options + "'");
    const Result gpu = ours("", "--backend cuda " + options, in.models, in.db);
    const Result cpu = ours("", "--backend cpu " + options, in.models, in.db);
    const Result theirs = hmmsearch(options, in.models, in.db);
    EXPECT_GT(rows(theirs.tbl), 30u) << "hmmsearch reports few targets: a weak test";
    expect_same(gpu, cpu, "cuda vs cpu");
    expect_same(gpu, theirs, "cuda vs hmmsearch");
  }
}

// --max: every target through Forward (F1 = F2 = F3 = 1, no bias filter); a smaller database.
TEST(HmmsearchGpu, MaxEqualsCpuAndHmmsearch) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(have_program("hmmsearch")) << "hmmsearch (HMMER 3.3.2) is needed";
  const std::string db = data_path("globins45.fa");
  const Result gpu = ours("", "--backend cuda --max", inputs().models, db);
  const Result theirs = hmmsearch("--max", inputs().models, db);
  EXPECT_GT(rows(theirs.tbl), 40u);
  expect_same(gpu, ours("", "--backend cpu --max", inputs().models, db), "cuda vs cpu");
  expect_same(gpu, theirs, "cuda vs hmmsearch");
}

// auto takes the GPU (the output says so); one worker a GPU with 3 host threads, or four with
// the default, give the same tables.
TEST(HmmsearchGpu, AutoUsesTheGpuAndWorkerCountsAgree) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Inputs& in = inputs();
  const std::string h5 = temp_dir() + "/auto.h5";
  const Result automatic = ours("", "--h5 " + h5, in.models, in.db);
  {
    const h5::File f(h5, h5::Mode::kReadOnly);
    EXPECT_EQ(h5::read_string_attribute(f, "", "backend"), "cuda");
    EXPECT_EQ(h5::read_string_attribute(f, "", "status"), "complete");
  }
  const Result one = ours("HPCALIGN_WORKERS_PER_GPU=1", "--backend cuda --cpu 3", in.models, in.db);
  const Result cpu = ours("", "--backend cpu", in.models, in.db);
  EXPECT_GT(rows(cpu.tbl), 30u);
  expect_same(automatic, cpu, "auto vs cpu");
  expect_same(one, cpu, "one worker a GPU vs cpu");
}
