// The striped SIMD filters (kernels/cpu/msv_simd.hpp) against the generic twins, bit for bit:
// random profiles built to reach every branch (SSV shortcut and its fallback, MSV's 255
// overflow, Viterbi's 32767 overflow and -infinity, lazy-F D->D passes), and every model of
// tests/data/hmm on random and homologous targets, on each instruction set this CPU runs.
#include <gtest/gtest.h>

#include <random>

#include "io/hmm_file.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "test_support.hpp"
#include "tests/random_profiles.hpp"

using namespace hpc;
using namespace hpc::hmm;

namespace {

std::vector<SimdIsa> vector_isas() {
  std::vector<SimdIsa> isas;
  for (SimdIsa isa : {SimdIsa::Sse2, SimdIsa::Avx2})
    if (simd_isa_supported(isa)) isas.push_back(isa);
  return isas;
}

void expect_every_branch(const test::FilterTally& t) {
  EXPECT_EQ(t.mismatches, 0) << t.first_mismatch;
  EXPECT_GT(t.msv_infinite, 0);
  EXPECT_GT(t.ssv_undecided, 0);
  EXPECT_GT(t.msv_finite, 0);
  EXPECT_GT(t.vit_infinite, 0);
  EXPECT_GT(t.vit_minus_infinite, 0);
  EXPECT_GT(t.vit_finite, 0);
}

}  // namespace

TEST(MsvSimd, RandomProfilesEqualGenericTwins) {
  for (SimdIsa isa : vector_isas()) {
    SCOPED_TRACE(to_string(isa));
    const test::FilterTally t = test::random_filter_suite(isa, 2026, 40);
    expect_every_branch(t);
    EXPECT_EQ(t.compared, 40 * 24 * 3);
  }
}

TEST(MsvSimd, TestModelsEqualGenericTwins) {
  std::mt19937 rng(5);
  for (const char* file : {"hmm/globins4.hmm", "hmm/fn3.hmm", "hmm/Pkinase.hmm", "hmm/M1.hmm", "hmm/RRM_1.hmm.gz",
                           "hmm/LuxC.hmm.gz", "hmm/Caudal_act.hmm.gz", "hmm/20aa.hmm.gz", "hmm/XYPPX.hmm",
                           "hmm/2OG-FeII_Oxy_3.hmm.gz", "hmm/pfam_style.hmm"}) {
    for (const HmmModel& m : read_hmm_file(test::data_path(file))) {
      const ModelFilters f(m);
      const auto targets = test::random_targets(rng, test::cheapest_codes(f.msv), 40);
      for (SimdIsa isa : vector_isas()) {
        SCOPED_TRACE(std::string(file) + " " + m.name + " " + to_string(isa));
        test::FilterTally t;
        test::compare_filters(f.msv, f.vit, StripedFilters(f.msv, f.vit, isa), targets, t, m.name);
        EXPECT_EQ(t.mismatches, 0) << t.first_mismatch;
        EXPECT_GT(t.msv_finite, 0);
      }
    }
  }
}

TEST(MsvSimd, PipelineRunsTheFastestKernels) {
  const ModelFilters f(read_hmm_file(test::data_path("hmm/globins4.hmm")).at(0));
  EXPECT_EQ(f.simd.isa(), detect_simd_isa());  // 149 nodes: the widest vectors
  EXPECT_NE(f.simd.isa(), SimdIsa::Scalar);
  EXPECT_EQ(StripedFilters::fastest_isa(32), SimdIsa::Sse2);
  EXPECT_EQ(StripedFilters::fastest_isa(33), detect_simd_isa());
  // The generic twins behind SimdIsa::Scalar are the reference itself.
  const StripedFilters scalar(f.msv, f.vit, SimdIsa::Scalar);
  std::mt19937 rng(9);
  test::FilterTally t;
  test::compare_filters(f.msv, f.vit, scalar, test::random_targets(rng, test::cheapest_codes(f.msv), 8), t, "scalar");
  EXPECT_EQ(t.mismatches, 0) << t.first_mismatch;
}
