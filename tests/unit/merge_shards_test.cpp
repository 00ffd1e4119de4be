// `hpcalign merge`: shards' query numbers re-based past 2^31 and up to 2^32-1, never wrapped.
#include <gtest/gtest.h>

#include <cstdint>

#include "src/core/error.hpp"
#include "src/workloads/merge.hpp"

using namespace hpc;

TEST(MergeShards, QueryBasesPastTwoToThe31AreExact) {
  EXPECT_EQ(shard_query_base(0, 10), 0u);
  EXPECT_EQ(shard_query_base(uint64_t(1) << 31, 1000), uint32_t(1) << 31);
  EXPECT_EQ(shard_query_base(3'000'000'000, 1'000'000'000), 3'000'000'000u);
  // Numbers up to 2^32-2: 2^32-1 queries in all, as a database holds at most.
  EXPECT_EQ(shard_query_base(UINT32_MAX - 5, 5), UINT32_MAX - 5);
}

TEST(MergeShards, MoreQueriesThanAResultFileNumbersThrow) {
  // The cast re-based a 2e9-query shard after 3e9 queries onto numbers from 0 again.
  EXPECT_THROW(shard_query_base(3'000'000'000, 2'000'000'000), Error);
  EXPECT_THROW(shard_query_base(UINT32_MAX - 4, 5), Error);
  // Past 2^32 before the shard, the cast made its base 1.
  EXPECT_THROW(shard_query_base((uint64_t(1) << 32) + 1, 0), Error);
}
