#pragma once
// MPI counts are ints. A message of more than INT_MAX bytes (a tile's rows sent inline by a
// rank that cannot see the run directory, src/workloads/tile_runs.hpp: tens of millions of
// hits with their CIGARs pass 2 GiB) had its byte count cast to int: MPI_Send then failed on a
// negative count, or past 4 GiB sent a message cut to the count's low 32 bits; and
// MPI_Get_count could not tell its size. So such a message goes as whole blocks of
// kMessageBlock bytes (an MPI contiguous type), padded to the last block: the wire format of
// what it carries ignores bytes after its payload. Messages within INT_MAX go as bytes.
#include <climits>
#include <cstdint>
#include <string>

namespace hpc {

constexpr uint64_t kMessageBlock = uint64_t(1) << 20;

// How a message goes: `count` elements of `block` bytes.
struct MessageShape {
  uint64_t block = 1;  // 1: plain bytes
  int count = 0;
  uint64_t bytes() const { return block * uint64_t(count); }  // with the padding
};

// MPI's limit on a count, and the block of a message past it (tests use small ones).
struct MessageLimits {
  uint64_t max_count = INT_MAX;
  uint64_t block = kMessageBlock;
};

// The shape of a message of `bytes` bytes. The shape of its padded length is the same one:
// the receiver, which learns only that length, reads it as it was sent. Throws when even
// max_count blocks cannot hold it.
MessageShape message_shape(uint64_t bytes, const MessageLimits& limits = {});

// `bytes` to rank `dest` under `tag` (padded to its shape; one MPI message).
void send_message(std::string bytes, int dest, int tag, const MessageLimits& limits = {});
// The next message from `source` (or MPI_ANY_SOURCE) under `tag`, whole (its padding too), by
// a matched probe: no other thread takes it in between. `from`: its sender.
std::string receive_message(int source, int tag, int* from = nullptr, const MessageLimits& limits = {});

}  // namespace hpc
