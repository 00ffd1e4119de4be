// The reduced-space (checkpointed) aligner must return exactly reference_align's alignment:
// score, coordinates and CIGAR, in every mode, whatever the memory budget.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/align/reduced_space.hpp"
#include "src/align/reference.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

std::vector<uint8_t> random_codes(std::mt19937& rng, uint32_t len, int letters) {
  std::vector<uint8_t> v(len);
  for (auto& c : v) c = uint8_t(rng() % letters);
  return v;
}

void expect_same(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g, uint64_t budget,
                 int* deepest = nullptr) {
  const Alignment ref = reference_align(mode, q, t, m, g);
  ReducedSpaceStats st;
  const Alignment red = reduced_space_align(mode, q, t, m, g, budget, &st);
  EXPECT_EQ(red.score, ref.score);
  EXPECT_EQ(red.cigar, ref.cigar);
  EXPECT_EQ(red.qstart, ref.qstart);
  EXPECT_EQ(red.qend, ref.qend);
  EXPECT_EQ(red.tstart, ref.tstart);
  EXPECT_EQ(red.tend, ref.tend);
  if (!red.cigar.empty()) EXPECT_EQ(rescore_cigar(red, q, t, m, g), red.score);
  if (deepest) *deepest = std::max(*deepest, st.depth);
}

const AlignMode kModes[] = {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal};

// Few letters and short sequences: many equal-scoring paths, so tie decisions matter.
TEST(ReducedSpace, TieHeavyRandomPairsMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(7);
  int deepest = 0;
  for (int k = 0; k < 300; ++k) {
    const auto a = random_codes(rng, 1 + rng() % 60, 2 + k % 3), b = random_codes(rng, 1 + rng() % 60, 2 + k % 3);
    const GapCosts g{int(rng() % 4), int(1 + rng() % 2)};
    for (AlignMode mode : kModes)
      for (uint64_t budget : {1ull, 64ull, 300ull, 1ull << 20}) {
        SCOPED_TRACE("pair " + std::to_string(k) + " mode " + to_string(mode) + " budget " + std::to_string(budget));
        expect_same(mode, {a.data(), uint32_t(a.size())}, {b.data(), uint32_t(b.size())}, m, g, budget, &deepest);
      }
  }
  EXPECT_GE(deepest, 2) << "small budgets must force nested checkpoint levels";
}

TEST(ReducedSpace, RealProteinsMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const SequenceSet set = read_fasta(test::data_path("balifam2000.fa"));
  std::mt19937 rng(11);
  for (int k = 0; k < 40; ++k) {
    const uint32_t x = rng() % set.size(), y = (x + 1 + rng() % 3) % set.size();  // neighbours: often one family
    for (AlignMode mode : kModes) {
      SCOPED_TRACE(set.ids[x] + " vs " + set.ids[y] + " " + to_string(mode));
      const uint64_t full = traceback_bytes(set.length(x), set.length(y));
      expect_same(mode, set.view(x), set.view(y), m, {11, 1}, full / 50);
    }
  }
}

TEST(ReducedSpace, EmptySequencesAndBorders) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const std::vector<uint8_t> a = {1, 2, 3, 4, 5}, none;
  const SeqView av{a.data(), 5}, ev{none.data(), 0};
  for (AlignMode mode : kModes) {
    expect_same(mode, av, ev, m, {11, 1}, 1);
    expect_same(mode, ev, av, m, {11, 1}, 1);
    expect_same(mode, ev, ev, m, {11, 1}, 1);
  }
}

TEST(ReducedSpace, PeakMemoryStaysNearTheBudget) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(3);
  const auto a = random_codes(rng, 3000, 20), b = random_codes(rng, 2500, 20);
  const uint64_t budget = 1000000;  // full traceback: 3.75 MB; one row of checkpoint state: 40 kB
  ReducedSpaceStats st;
  const Alignment red = reduced_space_align(AlignMode::Global, {a.data(), 3000}, {b.data(), 2500}, m, {11, 1}, budget, &st);
  EXPECT_LE(st.peak_bytes, budget);
  EXPECT_GE(st.depth, 1);
  EXPECT_EQ(red.cigar, reference_align(AlignMode::Global, {a.data(), 3000}, {b.data(), 2500}, m, {11, 1}).cigar);
}

}  // namespace
}  // namespace hpc
