// mpi/large_message.hpp: messages past MPI's int count (2^31 and 2^32 bytes) keep every byte.
// Only the shapes are computed here (no MPI, no buffers): tests/scripts/mpi_*.sh send real ones.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

#include "mpi/large_message.hpp"
#include "src/core/error.hpp"

using namespace hpc;

namespace {

// What every shape must do: hold the message, fit an MPI count, pad less than a block, and read
// back as itself from its padded length (all the receiver learns).
void expect_sound(uint64_t bytes, const MessageLimits& limits = {}) {
  const MessageShape s = message_shape(bytes, limits);
  EXPECT_GE(s.count, 0) << bytes;
  EXPECT_LE(uint64_t(s.count), limits.max_count) << bytes;
  EXPECT_GE(s.bytes(), bytes) << bytes;
  EXPECT_LT(s.bytes() - bytes, s.block) << bytes;
  const MessageShape again = message_shape(s.bytes(), limits);
  EXPECT_EQ(again.block, s.block) << bytes;
  EXPECT_EQ(again.count, s.count) << bytes;
}

}  // namespace

TEST(MpiMessageShape, MessagesWithinAnIntCountGoAsBytes) {
  for (uint64_t bytes : {uint64_t(0), uint64_t(1), uint64_t(1) << 20, uint64_t(INT_MAX)}) {
    const MessageShape s = message_shape(bytes);
    EXPECT_EQ(s.block, 1u);
    EXPECT_EQ(uint64_t(s.count), bytes);
    expect_sound(bytes);
  }
}

TEST(MpiMessageShape, PastTwoGiBGoesInBlocksThatHoldEveryByte) {
  const uint64_t bytes = uint64_t(INT_MAX) + 1;  // 2^31: int(bytes) was negative
  const MessageShape s = message_shape(bytes);
  EXPECT_EQ(s.block, kMessageBlock);
  EXPECT_EQ(uint64_t(s.count), bytes / kMessageBlock);
  EXPECT_EQ(s.bytes(), bytes);
  expect_sound(bytes);
  expect_sound(bytes + 1);
}

TEST(MpiMessageShape, PastFourGiBNoCountWraps) {
  // int(2^32 + 5) was 5: a message cut to 5 bytes, and silently.
  const uint64_t bytes = (uint64_t(1) << 32) + 5;
  const MessageShape s = message_shape(bytes);
  EXPECT_EQ(s.block, kMessageBlock);
  EXPECT_EQ(uint64_t(s.count), (uint64_t(1) << 32) / kMessageBlock + 1);
  expect_sound(bytes);
  for (uint64_t gib : {3, 4, 5, 17, 100, 1000}) expect_sound(gib << 30 | 12345);
}

TEST(MpiMessageShape, SmallLimitsCutTheSameWay) {
  const MessageLimits limits{10, 4};
  EXPECT_EQ(message_shape(10, limits).block, 1u);
  const MessageShape s = message_shape(11, limits);
  EXPECT_EQ(s.block, 4u);
  EXPECT_EQ(s.count, 3);
  for (uint64_t bytes = 0; bytes <= 40; ++bytes) expect_sound(bytes, limits);
  EXPECT_THROW(message_shape(41, limits), Error);
}

TEST(MpiMessageShape, TooLargeForAnyMessageThrows) {
  EXPECT_THROW(message_shape(uint64_t(INT_MAX) * kMessageBlock + 1), Error);
  expect_sound(uint64_t(INT_MAX) * kMessageBlock);
}
