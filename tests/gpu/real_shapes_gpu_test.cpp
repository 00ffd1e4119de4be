// The GPU's hmmsearch at the extremes of real inputs (bench/make_real_shapes.sh): models of 1 to
// 4,097 nodes, at the MSV kernel's 64-slot and 4,096-node edges and the Viterbi kernel's
// 1,280-node edge, HMMER3/e and 3/f; targets of 1 to 100,000 residues (a titin-sized one, a
// mutated 20,000-residue stretch shared by the two long ones), X/U/O/B/Z/J, '*' ending and
// inside records, lower case, repeated ids. hmmsearch --backend cuda equals --backend cpu and
// HMMER 3.3.2's hmmsearch (tables and each filter's pass count).
#include <gtest/gtest.h>

#include "gpu/hmmsearch_cli_support.hpp"
#include "kernels/cuda/cuda_backend.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

struct Shapes {
  std::string models, models_3e, targets;
};

const Shapes& shapes() {
  static const Shapes s = [] {
    const std::string dir = temp_dir();
    Shapes x{dir + "/models.hmm", dir + "/models_3e.hmm", dir + "/targets.fa"};
    int status = 0;
    const std::string log = run_command(
        "HPCALIGN=" + binary_path() + " bash " + data_path("../../bench/make_real_shapes.sh") + " " + dir + " 2>&1",
        &status);
    EXPECT_EQ(status, 0) << log;
    return x;
  }();
  return s;
}

bool have_hmmer() {
  for (const char* tool : {"hmmsearch", "hmmbuild", "hmmemit", "hmmconvert"})
    if (!have_program(tool)) return false;
  return true;
}

}  // namespace

TEST(RealShapesGpu, HmmsearchEqualsCpuAndHmmsearch) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(have_hmmer()) << "HMMER 3.3.2 (hmmsearch, hmmbuild, hmmemit, hmmconvert) is needed";
  const Shapes& in = shapes();
  struct Case {
    std::string models, options;
    size_t min_rows;
  };
  for (const Case& c : {Case{in.models, "", 70}, Case{in.models, "--F1 0.1 --F2 0.01 --F3 1e-3 --nobias", 70},
                        Case{in.models_3e, "", 40}}) {
    SCOPED_TRACE(c.models + " '" + c.options + "'");
    const HmmsearchResult gpu = ours("", "--backend cuda " + c.options, c.models, in.targets);
    const HmmsearchResult theirs = hmmsearch(c.options, c.models, in.targets);
    EXPECT_GE(rows(theirs.tbl), c.min_rows) << "hmmsearch reports few targets: a weak test";
    expect_same(gpu, ours("", "--backend cpu " + c.options, c.models, in.targets), "cuda vs cpu");
    expect_same(gpu, theirs, "cuda vs hmmsearch");
  }
}
