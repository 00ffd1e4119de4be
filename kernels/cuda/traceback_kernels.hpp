#pragma once
// Host-side view of the GPU traceback kernels (kernels/cuda/traceback_kernels.cu): the passes of
// reference_align(mode, ...) (src/align/reference.cpp), each a sweep of a pair's columns in
// stripes of kTbStripe, a thread block a stripe at a time.
//
// Stripes are tickets of one work queue: every pair's stripes in order (pair 0's stripes 0..S0-1,
// then pair 1's ...), taken in that order by the blocks of a persistent grid. A stripe reads the
// boundary column its left neighbour writes, row by row as it is published, so the stripes of
// one pair run side by side on many multiprocessors as a wavefront (a 100,000-residue self-hit,
// 10^10 cells, took seconds a pass on one block), and short pairs are a ticket each. A ticket
// only waits for an earlier ticket, which a running block holds: no order of the blocks can
// deadlock.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/sw_kernels.hpp"
#include "src/core/scoring.hpp"

namespace hpc::cuda {

constexpr int kTbThreads = 128;                   // threads per block
constexpr int kTbCols = 8;                        // columns per thread: 8 nibbles = one 32-bit word per row
constexpr int kTbStripe = kTbThreads * kTbCols;   // columns per stripe
constexpr int kTbAlphabet = 24;                   // substitution table is kTbAlphabet x kTbAlphabet
constexpr int kTbNegInf = -(1 << 30);             // -infinity of the int32 arithmetic (see tb_fits_int32)

inline uint32_t tb_stripes(uint32_t cols) { return (cols + kTbStripe - 1) / kTbStripe; }

// One pair: query rows [0, m) at q_off and target columns [0, n) at t_off (offsets into the
// launch's query and target residues).
struct TbPair {
  uint64_t q_off = 0, t_off = 0;
  uint32_t m = 0, n = 0;
  uint64_t col_off = 0;   // the stripes' boundary columns: tb_stripes(n) x m int2 in the column buffer
  uint64_t bits_off = 0;  // trace: first 32-bit word of the direction nibbles
  uint64_t ops_off = 0;   // trace: first byte of the walk's ops (m + n bytes)
};

// A launch's work queue (see above), device pointers.
struct TbTickets {
  const uint32_t* first = nullptr;  // first ticket of pair k; first[n_pairs] = all tickets
  uint32_t n_pairs = 0;
  uint32_t total = 0;               // tickets of all pairs
  uint32_t* next = nullptr;         // the next ticket to take (0 at the launch)
  uint32_t* ready = nullptr;        // per ticket: rows of its boundary column published (0 at the launch)
};

// The host side of a work queue: lays out the pairs' stripes (sets each pair's col_off) and
// uploads the queue on `stream`; its buffers serve the next upload too.
class TbQueue {
 public:
  TbTickets upload(std::vector<TbPair>& pairs, cudaStream_t stream);
  uint64_t col_rows() const { return col_rows_; }  // int2 entries the column buffer needs
  uint32_t tickets() const { return tickets_; }

 private:
  uint64_t col_rows_ = 0;
  uint32_t tickets_ = 0;
  std::vector<uint32_t> first_host_;
  DeviceBuffer<uint32_t> first_;
  DeviceBuffer<uint32_t> counters_;  // [0] next, [1 + t] ticket t's ready rows
};

// fn(first, group) for consecutive groups of `pairs` whose stripes' boundary columns take at
// most `bytes` of device memory (a group holds at least one pair).
template <class Fn>
void for_each_tb_group(const std::vector<TbPair>& pairs, uint64_t bytes, Fn fn) {
  for (size_t first = 0; first < pairs.size();) {
    std::vector<TbPair> group;
    uint64_t used = 0;
    for (; first + group.size() < pairs.size(); ) {
      const TbPair& p = pairs[first + group.size()];
      const uint64_t need = uint64_t(tb_stripes(p.n)) * p.m * sizeof(int2);
      if (!group.empty() && used + need > bytes) break;
      group.push_back(p);
      used += need;
    }
    fn(first, group);
    first += group.size();
  }
}

// Pass 1's result for one stripe (the block's best H; tie rule 1 within the stripe).
struct TbPartial {
  int32_t score;
  uint32_t i, j;
};

// A pair's end cell and the rectangle holding its alignment.
struct TbEnd {
  int32_t score;   // best H (0: nothing aligned)
  uint32_t i, j;   // end cell, 1-based (tie rule 1)
  uint32_t rows, cols;  // rectangle ending at (i, j) that holds the path: start >= (i - rows + 1, j - cols + 1)
};

// Result of the trace and walk, in rectangle coordinates.
struct TbWalk {
  int32_t end_h;    // H at the rectangle's corner: must equal the locate score
  uint32_t i, j;    // where the walk stopped (cells consumed before it: i rows, j columns)
  uint32_t n_ops;   // ops written end to start: '=', 'X', 'I', 'D'
};

// Words of direction nibbles the trace kernel needs for a rows x cols rectangle.
inline uint64_t tb_bits_words(uint32_t rows, uint32_t cols) {
  return uint64_t(tb_stripes(cols)) * (uint64_t(rows) + kTbThreads - 1) * kTbThreads;
}

// Residues of a launch: queries and targets (the same buffer for the search's alignments).
struct TbResidues {
  const uint8_t* q = nullptr;
  const uint8_t* t = nullptr;
};

// Pass 1 (end cell, tie rule 1): ends[k] = {score, i, j} of every pair; rows and cols unset.
// Local and semiglobal: i = j = 0 where nothing aligns (score 0); global: {H(m, n), m, n}.
// `partial` holds one TbPartial a ticket.
void launch_tb_ends(cudaStream_t stream, AlignMode mode, TbResidues res, const TbPair* pairs, TbTickets tk,
                    const int32_t* matrix, int open_extend, int extend, int2* colbuf, TbPartial* partial, TbEnd* ends);
// Pass 2, local (the anchored backward pass): pairs[k] is the pair cut at its end cell (m = i, n = j),
// swept reversed; bounds[2k], bounds[2k + 1] (1 at the launch) become the largest i and j at
// which the alignment can start, counted back from the end cell, and score_of[k] its score.
void launch_tb_bounds(cudaStream_t stream, TbResidues res, const TbPair* pairs, TbTickets tk, const int32_t* matrix,
                      int open_extend, int extend, int2* colbuf, const TbEnd* score_of, uint32_t* bounds);
// Pass 3 over each rectangle (pairs describe the rectangles: local, from the start bounds to the
// end cell; semiglobal, from (1, 1) to the end cell; global, the whole pair), then the walk, a
// thread a pair, to a local start or the rectangle's border.
void launch_tb_trace(cudaStream_t stream, AlignMode mode, TbResidues res, const TbPair* pairs, TbTickets tk,
                     const int32_t* matrix, int open_extend, int extend, int2* colbuf, uint32_t* bits, char* ops,
                     TbWalk* out);

// scores[out_index[k]] = ends[k].score for k < n: pass 1's scores (launch_tb_ends) into a score
// tile, the exact rescoring of long pairs whose 16-bit lanes overflowed or that the packed
// kernels left aside, in every mode.
void launch_tb_scatter_scores(cudaStream_t stream, const TbEnd* ends, const uint32_t* out_index, uint32_t n,
                              int32_t* scores);

// The listed pairs of a score tile (index q * part.size + p) as TbPairs: query offset and length,
// target offset and length (the rescoring's list).
void launch_tb_places(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                      uint32_t n, TbPair* out);

// Pairs of at least this many cells go to the stripe kernels rather than to one thread or one
// warp: the packed score kernels leave them to pass 1 (launch_tb_ends) when their thread's work reaches
// it (or they overflow), and all-vs-all scores (global, semiglobal) and aligns (every mode) them
// through GpuTraceback. One thread's DP runs at
// ~0.1-0.2 GCUPS (scalar) or a few tens of millions of cells a second (packed, at full
// occupancy), a warp's fill at ~1 GCUPS: a 100,000-residue self-hit held one thread for minutes
// and one warp for ~10 s. 2^24 (a thread's ~0.3 s alone); HPCALIGN_CUDA_LONG_PAIR_CELLS sets it (tests).
uint64_t tb_long_pair_cells();

// Whether an m x n pair keeps the kernels' int32 arithmetic exact. -infinity is -2^30; every
// real value (a path from the border) stays within +-B, B = (m + n + 2) x (open + extend +
// max |s|), and every value derived from -infinity below -2^30 + B; with B < 2^29 both stay
// apart and nothing wraps, so each comparison decides as in the reference's int64.
__host__ __device__ inline bool tb_fits_int32(uint64_t m, uint64_t n, int open, int extend, int max_abs_score) {
  if (open < 0 || extend < 0) return false;
  const uint64_t step = uint64_t(open) + uint64_t(extend) + uint64_t(max_abs_score);
  return (m + n + 2) * step < (uint64_t(1) << 29);
}

}  // namespace hpc::cuda
