#pragma once
// A database on one GPU, re-laid out in by_length order so that a partition (a range of
// positions in that order) is one contiguous range of residues. Built once per device and
// database and shared by every worker on that device: two MSV workers per GPU had each
// gathered and uploaded 207M residues (0.25 s before either could start).
#include <cstdint>
#include <memory>
#include <vector>

#include "io/database.hpp"
#include "kernels/cuda/device_buffer.hpp"

namespace hpc::cuda {

struct DeviceDatabase {
  int device = 0;
  DeviceBuffer<uint8_t> residues;    // in by_length order
  DeviceBuffer<uint64_t> offsets;    // n + 1: target p is residues[offsets[p], offsets[p + 1])
  DeviceBuffer<uint32_t> lengths;    // n
  DeviceBuffer<uint32_t> file_index; // n: by_length (position -> index in the file)
  // The lengths on the host too, in the same order: the hosts' per-target loops (a tile's MSV
  // cut test, its tjb codes) read them in order instead of a random offsets lookup a target.
  std::vector<uint32_t> host_lengths;
  // Positions (ascending) of the targets with codes past the kernels' rows (HMMER's U, O, J),
  // uploaded as '*': msv's hosts score them (kernels/cuda/msv_cuda.hpp).
  std::vector<uint32_t> past_the_rows;
  ~DeviceDatabase();
};

// The copy of `db` on `device`, uploaded by the first caller (it may make `device` the calling
// thread's current one; callers set theirs afterwards); later callers (other threads
// included) share it while any holder lives. `db` must outlive every holder.
std::shared_ptr<const DeviceDatabase> device_database(const Database& db, int device);

}  // namespace hpc::cuda
