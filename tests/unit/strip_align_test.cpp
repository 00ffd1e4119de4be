// The strip aligner must return exactly reference_align's alignment (score, coordinates,
// CIGAR) and reference_score's score, in every mode, on tie-heavy short pairs, on every
// shape around the 8-row strips, and on long pairs whose scores pass the 16-bit range;
// the baseline and AVX2 instantiations must agree cell for cell.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "io/matrix.hpp"
#include "kernels/cpu/strip_align.hpp"
#include "kernels/cpu/strip_align_isa.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "random_sequences.hpp"
#include "src/align/reference.hpp"

namespace hpc {
namespace {

using test::view;

void expect_equal(const Alignment& got, const Alignment& ref) {
  EXPECT_EQ(got.score, ref.score);
  EXPECT_EQ(got.cigar, ref.cigar);
  EXPECT_EQ(got.qstart, ref.qstart);
  EXPECT_EQ(got.qend, ref.qend);
  EXPECT_EQ(got.tstart, ref.tstart);
  EXPECT_EQ(got.tend, ref.tend);
}

void expect_same(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g) {
  const Alignment ref = reference_align(mode, q, t, m, g);
  expect_equal(strip_align(mode, q, t, m, g), ref);
  EXPECT_EQ(strip_score(mode, q, t, m, g), ref.score);
}

const AlignMode kModes[] = {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal};

// Few letters: many equal-scoring paths and end cells, so every tie decision is exercised;
// open 0 makes opening and extending tie too.
TEST(StripAlign, TieHeavyRandomPairsMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(5);
  for (int k = 0; k < 400; ++k) {
    const auto a = test::random_seq(rng, rng() % 70, 2 + k % 3), b = test::random_seq(rng, rng() % 70, 2 + k % 3);
    const GapCosts g{int(rng() % 4), int(1 + rng() % 2)};
    for (AlignMode mode : kModes) {
      SCOPED_TRACE("pair " + std::to_string(k) + " mode " + to_string(mode));
      expect_same(mode, view(a), view(b), m, g);
    }
  }
}

// Every shape around the strip height (8 rows) and the anti-diagonal's ramp in and out.
TEST(StripAlign, EveryShapeAroundTheStripMatchesReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(9);
  for (uint32_t qa = 0; qa <= 25; ++qa)
    for (uint32_t tb = 0; tb <= 25; ++tb) {
      const auto a = test::random_seq(rng, qa, 4), b = test::random_seq(rng, tb, 4);
      for (AlignMode mode : kModes) {
        SCOPED_TRACE(std::to_string(qa) + " x " + std::to_string(tb) + " mode " + to_string(mode));
        expect_same(mode, view(a), view(b), m, {11, 1});
      }
    }
}

// Relatives with indels: real gapped alignments, query longer and shorter than the target.
TEST(StripAlign, MutatedRelativesMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(13);
  for (int k = 0; k < 12; ++k) {
    const auto a = test::random_seq(rng, 200 + rng() % 900);
    auto b = test::mutate(rng, a, 0.1 + 0.05 * (k % 6));
    if (k % 2) b.insert(b.begin(), a.begin() + a.size() / 2, a.end());  // a repeat: several good paths
    for (AlignMode mode : kModes) {
      SCOPED_TRACE("pair " + std::to_string(k) + " mode " + to_string(mode));
      expect_same(mode, view(a), view(b), m, {11, 1});
      expect_same(mode, view(b), view(a), m, {10, 2});
    }
  }
}

// Scores past int16 (32,767): the pairs the search's 16-bit pass hands on for rescoring.
TEST(StripAlign, LongPairsPastSixteenBitsMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(17);
  const auto a = test::random_seq(rng, 7000);
  const auto b = test::mutate(rng, a, 0.04);
  const Alignment ref = reference_align(AlignMode::Local, view(a), view(b), m, {11, 1});
  ASSERT_GT(ref.score, 32767);
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_same(mode, view(a), view(b), m, {11, 1});
    const Alignment ref_mode = reference_align(mode, view(a), view(b), m, {11, 1});
    const Alignment banded = strip_align(mode, view(a), view(b), m, {11, 1}, 4 << 20);  // 7 bands
    EXPECT_EQ(banded.cigar, ref_mode.cigar);
    EXPECT_EQ(banded.qstart, ref_mode.qstart);
    EXPECT_EQ(banded.tstart, ref_mode.tstart);
  }
  // The search kernel's overflow path gives the same exact score.
  for (SimdIsa isa : {SimdIsa::Sse2, SimdIsa::Avx2})
    if (simd_isa_supported(isa)) EXPECT_EQ(SwScorer(m, {11, 1}, isa).score(view(a), view(b)), ref.score);
}

// Past the traceback budget the rectangle is filled in bands from checkpoint rows: the same
// alignment whatever the band height (one strip, a few strips, rows not a multiple of 8).
TEST(StripAlign, CheckpointedBandsMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(29);
  for (int k = 0; k < 16; ++k) {
    const auto a = test::random_seq(rng, 1 + rng() % 600, k % 2 ? 20 : 3);
    auto b = test::mutate(rng, a, 0.15);
    if (k % 3 == 0) b.insert(b.begin(), a.begin() + a.size() / 3, a.end());
    for (AlignMode mode : kModes) {
      const Alignment ref = reference_align(mode, view(a), view(b), m, {11, 1});
      for (uint64_t budget : {0ull, 1000ull, 20000ull, 100000ull}) {
        SCOPED_TRACE("pair " + std::to_string(k) + " mode " + to_string(mode) + " budget " + std::to_string(budget));
        expect_equal(strip_align(mode, view(a), view(b), m, {11, 1}, budget), ref);
      }
    }
  }
}

// Values that may leave int32's safe range go to the 64-bit reference: same results.
TEST(StripAlign, PairsOutsideTheInt32RangeUseTheReference) {
  ScoreMatrix m = load_matrix("BLOSUM62");
  for (auto& row : m.score)
    for (int& s : row) s *= 1000000;
  std::mt19937 rng(19);
  const auto a = test::random_seq(rng, 150), b = test::mutate(rng, a, 0.2);
  for (AlignMode mode : kModes) {
    SCOPED_TRACE(to_string(mode));
    expect_same(mode, view(a), view(b), m, {11000000, 1000000});
  }
}

// The baseline instantiation (what CPUs without AVX2 run) scores as the reference, and the
// AVX2 one (where this CPU has it) gives the same end cells, bounds and cells.
TEST(StripAlign, BaselineAndAvx2KernelsAgree) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(23);
  const strip_detail::Kernels& base = strip_detail::sse2_kernels();
  const strip_detail::Kernels* avx2 = nullptr;
#if defined(__x86_64__) || defined(__i386__)
  if (simd_isa_supported(SimdIsa::Avx2)) avx2 = &strip_detail::avx2_kernels();
#endif
  for (int k = 0; k < 40; ++k) {
    const auto a = test::random_seq(rng, 1 + rng() % 120, 3 + k % 18), b = test::random_seq(rng, 1 + rng() % 120, 3 + k % 18);
    for (AlignMode mode : kModes) {
      SCOPED_TRACE("pair " + std::to_string(k) + " mode " + to_string(mode));
      const strip_detail::Pass p{a.data(), uint32_t(a.size()), b.data(), uint32_t(b.size()), &m, {11, 1},
                                 mode == AlignMode::Local,
                                 mode == AlignMode::Global ? strip_detail::Border::Charged : strip_detail::Border::Zero};
      const auto e1 = base.end_cell(mode, p);
      EXPECT_EQ(e1.score, reference_score(mode, view(a), view(b), m, {11, 1}));
      if (!avx2) continue;
      const auto e2 = avx2->end_cell(mode, p);
      EXPECT_EQ(e1.score, e2.score);
      EXPECT_EQ(e1.i, e2.i);
      EXPECT_EQ(e1.j, e2.j);
      std::vector<uint32_t> w1(strip_detail::fill_words(p.m, p.n)), w2(w1.size());
      EXPECT_EQ(base.fill(p, w1.data()), avx2->fill(p, w2.data()));
      for (uint32_t i = 1; i <= p.m; ++i)
        for (uint32_t j = 1; j <= p.n; ++j)
          ASSERT_EQ(strip_detail::fill_cell(w1.data(), p.n, i, j), strip_detail::fill_cell(w2.data(), p.n, i, j));
      strip_detail::Pass anchored = p;
      anchored.clamp_zero = false;
      anchored.border = strip_detail::Border::Anchored;
      EXPECT_EQ(base.start_bounds(anchored, e1.score), avx2->start_bounds(anchored, e1.score));
    }
  }
}

}  // namespace
}  // namespace hpc
