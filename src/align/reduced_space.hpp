#pragma once
// Alignments in bounded memory that are IDENTICAL to reference_align (same score, same
// coordinates, same CIGAR): the fallback for pairs whose 4-bit traceback matrix does not
// fit the memory a backend grants one pair.
//
// Why not Hirschberg / Myers-Miller: their divide-and-conquer picks a midpoint on the
// middle row by a max over forward+backward scores; with ties (common with integer
// matrices) the midpoint it picks need not lie on the path the tie rule's traceback walks,
// so the CIGAR can differ even though the score is the same. Instead we use checkpointed
// traceback (Grice, Hughey & Speck, CABIOS 1997 "Reduced space sequence alignment"): the
// forward pass keeps the DP state (H and F rows) at a few checkpoint rows only; the walk
// back then recomputes one band of rows between two checkpoints at a time, storing its
// 4-bit direction cells, and walks through it. The recomputed cells are bit-for-bit the
// cells of the full matrix (same recurrence, same start state), so every tie is decided as
// reference_align decides it. Bands too large for the budget are cut again recursively.
// Memory: at most budget_bytes when the budget holds a few dozen rows of state (16 bytes per
// column each); never less than two checkpoint rows and a band of one row. Time: ~2-3x the cells of
// the matrix (one pass to find the end cell, one per recursion level, and the bands).
#include <cstdint>

#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct ReducedSpaceStats {
  int depth = 0;                  // recursion levels used (0: one band held the whole path)
  uint64_t recomputed_cells = 0;  // cells computed after the score pass
  uint64_t peak_bytes = 0;        // largest traceback band + checkpoints held at once
};

Alignment reduced_space_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g,
                              uint64_t budget_bytes, ReducedSpaceStats* stats = nullptr);

// Bytes the full 4-bit traceback of an m x n pair takes (what reference_align allocates at most).
inline uint64_t traceback_bytes(uint64_t m, uint64_t n) { return (m * n + 1) / 2; }

}  // namespace hpc
