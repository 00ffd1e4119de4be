// GpuTraceback (the stripe kernels: long pairs of all-vs-all and the search) in local, global
// and semiglobal mode against reference_align and reference_score: score, coordinates and
// CIGAR equal for every pair. Skips cleanly without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/traceback.hpp"
#include "src/align/reference.hpp"
#include "gpu/gpu_test_support.hpp"

namespace hpc {
namespace {

using test::make_set;
using test::mutate;
using test::random_protein;

const AlignMode kModes[] = {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal};

std::string mode_name(AlignMode m) {
  return m == AlignMode::Local ? "local" : m == AlignMode::Global ? "global" : "semiglobal";
}

// Pairs the GPU traced, and pairs that have something to trace (both sequences non-empty and,
// local and semiglobal, a score above 0: below it nothing is aligned).
struct Traced {
  size_t on_gpu = 0, to_trace = 0;
};

// Every (query, target) pair of the two lists, aligned and scored on the GPU in `mode` and
// compared with the reference; `budget` 0 leaves GpuTraceback its own.
Traced expect_equal_to_reference(AlignMode mode, const std::vector<std::string>& qs,
                                 const std::vector<std::string>& ts, uint64_t budget = 0) {
  const SequenceSet q = make_set(qs), t = make_set(ts);
  const ScoreMatrix matrix = load_matrix("BLOSUM62");
  const GapCosts gaps{11, 1};
  cuda::GpuTraceback::Pairs pairs;
  for (size_t a = 0; a < q.size(); ++a)
    for (size_t b = 0; b < t.size(); ++b) pairs.emplace_back(q.view(a), t.view(b));
  cuda::GpuTraceback tb(mode, matrix, gaps, nullptr, budget);
  const std::vector<Alignment> got = tb.align(pairs);
  Traced traced;
  traced.on_gpu = tb.last_stats().gpu_pairs;
  const std::vector<int32_t> scores = tb.scores(pairs);
  EXPECT_EQ(got.size(), pairs.size());
  EXPECT_EQ(scores.size(), pairs.size());
  for (size_t k = 0; k < pairs.size() && k < got.size() && k < scores.size(); ++k) {
    const Alignment want = reference_align(mode, pairs[k].first, pairs[k].second, matrix, gaps);
    if (pairs[k].first.length > 0 && pairs[k].second.length > 0 && (mode == AlignMode::Global || want.score > 0))
      ++traced.to_trace;
    const std::string where = mode_name(mode) + " pair " + std::to_string(k) + " (" +
                              std::to_string(pairs[k].first.length) + " x " + std::to_string(pairs[k].second.length) + ")";
    EXPECT_EQ(got[k].score, want.score) << where;
    EXPECT_EQ(scores[k], want.score) << where;
    EXPECT_EQ(got[k].qstart, want.qstart) << where;
    EXPECT_EQ(got[k].qend, want.qend) << where;
    EXPECT_EQ(got[k].tstart, want.tstart) << where;
    EXPECT_EQ(got[k].tend, want.tend) << where;
    EXPECT_EQ(got[k].cigar, want.cigar) << where;
  }
  return traced;
}

// In every mode, every pair with something to trace traced on the GPU (most of them), each
// equal to the reference.
void expect_all_traced_on_gpu(const std::vector<std::string>& qs, const std::vector<std::string>& ts) {
  for (const AlignMode mode : kModes) {
    const Traced t = expect_equal_to_reference(mode, qs, ts);
    EXPECT_EQ(t.on_gpu, t.to_trace) << mode_name(mode);
    EXPECT_GT(t.on_gpu, qs.size() * ts.size() / 2) << mode_name(mode);
  }
}

// Ties everywhere, every shape around the stripe width and the block's rows, the last row or
// the last column ending the semiglobal alignments.
TEST(GpuTracebackModes, TiedPairsAroundStripeWidthsEqualReference) {
  REQUIRE_GPU();
  std::mt19937 rng(7);
  const auto [qs, ts] = test::tied_pair_lists(rng, 12);
  expect_all_traced_on_gpu(qs, ts);
}

// Homologs inside longer sequences and homopolymers: many stripes a pair run side by side, the
// end on the last row (query inside the target) or on the last column (target inside the query).
TEST(GpuTracebackModes, EmbeddedHomologsAcrossStripesEqualReference) {
  REQUIRE_GPU();
  std::mt19937 rng(11);
  const std::string core = random_protein(rng, 2500);
  const std::vector<std::string> qs = {mutate(rng, core, 12), random_protein(rng, 1500) + core + random_protein(rng, 900),
                                       std::string(700, 'W')};
  const std::vector<std::string> ts = {random_protein(rng, 3100) + mutate(rng, core, 9) + random_protein(rng, 400),
                                       core, std::string(1500, 'W') + random_protein(rng, 200)};
  expect_all_traced_on_gpu(qs, ts);
}

// A budget too small for the larger rectangles: several trace batches, the rest on the host's
// strip aligner; and empty sequences (global and semiglobal: an end gap, from the host).
TEST(GpuTracebackModes, SmallBudgetAndEmptySequencesEqualReference) {
  REQUIRE_GPU();
  std::mt19937 rng(5);
  const std::string a = random_protein(rng, 2000);
  const std::vector<std::string> qs = {a, random_protein(rng, 700), "", mutate(rng, a.substr(200, 600), 10)};
  const std::vector<std::string> ts = {mutate(rng, a, 9), random_protein(rng, 900), a.substr(500, 300), ""};
  for (const AlignMode mode : kModes) {
    const Traced t = expect_equal_to_reference(mode, qs, ts, 600000);  // a 2000 x 2000 trace needs ~2.1 MB
    EXPECT_GT(t.on_gpu, 0u) << mode_name(mode);
    EXPECT_LT(t.on_gpu, t.to_trace) << mode_name(mode);
  }
}

}  // namespace
}  // namespace hpc
