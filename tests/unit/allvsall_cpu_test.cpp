// The CPU all-vs-all engine against the reference aligners: scores (SIMD local, scalar
// global/semiglobal) and alignments, with the traceback budget large (reference path) and
// tiny (the strip aligner in bands), for 1 and 3 threads.
#include <gtest/gtest.h>

#include <random>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/cpu/allvsall_cpu.hpp"
#include "kernels/cpu/gotoh_scalar.hpp"
#include "src/align/reduced_space.hpp"
#include "src/align/reference.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

const AlignMode kModes[] = {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal};

TEST(GotohScalar, EqualsReferenceScore) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(5);
  for (int k = 0; k < 400; ++k) {
    std::vector<uint8_t> a(rng() % 80), b(rng() % 80);
    for (auto& c : a) c = uint8_t(rng() % (k % 2 ? 3 : 24));
    for (auto& c : b) c = uint8_t(rng() % (k % 2 ? 3 : 24));
    const GapCosts g{int(rng() % 12), int(1 + rng() % 3)};
    const SeqView av{a.data(), uint32_t(a.size())}, bv{b.data(), uint32_t(b.size())};
    for (AlignMode mode : kModes)
      ASSERT_EQ(gotoh_score(mode, av, bv, m, g), reference_score(mode, av, bv, m, g))
          << "pair " << k << " mode " << to_string(mode) << " lengths " << a.size() << "x" << b.size();
  }
}

TEST(CpuAllVsAll, ScoresAndAlignmentsEqualReference) {
  const SequenceSet set = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet few;
  for (uint32_t i = 0; i < 30; ++i) few.add(set.ids[i * 37], set.view(i * 37).data, set.length(i * 37));
  std::vector<PairIndex> pairs;
  for (uint32_t a = 0; a < few.size(); ++a)
    for (uint32_t b = a + 1; b < few.size(); ++b) pairs.push_back({a, b});

  for (AlignMode mode : kModes) {
    AllVsAllSetup setup;
    setup.queries = setup.targets = &few;
    setup.matrix = load_matrix("BLOSUM62");
    setup.mode = mode;
    std::vector<Alignment> expected;
    for (const PairIndex& p : pairs) expected.push_back(reference_align(mode, few.view(p.query), few.view(p.target), setup.matrix, setup.gaps));
    for (uint64_t budget : {uint64_t(1) << 30, uint64_t(4096)})
      for (int threads : {1, 3}) {
        SCOPED_TRACE(std::string(to_string(mode)) + " budget " + std::to_string(budget) + " threads " + std::to_string(threads));
        setup.traceback_budget = budget;
        CpuAllVsAll engine(setup, threads);
        const auto scores = engine.score(pairs);
        const auto alns = engine.align(pairs);
        for (size_t k = 0; k < pairs.size(); ++k) {
          ASSERT_EQ(scores[k], expected[k].score) << few.ids[pairs[k].query] << " vs " << few.ids[pairs[k].target];
          ASSERT_EQ(alns[k].cigar, expected[k].cigar);
          ASSERT_EQ(alns[k].qstart, expected[k].qstart);
          ASSERT_EQ(alns[k].qend, expected[k].qend);
          ASSERT_EQ(alns[k].tstart, expected[k].tstart);
          ASSERT_EQ(alns[k].tend, expected[k].tend);
        }
        uint64_t too_big = 0;
        for (const PairIndex& p : pairs) too_big += traceback_bytes(few.length(p.query), few.length(p.target)) > budget;
        EXPECT_EQ(engine.reduced_space_pairs(), too_big);
        if (budget == 4096) EXPECT_GT(too_big, pairs.size() / 2);
      }
  }
}

TEST(CpuAllVsAll, RejectsPairsOutsideTheSets) {
  SequenceSet s;
  const uint8_t r[] = {1, 2, 3};
  s.add("a", r, 3);
  AllVsAllSetup setup;
  setup.queries = setup.targets = &s;
  setup.matrix = load_matrix("BLOSUM62");
  CpuAllVsAll engine(setup, 1);
  EXPECT_THROW(engine.score({{0, 1}}), Error);
}

}  // namespace
}  // namespace hpc
