// The GPU paths at the extremes of real inputs (bench/make_real_shapes.sh): models of 1 to
// 4,097 nodes, at the MSV kernel's 64-slot and 4,096-node edges and the Viterbi kernel's
// 1,280-node edge, HMMER3/e and 3/f; targets of 1 to 100,000 residues (a titin-sized one, a
// mutated 20,000-residue stretch shared by the two long ones: scores past 16 bits),
// X/U/O/B/Z/J, '*' ending and inside records, lower case, repeated ids. hmmsearch --backend
// cuda equals --backend cpu and HMMER 3.3.2's hmmsearch (tables and each filter's pass count);
// search and allvsall (local, global, semiglobal, with alignments) equal --backend cpu.
#include <gtest/gtest.h>

#include "gpu/hmmsearch_cli_support.hpp"
#include "kernels/cuda/cuda_backend.hpp"

using namespace hpc;
using namespace hpc::test;

namespace {

struct Shapes {
  std::string models, models_3e, targets, targets_h5;
  std::string queries;  // the targets but the 100,000-residue one (the CPU's self-hit would take minutes)
  std::string fragments;  // the 1-5 residue records and the rare-letter globins
};

const Shapes& shapes() {
  static const Shapes s = [] {
    const std::string dir = temp_dir();
    Shapes x{dir + "/models.hmm", dir + "/models_3e.hmm", dir + "/targets.fa", dir + "/targets.h5",
             dir + "/queries.fa", dir + "/fragments.fa"};
    int status = 0;
    const std::string log = run_command("HPCALIGN=" + binary_path() + " bash " + data_path("../../bench/make_real_shapes.sh") +
                                            " " + dir + " 2>&1 && awk '/^>/ { keep = !/GIANT_SYN/ } keep' " + x.targets +
                                            " >" + x.queries + " && awk '/^>/ { keep = /FRAG|HUMAN/ } keep' " + x.targets +
                                            " >" + x.fragments,
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

// `hpcalign WORKLOAD ARGS --backend B` printed as view's tsv (every column at full precision).
std::string tsv(const std::string& workload, const std::string& args, const std::string& backend) {
  int status = 0;
  const std::string err = temp_dir() + "/err";
  const std::string out = run_command(binary_path() + " " + workload + " --quiet --backend " + backend + " " + args +
                                          " -o - --format tsv 2>" + err,
                                      &status);
  EXPECT_EQ(status, 0) << workload << " " << args << " --backend " << backend << ": " << slurp(err);
  return out;
}

size_t lines_with(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
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

TEST(RealShapesGpu, SearchEqualsCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(have_hmmer()) << "HMMER 3.3.2 (hmmbuild, hmmemit, hmmconvert) makes the inputs";
  const Shapes& in = shapes();
  const std::string args = "-q " + in.queries + " -d ";
  const std::string cpu = tsv("search", args + in.targets, "cpu");
  EXPECT_GE(lines_with(cpu, "FRAG"), 4u);
  EXPECT_GE(lines_with(cpu, "\tsp|Q99999|GIANT_SYN\t"), 10u);
  EXPECT_EQ(tsv("search", args + in.targets, "cuda"), cpu) << "FASTA database";
  EXPECT_EQ(tsv("search", args + in.targets_h5, "cuda"), cpu) << "makedb database";
}

TEST(RealShapesGpu, AllvsallEqualsCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(have_hmmer()) << "HMMER 3.3.2 (hmmbuild, hmmemit, hmmconvert) makes the inputs";
  const Shapes& in = shapes();
  for (const std::string mode : {"local", "global", "semiglobal"}) {
    SCOPED_TRACE(mode);
    // Every pair of the set but the 100,000-residue target; then the fragments and rare-letter
    // records against every target, the 100,000-residue one included.
    for (const std::string inputs : {"-i " + in.queries, "-i " + in.fragments + " -j " + in.targets}) {
      const std::string args = "--mode " + mode + " " + inputs;
      const std::string cpu = tsv("allvsall", args, "cpu");
      EXPECT_GT(lines_with(cpu, "\n"), 1000u) << inputs;
      EXPECT_EQ(tsv("allvsall", args, "cuda"), cpu) << inputs;
    }
  }
}
