// The strip scorer of the PSS device path (kernels/cuda/pss_strip.hpp), run on the host: equal to
// the scalar profile reference for every query length around the strip height, interleaved
// copies, matrix and PSSM-like profiles.
#include <gtest/gtest.h>

#include <random>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "src/align/profile_reference.hpp"
#include "src/pss/permute.hpp"
#include "kernels/cuda/pss_strip.hpp"
#include "test_support.hpp"

using namespace hpc;

namespace {

// Padding rows hold large scores: a strip that used them would change the result.
std::vector<int32_t> transposed(const QueryProfile& p) {
  const uint32_t stride = pss_profile_stride(p.length);
  std::vector<int32_t> t(size_t(stride) * kAlphabetSize, 1000);
  for (uint32_t i = 0; i < p.length; ++i)
    for (int c = 0; c < kAlphabetSize; ++c) t[size_t(c) * stride + i] = p(i, uint8_t(c));
  return t;
}

// Scores `profile` against `copies` interleaved copy-fastest, each through the strip code.
std::vector<int32_t> strip_scores(const QueryProfile& profile, const std::vector<std::vector<uint8_t>>& copies,
                                  GapCosts g) {
  const uint32_t stride = uint32_t(copies.size()), n = uint32_t(copies.front().size());
  std::vector<uint8_t> interleaved(size_t(n) * stride);
  for (uint32_t c = 0; c < stride; ++c)
    for (uint32_t j = 0; j < n; ++j) interleaved[size_t(j) * stride + c] = copies[c][j];
  std::vector<int32_t> bh(interleaved.size(), 12345), bf(interleaved.size(), -777);  // garbage: must be overwritten
  const std::vector<int32_t> prof_t = transposed(profile);
  std::vector<int32_t> out(stride);
  for (uint32_t c = 0; c < stride; ++c)
    out[c] = pss_strip_score(prof_t.data(), profile.length, pss_profile_stride(profile.length), interleaved.data() + c,
                             n, stride, g.open + g.extend, g.extend, bh.data() + c, bf.data() + c);
  return out;
}

}  // namespace

TEST(PssStrip, EqualsProfileReferenceAroundStripHeights) {
  const SequenceSet db = read_fasta(test::data_path("balifam2000.fa"));
  const ScoreMatrix m = load_matrix("BLOSUM62");
  const SeqView subject = db.view(11);
  for (GapCosts g : {GapCosts{11, 1}, GapCosts{5, 2}, GapCosts{0, 1}}) {
    for (uint32_t qlen : {1u, 2u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, db.length(3)}) {
      const SeqView q{db.view(3).data, std::min(qlen, db.length(3))};
      const QueryProfile prof = QueryProfile::from_matrix(q, m);
      std::vector<std::vector<uint8_t>> copies;
      for (uint32_t k = 0; k < 5; ++k) {
        copies.emplace_back(subject.length);
        permute_subject(subject, 42, 11, k, copies.back().data());
      }
      copies.emplace_back(subject.data, subject.data + subject.length);  // the real subject too
      const std::vector<int32_t> got = strip_scores(prof, copies, g);
      for (size_t c = 0; c < copies.size(); ++c)
        EXPECT_EQ(got[c], profile_reference_score(prof, {copies[c].data(), uint32_t(copies[c].size())}, g))
            << "qlen " << q.length << " copy " << c << " gaps " << g.open << "/" << g.extend;
    }
  }
}

TEST(PssStrip, EqualsProfileReferenceWithRandomProfiles) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> score(-12, 14), letter(0, 19), len(1, 90);
  for (int trial = 0; trial < 40; ++trial) {
    QueryProfile prof;
    prof.length = uint32_t(len(rng));
    prof.scores.resize(size_t(prof.length) * kAlphabetSize);
    for (int32_t& s : prof.scores) s = score(rng);
    std::vector<std::vector<uint8_t>> copies(3, std::vector<uint8_t>(len(rng)));
    for (auto& c : copies)
      for (uint8_t& r : c) r = uint8_t(letter(rng));
    const GapCosts g{trial % 12, 1 + trial % 3};
    const std::vector<int32_t> got = strip_scores(prof, copies, g);
    for (size_t c = 0; c < copies.size(); ++c)
      ASSERT_EQ(got[c], profile_reference_score(prof, {copies[c].data(), uint32_t(copies[c].size())}, g))
          << "trial " << trial << " copy " << c;
  }
}
