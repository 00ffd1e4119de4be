// io/synthetic_database.cpp: the benchmarks' database generator. Determinism across machines
// follows from Philox (its known answers are checked in permute_test.cpp) and integer-only
// arithmetic; these tests check that arithmetic against floating point, the residue count,
// and the length and composition statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/synthetic_database.hpp"
#include "src/core/philox.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

TEST(SyntheticDatabase, FixedPointExp2MatchesStdExp2) {
  PhiloxStream rng(5, 0, 0, 0);
  for (int i = 0; i < 10000; ++i) {
    const uint32_t f = i < 2 ? uint32_t(i) * 0xFFFFFFFFu : rng.next();
    const double want = std::exp2(double(f) / 4294967296.0);
    EXPECT_NEAR(double(exp2_fraction_q31(f)) / 2147483648.0, want, 1e-7 * want) << f;
  }
}

TEST(SyntheticDatabase, LengthIsMedianTimesExpOfSdTimesIrwinHallZ) {
  std::array<uint32_t, 12> w;
  w.fill(0x80000000u);  // z = 0
  EXPECT_EQ(synthetic_length(w), 290u);
  w.fill(0);  // z = -6: 290 e^-3.72 = 7.0, clipped to the minimum
  EXPECT_EQ(synthetic_length(w), kSyntheticMinLength);
  PhiloxStream rng(9, 0, 0, 0);
  for (int i = 0; i < 20000; ++i) {
    double sum = 0;
    for (uint32_t& x : w) sum += (x = rng.next());
    const double z = sum / 4294967296.0 - 6.0;
    const double want = std::max(double(kSyntheticMinLength), 290.0 * std::exp(0.62 * z));
    EXPECT_NEAR(double(synthetic_length(w)), want, 1.0 + 1e-4 * want) << "z " << z;
  }
}

TEST(SyntheticDatabase, SameSeedSameSequencesAndTheRequestedResidues) {
  const SequenceSet a = synthetic_database(200000, 7), b = synthetic_database(200000, 7);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_TRUE(a.residues == b.residues);
  EXPECT_EQ(a.offsets, b.offsets);
  // At least the residues asked for; the last sequence is the one that crosses the total.
  EXPECT_GE(a.total_residues(), 200000u);
  EXPECT_LT(a.total_residues() - a.length(a.size() - 1), 200000u);
  EXPECT_EQ(a.ids.front(), "syn0");
  EXPECT_EQ(a.ids.back(), "syn" + std::to_string(a.size() - 1));
  // Sequence i depends on (seed, i) only: a smaller database is a prefix of a larger one.
  const SequenceSet small = synthetic_database(50000, 7);
  ASSERT_LT(small.size(), a.size());
  EXPECT_TRUE(std::equal(small.residues.begin(), small.residues.end(), a.residues.begin()));
  // Another seed, another database.
  const SequenceSet c = synthetic_database(200000, 8);
  EXPECT_FALSE(std::equal(c.residues.begin(), c.residues.begin() + 1000, a.residues.begin()));
  EXPECT_EQ(synthetic_database(1, 7).size(), 1u);
}

TEST(SyntheticDatabase, LengthsAndCompositionFollowSwissProt) {
  const SequenceSet db = synthetic_database(2000000, 1);
  std::vector<uint32_t> lengths;
  for (size_t i = 0; i < db.size(); ++i) lengths.push_back(db.length(i));
  std::sort(lengths.begin(), lengths.end());
  const double n = double(lengths.size()), mean = double(db.total_residues()) / n;
  // Log-normal(log 290, 0.62): median 290, mean 290 e^(0.62^2 / 2) = 351 (Irwin-Hall z: 351.2);
  // length sd ~240, so over ~5,700 sequences the standard errors are ~3 (mean) and ~4 (median).
  EXPECT_NEAR(lengths[lengths.size() / 2], 290.0, 15.0);
  EXPECT_NEAR(mean, 351.2, 12.0);
  EXPECT_GE(lengths.front(), kSyntheticMinLength);
  EXPECT_LT(lengths.back(), 11961u);  // 290 e^(0.62 * 6)
  // Each amino acid within 5 standard errors of its Swiss-Prot frequency; nothing else occurs.
  std::array<double, 24> count{};
  for (uint8_t r : db.residues) ++count[r];
  const double total = double(db.total_residues());
  for (int a = 0; a < 20; ++a) {
    const double p = kSwissProtFrequency[a] / 9989.0;
    EXPECT_NEAR(count[a] / total, p, 5 * std::sqrt(p * (1 - p) / total)) << "code " << a;
  }
  for (int a = 20; a < 24; ++a) EXPECT_EQ(count[a], 0) << "code " << a;
}

// `hpcalign makedb --synthetic` writes the same sequences as FASTA, gzip FASTA and HDF5.
TEST(SyntheticDatabase, MakedbWritesFastaGzipAndHdf5Alike) {
  const SequenceSet want = synthetic_database(30000, 3);
  for (const std::string name : {"syn.fa", "syn.fa.gz", "syn.h5"}) {
    const std::string path = test::temp_path(name);
    int status = -1;
    const std::string out = test::run_command(
        test::binary_path() + " makedb --synthetic --residues 3e4 --seed 3 -o " + path + " 2>&1", &status);
    ASSERT_EQ(status, 0) << out;
    const Database got = load_database(path);
    EXPECT_EQ(got.seqs.ids, want.ids) << name;
    EXPECT_TRUE(got.seqs.residues == want.residues) << name;
    EXPECT_EQ(got.seqs.offsets, want.offsets) << name;
  }
  int status = -1;
  test::run_command(test::binary_path() + " makedb --synthetic --residues 2.5 -o " + test::temp_path("x.fa") + " 2>&1",
                    &status);
  EXPECT_EQ(status, 2) << "a fractional residue count is a usage error";
}

}  // namespace
}  // namespace hpc
