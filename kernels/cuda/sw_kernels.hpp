#pragma once
// Host-side view of the Smith-Waterman score kernels (kernels/cuda/sw_kernels.cu).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/top_hit_key.hpp"
#include "kernels/end_score_fit.hpp"
#include "src/core/scoring.hpp"

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

// The tile's queries in pairs for the query-pair kernel: pair k's rows are
// rows[offsets[k] .. + lengths[k]), row i = (letter of query a at i) x 25 + (letter of query
// b at i), the padding code past a query's end; slots[2k], slots[2k + 1]: the two queries'
// slots in the tile's query list (kNoQuery for the empty half of an odd count).
struct DeviceQueryPairs {
  const uint16_t* rows = nullptr;
  const uint32_t* offsets = nullptr;
  const uint32_t* lengths = nullptr;
  const uint32_t* slots = nullptr;
};
constexpr uint32_t kNoQuery = 0xFFFFFFFFu;

// The same query pairs as per-pair profiles for the row-group kernel, which steps R =
// kRowsPerGroup query rows at once: pair k's profile is groups[k] x 25 entries of R
// words from profile[25 * row_offsets[k]]; word q of entry (g, c) holds, for subject letter c
// (the padding code 24 included), the substitution scores of query row R g + q, a Packed16 of
// (query a, query b) with the table's "+ open + extend" folded in. Rows past a query's end
// (the padding up to a multiple of R included) score as padding. launch_build_row_groups
// writes the profiles from the pairs' rows (DeviceQueryPairs layout, each pair's rows padded
// to a multiple of R, so row_offsets[k] is one too).
struct DeviceQueryPairProfiles {
  const uint32_t* profile = nullptr;
  const uint32_t* row_offsets = nullptr;
  const uint32_t* groups = nullptr;
  const uint32_t* slots = nullptr;
};
constexpr int kRowsPerGroup = 4;

// A block's unit of work in a packed kernel. Subject-pair kernel: kBlockThreads consecutive
// subject pairs (pair k = partition positions 2k and 2k+1) against query slot `query`.
// Query-pair kernel: kBlockThreads consecutive subjects from position `first_pair` against
// query pair `query`.
struct WorkUnit {
  uint32_t query;
  uint32_t first_pair;
};

constexpr int kBlockThreads = 128;
constexpr int kPackedTableBytes = 24 * 25 * 25 * 4;     // query letter x (a, b) subject pair
constexpr int kQueryPairTableBytes = 25 * 25 * 25 * 4;  // (a, b) query letters x subject letter
// Shared memory of the row-group kernel: one query pair's profile of up to 640 query rows;
// longer pairs are staged 640 rows at a time.
constexpr int kPairProfileBytes = 64000;
constexpr uint32_t kMaxProfileRows = kPairProfileBytes / (25 * 4);

struct GapConsts {
  int open_extend;  // open + extend
  int extend;
};

// Global and semiglobal alignment in the packed 16-bit subject-pair kernel (all-vs-all): the lanes
// that this fit rejects (kernels/end_score_fit.hpp, its floor the F sentinel Packed16::kNegInf)
// are set aside for the exact kernel, as overflowing local lanes are. Global's lower bound, the
// border's charge, covers semiglobal's.
EndScoreFit packed_end_score_fit(AlignMode mode, int open, int extend, int max_score);

// Persistent packed kernel: scores[q * part.size + p] for every query slot q and position p
// of the partition. Lanes whose running maximum reached `overflow_limit` get score -1 and
// their index is appended to overflow_list (never a saturated score). So do, without being
// run, the lanes whose subject makes the thread's work (query rows x subject length) reach
// `long_cells`: one thread would hold the launch's tail for them (a 100,000-residue self-hit
// is 10^10 cells), and the exact rescoring runs them stripe by stripe on many blocks.
// `temp` holds grid_threads x max_query_len uint2 of boundary columns.
void launch_search16(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs,
                     const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter,
                     const uint32_t* packed_table, GapConsts gaps, int overflow_limit, uint64_t long_cells,
                     uint2* temp, int32_t* scores, uint32_t* overflow_list, uint32_t* overflow_count,
                     EndScoreFit end_fit = {});  // mode Local: local scores

// The same scores from the query-pair kernel (two queries per thread, one subject).
void launch_search16q(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueryPairs qp,
                      const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter, const uint32_t* pair_table,
                      GapConsts gaps, int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores,
                      uint32_t* overflow_list, uint32_t* overflow_count);

// The same scores from the row-group kernel (two queries per thread as above, R query rows
// per step from the pair's profile in shared memory, kMaxProfileRows rows at a time);
// `temp` holds grid_threads x (longest pair's rows rounded up to R) uint2.
void launch_search16p(int grid_blocks, cudaStream_t stream, DeviceDb db, Partition part, DeviceQueryPairProfiles pp,
                      const WorkUnit* units, uint32_t n_units, uint32_t* unit_counter, GapConsts gaps,
                      int overflow_limit, uint64_t long_cells, uint2* temp, int32_t* scores,
                      uint32_t* overflow_list, uint32_t* overflow_count);

// profile[25 * i + ...]: the entries of rows i (n_rows in all, a multiple of kRowsPerGroup) as
// DeviceQueryPairProfiles lays them out, from rows[i] (query pair letters a x 25 + b) and the
// query-pair table.
void launch_build_row_groups(cudaStream_t stream, const uint16_t* rows, uint32_t n_rows, const uint32_t* pair_table,
                             uint32_t* profile);

// Pairs the exact kernel leaves to the stripe tickets (traceback_kernels.hpp's launch_tb_ends):
// at least min_cells cells within the stripe kernels' int32 range (tb_fits_int32 of the gap
// costs and the matrix's largest |score|); their indices are appended to list at (*count)++.
// min_cells = UINT64_MAX: none.
struct LongPairs {
  uint64_t min_cells = UINT64_MAX;
  int open = 0, extend = 0, max_abs_score = 0;
  uint32_t* list = nullptr;
  uint32_t* count = nullptr;
};

// Exact 32-bit kernel, one thread per listed index (q * part.size + p); writes scores[index]
// but for the pairs it sets aside as long. `temp` holds n x max_query_len uint2.
void launch_rescore32(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, const int32_t* table32, GapConsts gaps, uint2* temp, int32_t* scores,
                      LongPairs long_pairs, AlignMode mode = AlignMode::Local);

// keys[q * part.size + p] = key.encode(score, target) (top_hit_key.hpp): a descending sort
// gives scored_target_order.
template <class Key>
void launch_make_keys(cudaStream_t stream, DeviceDb db, Partition part, uint32_t n_queries, const int32_t* scores,
                      TopHitKey<Key> key, Key* keys);

// Occupancy of the packed kernels (blocks per SM at kBlockThreads threads and their shared memory).
int search16_blocks_per_sm();
int search16q_blocks_per_sm();
int search16p_blocks_per_sm();

}  // namespace hpc::cuda
