// GCUPS of the CPU score kernel, one thread per ISA, and of ssearch36 on the same data
// (queries3.fa vs balifam1000.fa.gz, BLOSUM62 11/1). Disabled by default; run with
//   hpcalign_unit_tests --gtest_also_run_disabled_tests --gtest_filter='*CpuKernelBench*'
#include <gtest/gtest.h>

#include <time.h>

#include <cstdio>
#include <fstream>
#include <regex>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/cpu/cpu_backend.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

// CPU time of this thread: on a shared machine, wall time measures the neighbours too.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

TEST(CpuKernelBench, DISABLED_GcupsPerCoreVersusSsearch36) {
  const std::string queries_path = test::data_path("queries3.fa");
  const SequenceSet queries = read_fasta(queries_path);
  const SequenceSet db = read_fasta(test::data_path("balifam1000.fa.gz"));
  const std::string db_path = test::temp_path("balifam1000.fa");  // ssearch36 reads plain FASTA
  write_fasta(db, db_path);
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const GapCosts g{11, 1};
  std::vector<SeqView> targets;
  for (size_t k = 0; k < db.size(); ++k) targets.push_back(db.view(k));
  double cells = 0;
  for (size_t q = 0; q < queries.size(); ++q) cells += double(queries.length(q)) * double(db.total_residues());

  for (SimdIsa isa : {SimdIsa::Sse2, SimdIsa::Avx2}) {
    if (!simd_isa_supported(isa)) continue;
    for (bool byte_pass : {false, true}) {
      SwScorer scorer(m, g, isa, byte_pass);
      const SwTargetBatch batch = scorer.make_batch(targets.data(), targets.size());  // once per run, not timed
      std::vector<int32_t> scores(targets.size());
      const double t0 = thread_seconds();
      for (size_t q = 0; q < queries.size(); ++q) scorer.score(queries.view(q), batch, scores.data());
      const double s = thread_seconds() - t0;
      std::printf("hpcalign %-14s 1 thread: %7.2f GCUPS (%.2f s, %.3g cells)\n", scorer.kernel_name().c_str(),
                  cells / s / 1e9, s, cells);
    }
  }

  ASSERT_TRUE(test::have_program("ssearch36")) << "ssearch36 (Debian package fasta3) is not installed";
  // Its scan time is wall time; its user CPU time (which includes reading the FASTA)
  // is the fairer figure on a busy machine. Both are printed.
  const std::string out = test::run_command("/usr/bin/time -f 'user %U' ssearch36 -s BP62 -f -11 -g -1 -T 1 -b 10 -d 0 -z -1 " +
                                            queries_path + " " + db_path + " 2>&1");
  std::smatch scan, user;
  if (std::regex_search(out, scan, std::regex("Total Scan time:\\s*([0-9.]+)")) &&
      std::regex_search(out, user, std::regex("user ([0-9.]+)"))) {
    const double scan_s = std::stod(scan[1]), user_s = std::stod(user[1]);
    std::printf("ssearch36               1 thread: %7.2f GCUPS by scan time (%.2f s), %.2f by user CPU time (%.2f s)\n",
                cells / scan_s / 1e9, scan_s, cells / user_s / 1e9, user_s);
  }
}

}  // namespace
}  // namespace hpc
