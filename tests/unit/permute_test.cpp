#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "src/core/alphabet.hpp"
#include "src/pss/permute.hpp"
#include "src/core/philox.hpp"

using namespace hpc;

namespace {

void expect_kat(Philox4x32Counter c, Philox4x32Key k, Philox4x32Counter want) {
  const Philox4x32Counter got = philox4x32_10(c, k);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got.v[i], want.v[i]) << "word " << i;
}

std::vector<uint8_t> encode_text(const std::string& s) {
  std::vector<uint8_t> v;
  for (char c : s) v.push_back(encode_residue(c));
  return v;
}

const std::string kSubject =
    "MVLSPADKTNVKAAWGKVGAHAGEYGAEALERMFLSFPTTKTYFPHFDLSHGSAQVKGHGKKVADALTNAVAHVDDMPNALSALSDLHAHKLRVDPVNFKLLSHCLLVTL"
    "AAHLPAEFTPAVHASLDKFLASVSTVLTSKYR";

}  // namespace

// Known-answer vectors published with Random123 (kat_vectors: counter[4] key[2] -> output[4]).
TEST(Philox, Random123KnownAnswers) {
  expect_kat({{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}});
  expect_kat({{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, {{0xffffffff, 0xffffffff}},
             {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}});
  expect_kat({{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, {{0xa4093822, 0x299f31d0}},
             {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}});
}

TEST(Philox, BelowIsInRangeAndRoughlyUniform) {
  PermutationStream rng(42, 0, 0);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const uint32_t v = rng.below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  EXPECT_EQ(rng.below(1), 0u);
}

TEST(Permute, IsAPermutationOfTheSubject) {
  const auto s = encode_text(kSubject);
  const SeqView v{s.data(), uint32_t(s.size())};
  std::vector<uint8_t> sorted_s(s);
  std::sort(sorted_s.begin(), sorted_s.end());
  for (uint32_t k = 0; k < 50; ++k) {
    std::vector<uint8_t> p(s.size());
    permute_subject(v, 42, 3, k, p.data());
    EXPECT_NE(p, s);
    std::sort(p.begin(), p.end());
    EXPECT_EQ(p, sorted_s) << "k " << k;
  }
}

TEST(Permute, IndexPermutationsAreUniformOverPositions) {
  // Shuffling 0..4: every value lands at every position ~1/5 of the time, and all 120
  // orders appear.
  std::vector<std::vector<int>> at(5, std::vector<int>(5, 0));
  std::set<std::vector<uint8_t>> orders;
  const std::vector<uint8_t> id{0, 1, 2, 3, 4};
  for (uint32_t k = 0; k < 20000; ++k) {
    std::vector<uint8_t> p(5);
    permute_subject({id.data(), 5}, 7, 0, k, p.data());
    orders.insert(p);
    for (int i = 0; i < 5; ++i) ++at[i][p[i]];
  }
  EXPECT_EQ(orders.size(), 120u);
  for (auto& row : at)
    for (int c : row) EXPECT_NEAR(c, 4000, 250);
}

TEST(Permute, SameSeedIdenticalDifferentSeedDifferent) {
  const auto s = encode_text(kSubject);
  const SeqView v{s.data(), uint32_t(s.size())};
  const auto a = permute_subject_batch(v, 42, 5, 0, 100);
  const auto b = permute_subject_batch(v, 42, 5, 0, 100);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, permute_subject_batch(v, 43, 5, 0, 100));
  EXPECT_NE(a, permute_subject_batch(v, 42, 6, 0, 100));  // subject index is part of the key
  // Seeds differing only in the high 32 bits differ too.
  EXPECT_NE(a, permute_subject_batch(v, 42 + (uint64_t(1) << 32), 5, 0, 100));
  // Different k give different permutations.
  std::set<std::vector<uint8_t>> distinct;
  for (uint32_t k = 0; k < 100; ++k) distinct.emplace(a.begin() + k * s.size(), a.begin() + (k + 1) * s.size());
  EXPECT_EQ(distinct.size(), 100u);
}

TEST(Permute, IndependentOfTileSizeAndOrder) {
  const auto s = encode_text(kSubject);
  const SeqView v{s.data(), uint32_t(s.size())};
  const auto whole = permute_subject_batch(v, 9, 2, 0, 96);
  // Cut into tiles of several sizes, generated in reverse order: the same bytes.
  for (uint32_t tile : {1u, 7u, 32u, 50u}) {
    std::vector<uint8_t> joined(whole.size());
    std::vector<uint32_t> starts;
    for (uint32_t k = 0; k < 96; k += tile) starts.push_back(k);
    std::reverse(starts.begin(), starts.end());
    for (uint32_t k0 : starts) {
      const uint32_t n = std::min(tile, 96 - k0);
      const auto part = permute_subject_batch(v, 9, 2, k0, n);
      std::copy(part.begin(), part.end(), joined.begin() + size_t(k0) * s.size());
    }
    EXPECT_EQ(joined, whole) << "tile " << tile;
  }
}

TEST(Permute, EmptyAndSingleResidue) {
  const uint8_t one = 3;
  uint8_t out = 0;
  permute_subject({&one, 1}, 1, 0, 0, &out);
  EXPECT_EQ(out, 3);
  EXPECT_TRUE(permute_subject_batch({nullptr, 0}, 1, 0, 0, 10).empty());
}
