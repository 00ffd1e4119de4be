#pragma once
// Hit rows for the tests of the result table, its merge and its run files: random rows with
// CIGARs of every op, and a comparison that names the first row that differs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "src/core/alignment.hpp"

namespace hpc::test {

inline Hit make_hit(uint32_t q, uint32_t t, int32_t score, double bits, double evalue, uint32_t qs, uint32_t ts,
                    const std::string& cigar) {
  const CigarStats s = cigar_stats(cigar);
  Hit h;
  h.query = q;
  h.target = t;
  h.bits = bits;
  h.evalue = evalue;
  h.aln.score = score;
  h.aln.cigar = cigar;
  h.aln.qstart = cigar.empty() ? 0 : qs;
  h.aln.tstart = cigar.empty() ? 0 : ts;
  h.aln.qend = cigar.empty() ? 0 : qs + s.query_span - 1;
  h.aln.tend = cigar.empty() ? 0 : ts + s.target_span - 1;
  return h;
}

// Random but reproducible hits with CIGARs of every op.
inline std::vector<Hit> random_hits(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> run(1, 30), op(0, 9);
  std::vector<Hit> hits;
  hits.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string cigar;
    const int ops = 1 + int(rng() % 5);
    for (int k = 0; k < ops; ++k) {
      const int o = op(rng);
      const char c = o < 6 ? '=' : o < 8 ? 'X' : o < 9 ? 'I' : 'D';
      cigar += std::to_string(run(rng)) + c;
    }
    hits.push_back(make_hit(uint32_t(rng() % 50), uint32_t(rng() % 100000), int32_t(rng() % 3000) - 5,
                            (rng() % 100000) / 97.0, std::ldexp(double(rng() % 1000 + 1), -int(rng() % 700)),
                            1 + rng() % 500, 1 + rng() % 5000, cigar));
  }
  return hits;
}

inline void expect_same_hits(const std::vector<Hit>& got, const std::vector<Hit>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(got[i].query, want[i].query);
    EXPECT_EQ(got[i].target, want[i].target);
    EXPECT_EQ(got[i].bits, want[i].bits);
    EXPECT_EQ(got[i].evalue, want[i].evalue);
    EXPECT_EQ(got[i].aln.score, want[i].aln.score);
    EXPECT_EQ(got[i].aln.qstart, want[i].aln.qstart);
    EXPECT_EQ(got[i].aln.qend, want[i].aln.qend);
    EXPECT_EQ(got[i].aln.tstart, want[i].aln.tstart);
    EXPECT_EQ(got[i].aln.tend, want[i].aln.tend);
    EXPECT_EQ(got[i].aln.cigar, want[i].aln.cigar);
    if (::testing::Test::HasFailure()) return;  // one broken row is enough to read
  }
}

}  // namespace hpc::test
