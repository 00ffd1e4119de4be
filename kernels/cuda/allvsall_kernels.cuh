#pragma once
// Device side of the CUDA all-vs-all engine.
//   avsa_fill: a group of G lanes per pair (G = 8, 16 or 32 by the target's length, so a short
//     target does not leave most of a warp idle; a warp holds 32 / G pairs). The target's
//     columns are cut into passes of C x G (C = avsa_lane_cols per lane, in registers); the query
//     rows stream past as a wavefront (lane l of the group works on row s - l at step s),
//     each lane handing the H and E of its last column to the next lane by shuffle, and the
//     group's last lane to the next pass through a per-pair strip of (m + 1) entries (only
//     32-lane groups take more than one pass). Gotoh with reference.cpp's recurrences, tie
//     decisions and end-cell rule, compiled per mode; optionally each cell's 4 direction
//     bits (H not from the diagonal, H not from F, E opened, F opened; see avsa_cell):
//     one 32-bit word per lane and step, so a group's stores at a step are G consecutive
//     words (coalesced). When each pair's exact local score is known (the score pass's), the
//     fill stops at the end row: the end cell is the first cell whose H reaches that score,
//     and the walk reads no row below it (kept pairs of a screen end ~15% of the rows early).
//     With known local scores the fill can store, instead of the 4 direction bits, one byte a
//     cell (kAvsaHeights): H modulo 128 and a bit "H is not F", about half the ALU work per
//     cell. The walk tracks H exactly and decides the diagonal and the gap opens from the
//     neighbours' H modulo 128, which is exact while the differences it tests stay below 128
//     (avsa_heights_exact), and up against left from the bit.
//   avsa_walk: the traceback walk from the end cell (tie rules 2 and 3; H tracked from the
//     score, so a local walk stops at H = 0 without a stored bit), one thread per
//     pair. It writes the CIGAR text itself (runs are formed as the walk goes, the text
//     filled right to left in the pair's scratch slice of avsa_cigar_bytes), then moves it
//     to the next free bytes of a packed text buffer, so only the text comes back to the
//     host (a screen returns millions of CIGARs; ops were ~4x more bytes, and run-length
//     coding them on the host cost more than the kernels).
#include <cuda_runtime.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>

namespace hpc::cuda {

constexpr uint32_t kAvsaLaneCols = 8;  // columns a lane holds at most: one 32-bit word of 4-bit cells

// Lanes per pair: the narrowest group whose one pass covers the target, 32 (several passes)
// beyond 256 columns.
__host__ __device__ inline uint32_t avsa_group(uint32_t n) { return n <= 64 ? 8 : n <= 128 ? 16 : 32; }
__host__ __device__ inline uint32_t avsa_passes(uint32_t n) {
  const uint32_t cols = avsa_group(n) * kAvsaLaneCols;
  return (n + cols - 1) / cols;
}
// Columns per lane: 8, except that a 32-lane pair (one per warp) takes the fewest (5 to 8)
// that cover its target in the same passes, so a 150-column target fills 160 columns, not 256.
__host__ __device__ inline uint32_t avsa_lane_cols(uint32_t n) {
  if (avsa_group(n) < 32) return kAvsaLaneCols;
  const uint32_t per_pass = 32 * avsa_passes(n);
  return (n + per_pass - 1) / per_pass;
}
// What the fill keeps for the walk: nothing (scores), 4 direction bits a cell (one 32-bit word
// per lane and step), or byte heights (one uint2 of 8 cells per lane and step; local mode with
// every pair's score known, under avsa_heights_exact).
enum AvsaTrace : int { kAvsaNoTrace = 0, kAvsaDirBits = 1, kAvsaHeights = 2 };
// The byte heights' walk is exact when what it compares modulo 128 differs by less than 128:
// H(i, j) - H(i - 1, j - 1) - s(i, j) lies in [0, max s - min s] (an optimal path into (i, j)
// gives one into (i - 1, j - 1) at most max s lower), and a gap's value minus its neighbour's
// H - open - extend in [0, open] (E and F never exceed H).
inline bool avsa_heights_exact(int32_t min_sub, int32_t max_sub, int32_t open, int32_t extend) {
  return max_sub - min_sub < 128 && open >= 0 && open < 128 && extend >= 0;
}
// 32-bit words of an m x n pair's trace: per pass, (m + G - 1) steps x G lanes, a word or a
// uint2 each.
inline uint64_t avsa_trace_words(uint32_t m, uint32_t n, int trace) {
  const uint32_t g = avsa_group(n);
  const uint64_t lane_steps = uint64_t(avsa_passes(n)) * (m + g - 1) * g;
  return trace == kAvsaHeights ? 2 * lane_steps : trace == kAvsaDirBits ? lane_steps : 0;
}
// Strip entries a pair needs (0 for a single pass).
inline uint64_t avsa_strip_entries(uint32_t m, uint32_t n) { return avsa_passes(n) > 1 ? uint64_t(m) + 1 : 0; }

struct AvsaPair {
  uint64_t q_off, t_off;  // first residue in the query / target residue arrays
  uint32_t m, n;          // lengths
  uint64_t bits_word;     // first 32-bit word of the pair's trace (direction bits or heights)
  uint64_t text_off;      // first byte of the pair's CIGAR scratch (avsa_cigar_bytes)
  uint64_t strip_off;     // first entry of the pair's pass-boundary strip
  int32_t score;          // the exact score when known (local fills with known_scores)
};

struct AvsaResult {
  int32_t score;
  uint32_t end_i, end_j;        // end cell (tie rule 1)
  uint32_t start_i, start_j;    // where the walk stopped (0-based cell = residues before it)
  uint32_t cigar_len;           // CIGAR text bytes (leading end gaps of global included)
  uint64_t cigar_off;           // where the text starts in the packed text buffer
};

// Bytes a CIGAR of an m x n pair can take: at most m + n ops, each run of L ops written as
// digits(L) + 1 <= 2L characters.
__host__ __device__ inline uint64_t avsa_cigar_bytes(uint32_t m, uint32_t n) { return 2 * (uint64_t(m) + n); }

enum : int { kAvsaLocal = 0, kAvsaGlobal = 1, kAvsaSemiGlobal = 2 };

constexpr int kAvsaAlphabet = 24;
constexpr int kAvsaThreads = 128;  // threads per block (4 pairs of avsa_fill)

// The pairs of a fill launch in group order: first the 32-lane pairs, then the 16-lane, then
// the 8-lane ones (avsa_group of the target length); within a group, pairs of one warp run
// as many steps as the longest query among them, so similar query lengths should be adjacent.
// A target length's place in that order: 0 for 32-lane pairs, 1 for 16-lane, 2 for 8-lane.
inline uint32_t avsa_group_rank(uint32_t n) {
  const uint32_t g = avsa_group(n);
  return g == 32 ? 0 : g == 16 ? 1 : 2;
}
struct AvsaFillShape {
  uint32_t g32 = 0, g16 = 0, g8 = 0;
  uint32_t pairs() const { return g32 + g16 + g8; }
  void add(uint32_t n) {  // one more pair of target length n
    const uint32_t rank = avsa_group_rank(n);
    ++(rank == 0 ? g32 : rank == 1 ? g16 : g8);
  }
};
void launch_avsa_fill(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, AvsaFillShape shape,
                      const int32_t* matrix /* device, 24 x 24 */, int32_t open, int32_t extend, int mode,
                      int trace, bool known_scores, uint32_t* bits, uint2* strip, AvsaResult* results,
                      void* stream);
// `scratch`: the pairs' slices (text_off); `text`: the packed CIGARs, with *text_used (device,
// zero before the launch) the bytes taken; sized like the scratch, which bounds them.
void launch_avsa_walk(const uint8_t* qres, const uint8_t* tres, const AvsaPair* pairs, uint32_t npairs, int mode,
                      int trace, const int32_t* matrix /* device, 24 x 24 */, int32_t open, int32_t extend,
                      const uint32_t* bits, char* scratch, char* text, unsigned long long* text_used,
                      AvsaResult* results, void* stream);
// 32-lane pairs in flight per SM for avsa_fill (occupancy formula: blocks x warps per block).
int avsa_fill_pairs_per_sm();

}  // namespace hpc::cuda
