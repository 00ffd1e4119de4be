#pragma once
// Host-side view of the GPU traceback kernels (kernels/cuda/traceback_kernels.cu): the three
// passes of reference_align(Local, ...) (src/align/reference.cpp), one thread block per pair.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/sw_kernels.hpp"

namespace hpc::cuda {

constexpr int kTbThreads = 128;                   // threads per block (per pair)
constexpr int kTbCols = 8;                        // columns per thread: 8 nibbles = one 32-bit word per row
constexpr int kTbStripe = kTbThreads * kTbCols;   // columns per sweep of the block
constexpr int kTbAlphabet = 24;                   // substitution table is kTbAlphabet x kTbAlphabet
constexpr int kTbNegInf = -(1 << 30);             // -infinity of the int32 arithmetic (see tb_fits_int32)

// One pair: query rows [0, m) and target columns [0, n) as offsets into the batch's residues.
struct TbPair {
  uint64_t q_off = 0, t_off = 0;
  uint32_t m = 0, n = 0;
  uint64_t col_off = 0;   // boundary column between sweeps: m int2 in the column buffer
  uint64_t bits_off = 0;  // locate: unused; trace: first 32-bit word of the direction nibbles
  uint64_t ops_off = 0;   // trace: first byte of the walk's ops (m + n bytes)
};

// Result of the locate kernel (passes 1 and 2).
struct TbEnd {
  int32_t score;   // best H (0: nothing aligned)
  uint32_t i, j;   // end cell, 1-based (tie rule 1)
  uint32_t rows, cols;  // rectangle ending at (i, j) that holds the path: start >= (i - rows + 1, j - cols + 1)
};

// Result of the trace kernel (pass 3 and the walk), in rectangle coordinates.
struct TbWalk {
  int32_t end_h;    // H at the rectangle's corner: must equal the locate score
  uint32_t i, j;    // where the walk stopped (cells consumed before it: i rows, j columns)
  uint32_t n_ops;   // ops written end to start: '=', 'X', 'I', 'D'
};

// Words of direction nibbles the trace kernel needs for a rows x cols rectangle.
inline uint64_t tb_bits_words(uint32_t rows, uint32_t cols) {
  const uint64_t sweeps = (uint64_t(cols) + kTbStripe - 1) / kTbStripe;
  return sweeps * (uint64_t(rows) + kTbThreads - 1) * kTbThreads;
}

// Passes 1 and 2 for every pair (grid = n pairs): the end cell and the start bounds.
void launch_tb_locate(cudaStream_t stream, const uint8_t* residues, const TbPair* pairs, uint32_t n,
                      const int32_t* matrix, int open_extend, int extend, int2* colbuf, TbEnd* out);
// Pass 3 and the walk for every pair (pairs describe the rectangles).
void launch_tb_trace(cudaStream_t stream, const uint8_t* residues, const TbPair* pairs, uint32_t n,
                     const int32_t* matrix, int open_extend, int extend, int2* colbuf, uint32_t* bits,
                     char* ops, TbWalk* out);

// Pass 1's best H alone, a block per listed index (q * part.size + p) of a score tile: the
// exact rescoring of long pairs whose 16-bit lanes overflowed (the one-thread-a-pair kernel
// takes minutes on a 100,000-residue self-hit). Writes scores[index]. `colbuf` holds
// n x col_stride int2, col_stride >= every listed query's length; each pair must pass
// tb_fits_int32.
void launch_tb_rescore(cudaStream_t stream, DeviceDb db, Partition part, DeviceQueries qs, const uint32_t* list,
                       uint32_t n, const int32_t* matrix, int open_extend, int extend, int2* colbuf,
                       uint64_t col_stride, int32_t* scores);

// Whether an m x n pair keeps the kernels' int32 arithmetic exact. -infinity is -2^30; every
// real value (a path from the border) stays within +-B, B = (m + n + 2) x (open + extend +
// max |s|), and every value derived from -infinity below -2^30 + B; with B < 2^29 both stay
// apart and nothing wraps, so each comparison decides as in the reference's int64.
inline bool tb_fits_int32(uint64_t m, uint64_t n, int open, int extend, int max_abs_score) {
  if (open < 0 || extend < 0) return false;
  const uint64_t step = uint64_t(open) + uint64_t(extend) + uint64_t(max_abs_score);
  return (m + n + 2) * step < (uint64_t(1) << 29);
}

}  // namespace hpc::cuda
