#pragma once
// Device side of the CUDA all-vs-all engine: one pair per thread.
//   avsa_fill: Gotoh over the pair (reference.cpp's recurrences, tie decisions and end-cell
//     rule), optionally storing each cell's 4 direction bits (bits 0-1 source of H: zero,
//     diagonal, up, left; bit 2 E opened; bit 3 F opened), 8 cells per 32-bit word,
//     row-major with ceil(n/8) words per row, in the pair's own slice of `bits`.
//   avsa_walk: the traceback walk from the end cell (tie rules 2 and 3), writing the ops
//     end to start into the pair's slice of `ops` (room for m + n ops).
// H and F rows live in global scratch interleaved across the launch's pairs (row element j
// of pair p at j * npairs + p, (max_n + 1) x npairs of each), so neighbouring threads touch
// neighbouring words.
#include <cstdint>

namespace hpc::cuda {

struct AvsaPair {
  uint64_t q_off, t_off;  // first residue in the query / target residue arrays
  uint32_t m, n;          // lengths
  uint64_t bits_word;     // first 32-bit word of the pair's direction cells
  uint64_t ops_off;       // first byte of the pair's op buffer
};

struct AvsaResult {
  int32_t score;
  uint32_t end_i, end_j;        // end cell (tie rule 1)
  uint32_t start_i, start_j;    // where the walk stopped (0-based cell = residues before it)
  uint32_t op_count;            // ops written, end to start
};

enum : int { kAvsaLocal = 0, kAvsaGlobal = 1, kAvsaSemiGlobal = 2 };

constexpr int kAvsaAlphabet = 24;
constexpr int kAvsaThreads = 128;  // threads per block

void launch_avsa_fill(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs,
                      const int32_t* matrix /* device, 24 x 24 */, int32_t open, int32_t extend, int mode,
                      bool store_bits, uint32_t max_n, uint32_t* bits, int32_t* scratch, AvsaResult* results,
                      void* stream);
void launch_avsa_walk(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs, int mode,
                      const uint32_t* bits, char* ops, AvsaResult* results, void* stream);
// Resident threads per SM for avsa_fill (occupancy formula: blocks x kAvsaThreads).
int avsa_fill_threads_per_sm();

}  // namespace hpc::cuda
