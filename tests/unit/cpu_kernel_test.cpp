// kernels/cpu: the SIMD score kernel (every ISA this CPU runs) against the scalar
// reference, overflow handling at the 16-bit ceiling, and the CPU search backend's
// top-k against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/cpu/cpu_backend.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "src/align/reference.hpp"
#include "src/core/error.hpp"
#include "random_sequences.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

std::vector<SimdIsa> runnable_isas() {
  std::vector<SimdIsa> isas;
  for (SimdIsa isa : {SimdIsa::Scalar, SimdIsa::Sse2, SimdIsa::Avx2})
    if (simd_isa_supported(isa)) isas.push_back(isa);
  return isas;
}

// Every kernel this CPU runs: each ISA with and without the 8-bit first pass.
struct KernelConfig {
  SimdIsa isa;
  bool byte_pass;
};
std::vector<KernelConfig> kernel_configs() {
  std::vector<KernelConfig> configs;
  for (SimdIsa isa : runnable_isas())
    for (bool byte_pass : {false, true})
      if (isa != SimdIsa::Scalar || !byte_pass) configs.push_back({isa, byte_pass});
  return configs;
}
std::string describe(const KernelConfig& c) {
  return std::string(to_string(c.isa)) + (c.byte_pass ? " 8/16-bit" : " 16-bit");
}

using test::mutate;
using test::random_seq;

using test::view;

// Scores `query` against all `targets` in one call per ISA (so lanes of mixed lengths
// share vectors) and checks each against reference_score.
void expect_matches_reference(const std::vector<uint8_t>& query, const std::vector<std::vector<uint8_t>>& targets,
                              const ScoreMatrix& m, GapCosts g, const std::string& what) {
  std::vector<SeqView> views;
  for (const auto& t : targets) views.push_back(view(t));
  std::vector<int32_t> expected(views.size());
  for (size_t k = 0; k < views.size(); ++k) expected[k] = reference_score(AlignMode::Local, view(query), views[k], m, g);
  for (const KernelConfig& config : kernel_configs()) {
    SwScorer scorer(m, g, config.isa, config.byte_pass);
    std::vector<int32_t> got(views.size(), -1);
    scorer.score(view(query), views.data(), views.size(), got.data());
    for (size_t k = 0; k < views.size(); ++k)
      ASSERT_EQ(got[k], expected[k]) << what << " kernel " << describe(config) << " target " << k << " (|q| "
                                     << query.size() << ", |t| " << views[k].length << ")";
  }
}

TEST(CpuKernel, DetectsARunnableIsa) {
  const SimdIsa best = detect_simd_isa();
  EXPECT_TRUE(simd_isa_supported(best));
  EXPECT_TRUE(simd_isa_supported(SimdIsa::Scalar));
  EXPECT_EQ(simd_lanes(SimdIsa::Avx2), 16);
  EXPECT_EQ(simd_lanes(SimdIsa::Sse2), 8);
#if defined(__x86_64__)
  EXPECT_NE(best, SimdIsa::Scalar);
  EXPECT_EQ(simd_isa_supported(SimdIsa::Avx2), bool(__builtin_cpu_supports("avx2")));
#endif
}

TEST(CpuKernel, RandomPairsMatchReferenceForSeveralGapCosts) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> len(1, 1000);
  for (GapCosts g : {GapCosts{10, 1}, GapCosts{11, 1}, GapCosts{5, 2}}) {
    for (int round = 0; round < 12; ++round) {
      const auto query = random_seq(rng, size_t(len(rng)), kAlphabetSize);
      std::vector<std::vector<uint8_t>> targets;
      for (int k = 0; k < 40; ++k)
        targets.push_back(k % 3 == 0 ? mutate(rng, query, 0.05 * (k % 9 + 1)) : random_seq(rng, size_t(len(rng))));
      expect_matches_reference(query, targets, m, g,
                               "gaps " + std::to_string(g.open) + "/" + std::to_string(g.extend));
    }
  }
}

TEST(CpuKernel, EveryBuiltinMatrixMatchesReference) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> len(1, 300);
  for (const std::string& name : builtin_matrix_names()) {
    const ScoreMatrix m = load_matrix(name);
    for (GapCosts g : {GapCosts{10, 1}, GapCosts{5, 2}}) {
      const auto query = random_seq(rng, size_t(len(rng)), kAlphabetSize);
      std::vector<std::vector<uint8_t>> targets;
      for (int k = 0; k < 50; ++k)
        targets.push_back(k % 2 ? mutate(rng, query, 0.3) : random_seq(rng, size_t(len(rng)), kAlphabetSize));
      expect_matches_reference(query, targets, m, g, name);
    }
  }
}

// Scores beyond a byte take the kernels' 16-bit profile path instead of byte shuffles.
TEST(CpuKernel, WideScoresMatchReference) {
  ScoreMatrix m = load_matrix("BLOSUM62");
  for (auto& row : m.score)
    for (int& s : row) s *= 25;
  std::mt19937 rng(99);
  const auto query = random_seq(rng, 400);
  std::vector<std::vector<uint8_t>> targets;
  for (int k = 0; k < 40; ++k) targets.push_back(k % 2 ? mutate(rng, query, 0.4) : random_seq(rng, 50 + 10 * k));
  expect_matches_reference(query, targets, m, GapCosts{250, 25}, "BLOSUM62 x 25");
}

TEST(CpuKernel, LengthOneAndEmptySequences) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(3);
  const auto longer = random_seq(rng, 700);
  // Query of length 1 against targets of many lengths, and a long query against
  // targets of length 1 (one of each letter).
  std::vector<std::vector<uint8_t>> targets{longer, {longer[5]}, {0}, random_seq(rng, 17)};
  for (int c = 0; c < kAlphabetSize; ++c) expect_matches_reference({uint8_t(c)}, targets, m, {11, 1}, "query of 1");
  std::vector<std::vector<uint8_t>> singles;
  for (int c = 0; c < kAlphabetSize; ++c) singles.push_back({uint8_t(c)});
  expect_matches_reference(longer, singles, m, {11, 1}, "targets of 1");

  for (const KernelConfig& config : kernel_configs()) {
    SwScorer scorer(m, {11, 1}, config.isa, config.byte_pass);
    EXPECT_EQ(scorer.score(view(longer), SeqView{nullptr, 0}), 0) << describe(config);
    EXPECT_EQ(scorer.score(SeqView{nullptr, 0}, view(longer)), 0) << describe(config);
  }
}

TEST(CpuKernel, RealQueriesAgainstBalifamMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const GapCosts g{11, 1};
  const SequenceSet queries = read_fasta(test::data_path("queries3.fa"));
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  std::vector<SeqView> targets;
  for (size_t k = 0; k < db.size(); ++k) targets.push_back(db.view(k));
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    std::vector<int32_t> expected(targets.size());
    for (size_t k = 0; k < targets.size(); ++k)
      expected[k] = reference_score(AlignMode::Local, queries.view(qi), targets[k], m, g);
    for (const KernelConfig& config : kernel_configs()) {
      if (config.isa == SimdIsa::Scalar) continue;  // same code as the overflow path, tested elsewhere
      SwScorer scorer(m, g, config.isa, config.byte_pass);
      std::vector<int32_t> got(targets.size());
      scorer.score(queries.view(qi), scorer.make_batch(targets.data(), targets.size()), got.data());
      for (size_t k = 0; k < targets.size(); ++k)
        ASSERT_EQ(got[k], expected[k]) << describe(config) << " query " << qi << " target " << db.ids[k];
    }
  }
}

// Around the 16-bit ceiling: W-W scores 11 and C-C 9 in BLOSUM62, so W^n (+ C) has a
// known self score: 11n (+ 9). The kernel's rescoring threshold is 32767 - 11 = 32756.
TEST(CpuKernel, ScoresAroundTheSixteenBitCeilingAreExact) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const uint8_t W = encode_residue('W'), C = encode_residue('C');
  struct Case { size_t w; bool with_c; int32_t score; };
  const std::vector<Case> cases{{2976, false, 32736}, {2977, false, 32747}, {2978, false, 32758},
                                {2978, true, 32767},  {2979, false, 32769}, {2990, true, 32899}};
  std::mt19937 rng(5);
  for (const Case& c : cases) {
    std::vector<uint8_t> s(c.w, W);
    if (c.with_c) s.push_back(C);
    // The ceiling pair shares its vector with ordinary short targets, which must stay exact.
    std::vector<std::vector<uint8_t>> targets{s};
    for (int k = 0; k < 20; ++k) targets.push_back(random_seq(rng, 200 + size_t(k)));
    for (const KernelConfig& config : kernel_configs()) {
      SwScorer scorer(m, {11, 1}, config.isa, config.byte_pass);
      EXPECT_EQ(scorer.score(view(s), view(s)), c.score) << describe(config) << " W^" << c.w;
    }
    expect_matches_reference(s, targets, m, {11, 1}, "ceiling W^" + std::to_string(c.w));
  }
}

// Around the 8-bit pass's ceiling (255 - bias 4 - max 11 = 240 for BLOSUM62): W^n
// scores 11n, so n = 21..23 straddles it; C adds 9.
TEST(CpuKernel, ScoresAroundTheByteCeilingAreExact) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const uint8_t W = encode_residue('W'), C = encode_residue('C');
  std::mt19937 rng(17);
  for (size_t w : {20, 21, 22, 23, 24}) {
    for (bool with_c : {false, true}) {
      std::vector<uint8_t> s(w, W);
      if (with_c) s.push_back(C);
      std::vector<std::vector<uint8_t>> targets{s};
      for (int k = 0; k < 40; ++k) targets.push_back(k % 4 ? random_seq(rng, w + k % 3) : mutate(rng, s, 0.1));
      expect_matches_reference(s, targets, m, {11, 1}, "byte ceiling W^" + std::to_string(w));
      const int32_t self = int32_t(11 * w + (with_c ? 9 : 0));
      for (const KernelConfig& config : kernel_configs())
        EXPECT_EQ(SwScorer(m, {11, 1}, config.isa, config.byte_pass).score(view(s), view(s)), self)
            << describe(config);
    }
  }
}

TEST(CpuKernel, BatchMustMatchTheScorer) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const std::vector<uint8_t> s{1, 2, 3};
  const SeqView v = view(s);
  SwScorer with_bytes(m, {11, 1}, detect_simd_isa(), true);
  SwScorer words_only(m, {11, 1}, detect_simd_isa(), false);
  int32_t out = 0;
  if (with_bytes.batch_lanes() != words_only.batch_lanes())
    EXPECT_THROW(words_only.score(v, with_bytes.make_batch(&v, 1), &out), Error);
  words_only.score(v, words_only.make_batch(&v, 1), &out);
  EXPECT_EQ(out, reference_score(AlignMode::Local, v, v, m, {11, 1}));
}

TEST(CpuKernel, IdenticalLongSequencesOverflowSixteenBitsAndStayExact) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  std::mt19937 rng(11);
  // Letters whose self score is >= 6 in BLOSUM62, so 5,000 of them score well over 32767.
  const std::string rich = "NDCHFPWY";
  std::vector<uint8_t> s;
  for (uint8_t c : random_seq(rng, 5000, int(rich.size()))) s.push_back(encode_residue(rich[c]));
  std::vector<std::vector<uint8_t>> targets{s, mutate(rng, s, 0.02), random_seq(rng, 5000)};
  const int32_t self = reference_score(AlignMode::Local, view(s), view(s), m, {11, 1});
  ASSERT_GT(self, 32767);
  expect_matches_reference(s, targets, m, {11, 1}, "5000-aa identical");
}

// Global and semiglobal scores (SwEndScorer) against reference_score, every ISA this CPU runs:
// many lengths in one call (lanes of different lengths share vectors, their last columns in
// different passes), homologs and random pairs, ties over two letters, several gap costs and
// wide scores (the 16-bit profile path); pairs past the 16-bit range (long and near-identical:
// the strip kernel) and empty sequences beside them.
void expect_end_scores_match_reference(AlignMode mode, const std::vector<uint8_t>& query,
                                       const std::vector<std::vector<uint8_t>>& targets, const ScoreMatrix& m,
                                       GapCosts g, const std::string& what) {
  std::vector<SeqView> views;
  std::vector<int32_t> expected;
  for (const auto& t : targets) views.push_back(view(t)), expected.push_back(reference_score(mode, view(query), view(t), m, g));
  for (SimdIsa isa : runnable_isas()) {
    const SwEndScorer scorer(mode, m, g, isa);
    std::vector<int32_t> got(views.size(), -1);
    scorer.score(view(query), views.data(), views.size(), got.data());
    for (size_t k = 0; k < views.size(); ++k)
      ASSERT_EQ(got[k], expected[k])
          << what << " " << (mode == AlignMode::Global ? "global" : "semiglobal") << " kernel "
          << scorer.kernel_name() << " target " << k << " (|q| " << query.size() << ", |t| " << views[k].length << ")";
  }
}

TEST(CpuKernel, GlobalAndSemiglobalScoresMatchReference) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  ScoreMatrix wide = m;
  for (auto& row : wide.score)
    for (int& s : row) s *= 25;
  std::mt19937 rng(2611);
  std::uniform_int_distribution<int> len(1, 600);
  for (const AlignMode mode : {AlignMode::Global, AlignMode::SemiGlobal}) {
    for (GapCosts g : {GapCosts{11, 1}, GapCosts{5, 2}, GapCosts{0, 3}}) {
      for (int round = 0; round < 4; ++round) {
        const auto query = random_seq(rng, size_t(len(rng)), kAlphabetSize);
        std::vector<std::vector<uint8_t>> targets;
        for (int k = 0; k < 48; ++k)
          targets.push_back(k % 3 == 0 ? mutate(rng, query, 0.05 * (k % 9 + 1)) : random_seq(rng, size_t(len(rng))));
        expect_end_scores_match_reference(mode, query, targets, m, g,
                                          "gaps " + std::to_string(g.open) + "/" + std::to_string(g.extend));
      }
    }
    // Two letters: ties everywhere; lengths 1..70 in one call.
    const auto two = random_seq(rng, 37, 2);
    std::vector<std::vector<uint8_t>> ties;
    for (size_t n = 1; n <= 70; ++n) ties.push_back(random_seq(rng, n, 2));
    expect_end_scores_match_reference(mode, two, ties, m, GapCosts{11, 1}, "two letters");
    // Wide scores, and pairs past the 16-bit range: a 3,100-residue query against itself and
    // its mutants (over 32,767 at 11 a residue) and a 40,000-residue target; empty sequences.
    const auto q400 = random_seq(rng, 400);
    std::vector<std::vector<uint8_t>> wide_targets;
    for (int k = 0; k < 20; ++k) wide_targets.push_back(k % 2 ? mutate(rng, q400, 0.4) : random_seq(rng, 50 + 10 * k));
    expect_end_scores_match_reference(mode, q400, wide_targets, wide, GapCosts{250, 25}, "BLOSUM62 x 25");
    const auto big = random_seq(rng, 3100);
    expect_end_scores_match_reference(mode, big, {big, mutate(rng, big, 0.02), random_seq(rng, 40000), {}, q400}, m,
                                      GapCosts{11, 1}, "past 16 bits");
    expect_end_scores_match_reference(mode, {}, {q400, {}}, m, GapCosts{11, 1}, "empty query");
  }
  EXPECT_THROW(SwEndScorer(AlignMode::Local, m, GapCosts{11, 1}), Error);
}

TEST(CpuKernel, RejectsCodesOutsideTheAlphabet) {
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const std::vector<uint8_t> good{1, 2, 3}, bad{1, kInvalidCode, 3};
  for (const KernelConfig& config : kernel_configs()) {
    SwScorer scorer(m, {11, 1}, config.isa, config.byte_pass);
    EXPECT_THROW(scorer.score(view(bad), view(good)), Error) << describe(config);
    EXPECT_THROW(scorer.score(view(good), view(bad)), Error) << describe(config);
  }
}

// ---- CpuSearchBackend ----

struct TinySearch {
  SequenceSet queries;
  Database db;
  SearchSetup setup;
};

// 3 real queries, and a database of balifam sequences with duplicated entries so that
// equal scores must be ordered by target index.
TinySearch make_tiny_search() {
  TinySearch t;
  t.queries = read_fasta(test::data_path("queries3.fa"));
  const SequenceSet bali = read_fasta(test::data_path("balifam2000.fa"));
  SequenceSet seqs;
  for (size_t k = 0; k < 120; ++k) {
    const size_t src = k % 5 == 4 ? k / 2 : k * 13 % bali.size();  // every 5th repeats an earlier one
    seqs.add("t" + std::to_string(k), bali.view(src).data, bali.length(src));
  }
  for (size_t qi = 0; qi < t.queries.size(); ++qi)  // the queries themselves: high scores
    seqs.add("q" + std::to_string(qi), t.queries.view(qi).data, t.queries.length(qi));
  t.db = make_database(std::move(seqs));
  t.setup.matrix = load_matrix("BLOSUM62");
  t.setup.gaps = {11, 1};
  t.setup.max_hits = 7;
  return t;
}

std::vector<ScoredTarget> brute_force_top(const TinySearch& t, uint32_t q, uint32_t part_begin, uint32_t part_end,
                                          size_t k) {
  std::vector<ScoredTarget> all;
  for (uint32_t p = part_begin; p < part_end; ++p) {
    const uint32_t target = t.db.by_length[p];
    const int32_t s = reference_score(AlignMode::Local, t.queries.view(q), t.db.seqs.view(target),
                                      t.setup.matrix, t.setup.gaps);
    if (s > 0) all.push_back({s, target});
  }
  std::sort(all.begin(), all.end(), scored_target_order);
  if (all.size() > k) all.resize(k);
  return all;
}

void expect_same_top(const std::vector<ScoredTarget>& got, const std::vector<ScoredTarget>& want,
                     const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].score, want[i].score) << what << " rank " << i;
    EXPECT_EQ(got[i].target, want[i].target) << what << " rank " << i;
  }
}

TEST(CpuBackend, TopHitsEqualBruteForceWithTiesByTargetIndex) {
  TinySearch t = make_tiny_search();
  t.setup.queries = &t.queries;
  t.setup.db = &t.db;
  const uint32_t n = uint32_t(t.db.seqs.size());
  // Whole database, and the partitions a planner might cut (uneven, tiny, empty).
  const std::vector<std::pair<uint32_t, uint32_t>> parts{{0, n}, {0, 37}, {37, 101}, {101, n}, {5, 6}, {9, 9}};
  for (SimdIsa isa : runnable_isas()) {
    for (int threads : {1, 3}) {
      CpuSearchBackend backend(threads, isa);
      backend.prepare(t.setup);
      for (auto [b, e] : parts) {
        Tile tile;
        tile.queries = {2, 0, 1};
        tile.part_begin = b;
        tile.part_end = e;
        const auto result = backend.search_tile(tile);
        ASSERT_EQ(result.size(), 3u);
        for (size_t i = 0; i < 3; ++i)
          expect_same_top(result[i], brute_force_top(t, tile.queries[i], b, e, t.setup.max_hits),
                          std::string(to_string(isa)) + " threads " + std::to_string(threads) + " part [" +
                              std::to_string(b) + "," + std::to_string(e) + ") query " +
                              std::to_string(tile.queries[i]));
      }
    }
  }
}

TEST(CpuBackend, TiesAreBrokenByTargetIndex) {
  TinySearch t = make_tiny_search();
  t.setup.queries = &t.queries;
  t.setup.db = &t.db;
  t.setup.max_hits = 1000;
  CpuSearchBackend backend(2);
  backend.prepare(t.setup);
  Tile tile;
  tile.queries = {0};
  tile.part_end = uint32_t(t.db.seqs.size());
  const auto hits = backend.search_tile(tile)[0];
  size_t ties = 0;
  for (size_t i = 1; i < hits.size(); ++i) {
    ASSERT_TRUE(scored_target_order(hits[i - 1], hits[i])) << "rank " << i;
    ties += hits[i - 1].score == hits[i].score;
  }
  EXPECT_GT(ties, 5u);  // the duplicated entries really tie
}

TEST(CpuBackend, AlignmentsFollowTheReference) {
  TinySearch t = make_tiny_search();
  t.setup.queries = &t.queries;
  t.setup.db = &t.db;
  CpuSearchBackend backend(2);
  backend.prepare(t.setup);
  std::vector<AlignRequest> pairs;
  for (uint32_t q = 0; q < 3; ++q)
    for (uint32_t target : {0u, 7u, 120u + q}) pairs.push_back({q, target});
  const auto alns = backend.align(pairs);
  ASSERT_EQ(alns.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    const Alignment want = reference_align(AlignMode::Local, t.queries.view(pairs[i].query),
                                           t.db.seqs.view(pairs[i].target), t.setup.matrix, t.setup.gaps);
    EXPECT_EQ(alns[i].score, want.score);
    EXPECT_EQ(alns[i].cigar, want.cigar);
    EXPECT_EQ(alns[i].qstart, want.qstart);
    EXPECT_EQ(alns[i].tend, want.tend);
  }
  EXPECT_THROW(backend.align({{0, 9999}}), Error);
}

TEST(CpuBackend, DescribesItselfAndRejectsMisuse) {
  CpuSearchBackend backend(3);
  EXPECT_NE(backend.name().find("3 threads"), std::string::npos) << backend.name();
  const DeviceCapacity c = backend.capacity();
  EXPECT_EQ(c.compute_units, 3);
  EXPECT_EQ(c.resident_per_unit, 2 * simd_lanes(detect_simd_isa()));
  EXPECT_GT(c.memory_bytes, 0u);
  EXPECT_THROW(backend.search_tile(Tile{}), Error);  // before prepare()
  EXPECT_THROW(CpuSearchBackend(-1), Error);
  EXPECT_GE(make_cpu_search_backend(0)->capacity().compute_units, 1);

  TinySearch t = make_tiny_search();
  t.setup.queries = &t.queries;
  t.setup.db = &t.db;
  backend.prepare(t.setup);
  Tile outside;
  outside.queries = {0};
  outside.part_end = uint32_t(t.db.seqs.size()) + 1;
  EXPECT_THROW(backend.search_tile(outside), Error);
  Tile bad_query;
  bad_query.queries = {3};
  bad_query.part_end = 1;
  EXPECT_THROW(backend.search_tile(bad_query), Error);
}

}  // namespace
}  // namespace hpc
