#pragma once
// Host-side view of the Smith-Waterman score kernels (kernels/cuda/sw_kernels.cu).
#include <cuda_runtime.h>

#include <cstdint>

namespace hpc::cuda {

// The database as uploaded: residues of all targets back to back in by_length order.
struct DeviceDb {
  const uint8_t* residues = nullptr;
  const uint64_t* offsets = nullptr;  // per by_length position
  const uint32_t* lengths = nullptr;  // per by_length position
  const uint32_t* file_index = nullptr;  // by_length itself: position -> target index (file order)
};

// One tile's queries, back to back.
struct DeviceQueries {
  const uint8_t* residues = nullptr;
  const uint32_t* offsets = nullptr;
  const uint32_t* lengths = nullptr;
};

// The tile's partition: positions [begin, begin + size) of by_length.
struct Partition {
  uint32_t begin = 0;
  uint32_t size = 0;
};

// A block's unit of work in the packed kernel: kBlockThreads consecutive subject pairs
// (pair k = partition positions 2k and 2k+1) against one query of the tile.
struct WorkUnit {
  uint32_t query;       // slot in the tile's query list
  uint32_t first_pair;
};

constexpr int kBlockThreads = 128;
constexpr int kPackedTableBytes = 24 * 25 * 25 * 4;  // query letter x (a, b) subject pair

struct GapConsts {
  int open_extend;  // open + extend
  int extend;
};

// Persistent packed kernel: scores[q * part.size + p] for every query slot q and position p
// of the partition. Lanes whose running maximum reached `overflow_limit` get score -1 and
// their index is appended to overflow_list (never a saturated score).
// `temp` holds grid_threads x max_query_len uint2 of boundary columns.
void launch_search16(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs,
                     const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter,
                     const uint32_t* packed_table, GapConsts gaps, int overflow_limit, uint2* temp,
                     int32_t* scores, uint32_t* overflow_list, uint32_t* overflow_count);

// Exact 32-bit kernel, one thread per listed index (q * part.size + p); writes scores[index].
// `temp` holds n x max_query_len uint2.
void launch_rescore32(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, const int32_t* table32, GapConsts gaps, uint2* temp, int32_t* scores);

// keys[q * part.size + p] = score << 32 | ~target, so a descending sort gives scored_target_order.
void launch_make_keys(cudaStream_t stream, DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                      uint64_t* keys);

// Occupancy of the packed kernel (blocks per SM at kBlockThreads threads and its shared memory).
int search16_blocks_per_sm();

}  // namespace hpc::cuda
