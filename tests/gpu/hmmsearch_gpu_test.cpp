// `hpcalign hmmsearch --backend cuda`: the MSV, bias and Viterbi filters through the GPU msv
// engine, the survivors through the rest of the pipeline on host threads. Its --tblout,
// --domtblout and -o pipeline statistics equal --backend cpu's and HMMER 3.3.2 hmmsearch's,
// under the default filters and hmmsearch's filter options; auto picks the GPU; one or four
// workers a GPU give the same tables.
#include <gtest/gtest.h>

#include "gpu/hmmsearch_cli_support.hpp"
#include "io/hdf5_columns.hpp"
#include "kernels/cuda/cuda_backend.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

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
    const HmmsearchResult gpu = ours("", "--backend cuda " + options, in.models, in.db);
    const HmmsearchResult cpu = ours("", "--backend cpu " + options, in.models, in.db);
    const HmmsearchResult theirs = hmmsearch(options, in.models, in.db);
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
  const HmmsearchResult gpu = ours("", "--backend cuda --max", inputs().models, db);
  const HmmsearchResult theirs = hmmsearch("--max", inputs().models, db);
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
  const HmmsearchResult automatic = ours("", "--h5 " + h5, in.models, in.db);
  {
    const h5::File f(h5, h5::Mode::kReadOnly);
    EXPECT_EQ(h5::read_string_attribute(f, "", "backend"), "cuda");
    EXPECT_EQ(h5::read_string_attribute(f, "", "status"), "complete");
  }
  const HmmsearchResult one = ours("HPCALIGN_WORKERS_PER_GPU=1", "--backend cuda --cpu 3", in.models, in.db);
  const HmmsearchResult cpu = ours("", "--backend cpu", in.models, in.db);
  EXPECT_GT(rows(cpu.tbl), 30u);
  expect_same(automatic, cpu, "auto vs cpu");
  expect_same(one, cpu, "one worker a GPU vs cpu");
}
