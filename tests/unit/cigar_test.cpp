// src/core/alignment.cpp: figures derived from a CIGAR (= X I D, target is the reference);
// src/core/cigar_identity.hpp: the result tables' identity from it.
#include <gtest/gtest.h>

#include "src/core/alignment.hpp"
#include "src/core/cigar_identity.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

TEST(Cigar, CountsColumnsAndSpans) {
  const CigarStats s = cigar_stats("12=1X3=2I40=");
  EXPECT_EQ(s.length, 58u);
  EXPECT_EQ(s.matches, 55u);
  EXPECT_EQ(s.mismatches, 1u);
  EXPECT_EQ(s.gap_opens, 1u);
  EXPECT_EQ(s.query_span, 58u);
  EXPECT_EQ(s.target_span, 56u);
  EXPECT_DOUBLE_EQ(s.identity(), 55.0 / 58.0);
}

TEST(Cigar, EachGapRunOpensOnce) {
  const CigarStats s = cigar_stats("3=2D1I4=1D1D2X");
  EXPECT_EQ(s.gap_opens, 3u);  // 2D, 1I, then 1D1D is one run
  EXPECT_EQ(s.length, 14u);
  EXPECT_EQ(s.query_span, 10u);   // = X I
  EXPECT_EQ(s.target_span, 13u);  // = X D
  EXPECT_EQ(s.mismatches, 2u);
}

TEST(Cigar, EmptyAlignment) {
  const CigarStats s = cigar_stats("");
  EXPECT_EQ(s.length, 0u);
  EXPECT_EQ(s.identity(), 0.0);
}

TEST(Cigar, MalformedThrows) {
  for (const char* bad : {"=", "3", "3=X", "3Q", "5M", "12=1", "99999999999="}) EXPECT_THROW(cigar_stats(bad), Error) << bad;
}

TEST(Cigar, TableIdentityIsTheStatisticsIdentityAsAFloat) {
  for (const char* cigar : {"", "12=1X3=2I40=", "3=2D1I4=1D1D2X", "1X", "7=", "4294967295=1X", "4294967295=2=1X", "123456789=3D"})
    EXPECT_EQ(cigar_identity(cigar), float(cigar_stats(cigar).identity())) << cigar;
  for (const char* bad : {"=", "3", "3=X", "3Q", "5M", "12=1", "99999999999="}) EXPECT_THROW(cigar_identity(bad), Error) << bad;
}

}  // namespace
}  // namespace hpc
