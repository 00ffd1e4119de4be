// The CPU SIMD kernels against the scalar references (Smith-Waterman, the strip aligner; the striped HMMER
// filters against their generic twins, tests/random_profiles.hpp), built without HDF5, MPI, zlib or gtest
// so that it cross-compiles (aarch64: the SSE2 kernels on NEON through SIMDe) and runs under
// qemu-user (tests/scripts/cross_aarch64.sh). Exits non-zero on any difference.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "io/matrix.hpp"
#include "kernels/cpu/strip_align.hpp"
#include "kernels/cpu/sw_profile_simd.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "src/align/profile_reference.hpp"
#include "src/align/reference.hpp"
#include "tests/random_profiles.hpp"
#include "tests/random_sequences.hpp"

namespace {

using namespace hpc;
int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
  ++(ok ? passed : failed);
  if (!ok) std::printf("FAIL - %s\n", what.c_str());
}

using test::mutate;
using test::random_seq;

using test::view;

// One query against relatives and strangers of every length class, each vector kernel
// (with and without the byte pass) and the profile kernel against the reference scores.
void compare(const ScoreMatrix& m, GapCosts g, std::mt19937& rng, const std::string& what) {
  const std::vector<uint8_t> query = random_seq(rng, 1 + rng() % 400, kAlphabetSize);
  std::vector<std::vector<uint8_t>> targets;
  for (int k = 0; k < 40; ++k)
    targets.push_back(k % 2 ? mutate(rng, query, 0.05 * (k % 8)) : random_seq(rng, rng() % 500, kAlphabetSize));
  std::vector<SeqView> views;
  std::vector<int32_t> expected;
  for (const auto& t : targets) {
    views.push_back(view(t));
    expected.push_back(reference_score(AlignMode::Local, view(query), view(t), m, g));
  }
  for (bool byte_pass : {false, true}) {
    const SwScorer scorer(m, g, SimdIsa::Sse2, byte_pass);
    std::vector<int32_t> got(views.size(), -1);
    scorer.score(view(query), views.data(), views.size(), got.data());
    for (size_t k = 0; k < views.size(); ++k)
      check(got[k] == expected[k], what + " " + scorer.kernel_name() + " target " + std::to_string(k) + ": " +
                                       std::to_string(got[k]) + " vs " + std::to_string(expected[k]));
  }
  // Global and semiglobal scores: the 128-bit end-score kernel (SwEndScorer).
  for (AlignMode mode : {AlignMode::Global, AlignMode::SemiGlobal}) {
    const SwEndScorer ends(mode, m, g, SimdIsa::Sse2);
    std::vector<int32_t> got(views.size(), -1);
    ends.score(view(query), views.data(), views.size(), got.data());
    for (size_t k = 0; k < views.size(); ++k) {
      const int32_t want = reference_score(mode, view(query), views[k], m, g);
      check(got[k] == want, what + " " + ends.kernel_name() + " target " + std::to_string(k) + ": " +
                                std::to_string(got[k]) + " vs " + std::to_string(want));
    }
  }
  const QueryProfile profile = QueryProfile::from_matrix(view(query), m);
  const SwProfileScorer profiled(profile, g);
  for (size_t k = 0; k < views.size(); ++k)
    check(profiled.score(views[k]) == expected[k], what + " profile kernel target " + std::to_string(k));
}

}  // namespace

int main() {
  std::printf("kernel %s (%d lanes of 16 bits)\n", to_string(detect_simd_isa()), simd_lanes(detect_simd_isa()));
  check(simd_isa_supported(SimdIsa::Sse2), "the 128-bit kernel runs here");
  std::mt19937 rng(2024);
  for (const std::string& name : builtin_matrix_names()) {
    const ScoreMatrix m = load_matrix(name);
    for (GapCosts g : {GapCosts{11, 1}, GapCosts{10, 2}, GapCosts{5, 5}, GapCosts{0, 1}})
      compare(m, g, rng, name + " " + std::to_string(g.open) + "/" + std::to_string(g.extend));
  }
  // The 16-bit ceiling: W-W scores 11 in BLOSUM62, so W^n scores 11n; past 32767 - 11 the
  // kernel must hand the pair to the exact 32-bit path.
  const ScoreMatrix b62 = load_matrix("BLOSUM62");
  const SwScorer words(b62, {11, 1}, SimdIsa::Sse2, true);
  for (size_t n : {2977u, 2978u, 3000u}) {
    const std::vector<uint8_t> w(n, encode_residue('W'));
    check(words.score(view(w), view(w)) == int32_t(11 * n), "W^" + std::to_string(n) + " self score");
  }
  // The strip aligner (the 16-bit kernel's 32-bit path, the CPU search's alignments): the
  // reference's alignment in every mode, on relatives with indels and on tie-heavy pairs.
  for (int k = 0; k < 24; ++k) {
    const std::vector<uint8_t> a = random_seq(rng, 1 + rng() % 400, k % 2 ? 20 : 3);
    const std::vector<uint8_t> c = k % 3 ? mutate(rng, a, 0.2) : random_seq(rng, 1 + rng() % 400, k % 2 ? 20 : 3);
    for (AlignMode mode : {AlignMode::Local, AlignMode::Global, AlignMode::SemiGlobal}) {
      const Alignment ref = reference_align(mode, view(a), view(c), b62, {11, 1});
      const Alignment got = strip_align(mode, view(a), view(c), b62, {11, 1});
      check(got.score == ref.score && got.cigar == ref.cigar && got.qstart == ref.qstart && got.qend == ref.qend &&
                got.tstart == ref.tstart && got.tend == ref.tend,
            std::string("strip aligner ") + to_string(mode) + " pair " + std::to_string(k));
    }
  }
  // The HMMER filters: every score of the 128-bit striped kernels equals the generic twins'.
  const test::FilterTally t = test::random_filter_suite(SimdIsa::Sse2, 2026, 24);
  check(t.mismatches == 0, "msv/viterbi filters: " + std::to_string(t.mismatches) + " of " + std::to_string(t.compared) +
                               " scores differ; first: " + t.first_mismatch);
  check(t.msv_infinite > 0 && t.ssv_undecided > 0 && t.vit_infinite > 0 && t.vit_minus_infinite > 0,
        "msv/viterbi filters: overflow, SSV fallback and -infinity cases reached");
  std::printf("msv/viterbi filters: %ld scores compared\n", t.compared);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
