// CUDA all-vs-all engine = CPU engine: scores and alignments (CIGAR, coordinates; also with the
// scores given, so a local fill stops at the end row) of every
// pair of a few hundred balifam2000 sequences and of 2,000 balifam1000 ones, in every mode,
// plus long synthetic sequences with a small traceback budget, so the host's bounded-memory
// path runs beside the device.
// Skips when no GPU is visible.
#include <gtest/gtest.h>

#include <fstream>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/cpu/allvsall_cpu.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#endif
#include "src/align/reduced_space.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"
#include "test_support.hpp"

namespace hpc {
#ifndef HPCALIGN_HAVE_CUDA
inline int cuda_device_count() { return 0; }
inline std::unique_ptr<AllVsAllEngine> make_cuda_allvsall_engine(int, const AllVsAllSetup&) { throw Error("built without CUDA"); }
#endif
namespace {

SequenceSet sample(uint32_t count, uint32_t long_ones) {
  const SequenceSet all = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet s;
  for (uint32_t i = 0; i < count; ++i) s.add(all.ids[i * 5], all.view(i * 5).data, all.length(i * 5));
  // Long sequences: concatenations of many family members (related to each other in parts).
  for (uint32_t k = 0; k < long_ones; ++k) {
    std::vector<uint8_t> res;
    for (uint32_t i = k; res.size() < 4000 + 700 * k; i += 7) res.insert(res.end(), all.view(i).data, all.view(i).data + all.length(i));
    s.add("long" + std::to_string(k), res.data(), res.size());
  }
  return s;
}

void compare(AlignMode mode, const SequenceSet& s, uint64_t budget, bool alignments) {
  AllVsAllSetup setup;
  setup.queries = setup.targets = &s;
  setup.matrix = load_matrix("BLOSUM62");
  setup.mode = mode;
  setup.traceback_budget = budget;
  std::vector<PairIndex> pairs;
  for (uint32_t a = 0; a < s.size(); ++a)
    for (uint32_t b = a + 1; b < s.size(); ++b) pairs.push_back({a, b});
  CpuAllVsAll cpu(setup, 0);
  auto gpu = make_cuda_allvsall_engine(0, setup);
  const auto cs = cpu.score(pairs), gs = gpu->score(pairs);
  size_t bad = 0;
  for (size_t k = 0; k < pairs.size() && bad < 10; ++k)
    if (cs[k] != gs[k]) ++bad, ADD_FAILURE() << s.ids[pairs[k].query] << " vs " << s.ids[pairs[k].target] << ": cpu " << cs[k] << " gpu " << gs[k];
  ASSERT_EQ(bad, 0u);
  if (!alignments) return;
  // align() and align_scored() (the fill told each pair's score stops at its end row; its CIGARs
  // come through align_scored_flat's one buffer, the reduced-space path's too).
  std::vector<ScoredPair> scored(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) scored[k] = {pairs[k], cs[k]};
  const auto ca = cpu.align(pairs), ga = gpu->align(pairs), gk = gpu->align_scored(scored);
  for (const auto* gpu_alns : {&ga, &gk})
    for (size_t k = 0; k < pairs.size() && bad < 10; ++k) {
      const Alignment &c = ca[k], &g = (*gpu_alns)[k];
      if (c.score != g.score || c.cigar != g.cigar || c.qstart != g.qstart || c.qend != g.qend || c.tstart != g.tstart ||
          c.tend != g.tend)
        ++bad, ADD_FAILURE() << (gpu_alns == &gk ? "align_scored: " : "align: ") << s.ids[pairs[k].query] << " vs "
                             << s.ids[pairs[k].target] << ": cpu " << c.score << " " << c.cigar << " gpu " << g.score
                             << " " << g.cigar;
    }
  EXPECT_EQ(bad, 0u);
  if (budget) EXPECT_GT(gpu->reduced_space_pairs(), 0u) << "the long pairs must take the host path";
}

class AllVsAllGpu : public ::testing::TestWithParam<AlignMode> {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA GPU visible";
  }
};

TEST_P(AllVsAllGpu, ScoresEqualCpuOn400Sequences) { compare(GetParam(), sample(400, 0), 0, false); }

TEST_P(AllVsAllGpu, AlignmentsEqualCpuOn200Sequences) { compare(GetParam(), sample(200, 0), 0, true); }

// Pairs with a long sequence exceed a 4 MB budget: the host path (the strip aligner in bands of
// the budget) on both sides. The long-pair threshold is lifted, or the longest local pairs
// would take the stripes (LongPairsTakeTheStripes).
TEST_P(AllVsAllGpu, LongPairsTakeTheHostPath) {
  const ScopedTunable no_stripes(Tunable::kCudaLongPairCells, "1000000000000");
  compare(GetParam(), sample(40, 3), 4u << 20, true);
}

// With the long-pair threshold forced low, local pairs of 200,000 cells or more are scored and
// aligned by the traceback kernels' stripes (their long pairs' path), the others as usual.
TEST_P(AllVsAllGpu, LongPairsTakeTheStripes) {
  const ScopedTunable low(Tunable::kCudaLongPairCells, "200000");
  compare(GetParam(), sample(60, 3), 0, true);
}

// At full size: 2,000 sequences spread over tests/data/balifam1000.fa.gz, every pair
// (1,999,000), scores and alignments, with a traceback budget (128 KB) that sends the longest
// pairs down the reduced-space path on both sides.
TEST_P(AllVsAllGpu, EveryPairOf2000Balifam1000SequencesEqualsCpu) {
  const SequenceSet all = read_fasta(test::data_path("balifam1000.fa.gz"));
  ASSERT_GE(all.size(), 2000u);
  SequenceSet s;
  const size_t step = all.size() / 2000;
  for (size_t i = 0; i < 2000; ++i) s.add(all.ids[i * step], all.view(i * step).data, all.length(i * step));
  compare(GetParam(), s, 128u << 10, true);
}

// Lengths around the fill kernel's group widths (8, 16, 32 lanes of 8 columns: 64, 128, 256
// columns per pass) and pass boundaries, and of each width (5 to 8 columns) of a 32-lane pair's
// lanes, in one pass and in several, built from repeats so that ties are everywhere, plus
// balifam sequences cut to the same lengths.
SequenceSet edge_lengths() {
  const SequenceSet all = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet s;
  const uint32_t lengths[] = {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 170, 200, 255, 256, 257, 300, 400, 513};
  const char* motifs[] = {"A", "AC", "WWC", "GKLV"};
  uint32_t k = 0;
  for (uint32_t n : lengths) {
    std::vector<uint8_t> rep, cut;
    const std::string motif = motifs[k % 4];
    for (uint32_t i = 0; i < n; ++i) rep.push_back(encode_residue(motif[i % motif.size()]));
    for (uint32_t i = k; cut.size() < n; ++i) {
      const SeqView v = all.view(i * 3);
      cut.insert(cut.end(), v.data, v.data + std::min<size_t>(v.length, n - cut.size()));
    }
    s.add("rep" + std::to_string(n), rep.data(), rep.size());
    s.add("cut" + std::to_string(n), cut.data(), cut.size());
    ++k;
  }
  return s;
}

TEST_P(AllVsAllGpu, AlignmentsEqualCpuAroundGroupWidths) { compare(GetParam(), edge_lengths(), 0, true); }

// score_tile (whole windows scored, then cut) = the CPU's pair-list path, tile for tile,
// square (diagonal and off-diagonal tiles) and rectangle, with and without a score cut; the
// next tile's scores queued ahead (score_tile_ahead) as a looking-ahead worker does, every third
// time another tile's; every fourth tile the next queued before the tile itself is scored (two
// queued at once), every fifth two more (three: the one queued first is dropped).
void compare_tiles(AlignMode mode, const SequenceSet& a, const SequenceSet* b, std::optional<int32_t> min_score) {
  AllVsAllSetup setup;
  setup.queries = &a;
  setup.targets = b ? b : &a;
  setup.matrix = load_matrix("BLOSUM62");
  setup.mode = mode;
  CpuAllVsAll cpu(setup, 0);
  auto gpu = make_cuda_allvsall_engine(0, setup);
  EXPECT_TRUE(gpu->scores_ahead());  // tiles of every mode: the packed kernels
  DeviceCapacity cap;
  cap.compute_units = 1;
  cap.resident_per_unit = 900;  // windows of ~60 sequences: several tiles
  const AllVsAllPlan plan = plan_allvsall(a, b, {cap});
  ASSERT_GT(plan.tiles.size(), 3u);
  const std::vector<uint32_t> order = length_order(*setup.targets);
  size_t kept = 0;
  for (size_t t = 0; t < plan.tiles.size(); ++t) {
    const Tile& tile = plan.tiles[t];
    if (t % 4 == 3 && t + 1 < plan.tiles.size()) gpu->score_tile_ahead(plan.tiles[t + 1], order, b == nullptr);
    if (t % 5 == 4 && t + 3 < plan.tiles.size()) {
      gpu->score_tile_ahead(plan.tiles[t + 2], order, b == nullptr);
      gpu->score_tile_ahead(plan.tiles[t + 3], order, b == nullptr);
    }
    const auto c = cpu.score_tile(tile, order, b == nullptr, min_score), g = gpu->score_tile(tile, order, b == nullptr, min_score);
    const size_t ahead = t % 3 == 2 ? t + 2 : t + 1;
    if (ahead < plan.tiles.size()) gpu->score_tile_ahead(plan.tiles[ahead], order, b == nullptr);
    ASSERT_EQ(c.size(), g.size()) << "tile " << tile.id;
    for (size_t k = 0; k < c.size(); ++k)
      ASSERT_TRUE(c[k].pair.query == g[k].pair.query && c[k].pair.target == g[k].pair.target && c[k].score == g[k].score)
          << "tile " << tile.id << " item " << k << ": cpu (" << c[k].pair.query << ", " << c[k].pair.target << ") "
          << c[k].score << ", gpu (" << g[k].pair.query << ", " << g[k].pair.target << ") " << g[k].score;
    kept += c.size();
  }
  EXPECT_GT(kept, 0u);
  if (!min_score) EXPECT_EQ(kept, plan.total_pairs);
}

TEST_P(AllVsAllGpu, TileScoresWithCutEqualCpu) {
  const SequenceSet s = sample(300, 0);
  compare_tiles(GetParam(), s, nullptr, 40);
  compare_tiles(GetParam(), s, nullptr, std::nullopt);
  const SequenceSet r = sample(120, 1);
  compare_tiles(GetParam(), r, &s, 45);
}

// Global and semiglobal tiles in the packed kernel with every fallback beside it: pairs past its
// exact 16-bit range (both sequences over ~2,976 residues: BLOSUM62's 11 a residue could pass
// 32,767) go to the exact 32-bit kernel, pairs of 2^24 cells or more to the stripes' pass 1, and
// the scores of all of them land in the tiles as the CPU's.
TEST_P(AllVsAllGpu, PackedTileScoresPastThe16BitRangeEqualCpu) {
  SequenceSet s = sample(100, 0);
  const SequenceSet all = read_fasta(test::data_path("balifam2000.fa"));
  for (const uint32_t length : {3000u, 3300u, 6000u}) {
    std::vector<uint8_t> res;
    for (uint32_t i = length / 100; res.size() < length; i += 3) res.insert(res.end(), all.view(i).data, all.view(i).data + all.length(i));
    res.resize(length);
    s.add("long" + std::to_string(length), res.data(), res.size());
  }
  const std::vector<uint8_t> copy(s.view(100).data, s.view(100).data + s.length(100));
  s.add("copy3000", copy.data(), copy.size());  // identical to long3000: a high score too
  compare_tiles(GetParam(), s, nullptr, std::nullopt);
  compare_tiles(GetParam(), s, nullptr, GetParam() == AlignMode::Global ? -200 : 40);
}

INSTANTIATE_TEST_SUITE_P(Modes, AllVsAllGpu, ::testing::Values(AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace hpc
