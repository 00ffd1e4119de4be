#pragma once
#include <cstdint>

// One Gotoh cell with src/align/reference.cpp's tie decisions, its direction bits and the
// traceback walk over them, shared by the traceback kernels (search alignments, all-vs-all):
// E from the left, F from above, each opened when opening is at least as good as extending
// (>=), H = max(diagonal, E, F), clamped at 0 for local alignment.

namespace hpc::cuda {

struct GotohCell {
  int h, d;     // H, and the diagonal candidate (H(i-1, j-1) + substitution)
  bool eo, fo;  // E / F opened at this cell
};

// e and f carry E along the row and F down the column (updated in place).
__device__ __forceinline__ GotohCell gotoh_cell(int h_left, int& e, int h_up, int& f, int diag, int sub, int oe,
                                                int ext, bool clamp) {
  GotohCell c;
  const int e_open = h_left - oe, e_ext = e - ext;
  c.eo = e_open >= e_ext;
  e = c.eo ? e_open : e_ext;
  const int f_open = h_up - oe, f_ext = f - ext;
  c.fo = f_open >= f_ext;
  f = c.fo ? f_open : f_ext;
  c.d = diag + sub;
  c.h = max(c.d, max(e, f));
  if (clamp) c.h = max(c.h, 0);
  return c;
}

// A cell's 4 direction bits, as reference.cpp packs them: bits 0-1 the source of H (zero,
// diagonal, up, left), bit 2 E opened here, bit 3 F opened here. `f` is the cell's F; a local
// alignment's H of 0 starts the alignment (tie rule 3).
enum : uint32_t { kSrcZero = 0, kSrcDiag = 1, kSrcUp = 2, kSrcLeft = 3, kEOpenBit = 4, kFOpenBit = 8 };
__device__ __forceinline__ uint32_t direction_bits(const GotohCell& c, int f, bool local) {
  // Selects from the lowest priority up (left, up, diagonal, zero): no branches in a cell.
  uint32_t src = c.h == f ? kSrcUp : kSrcLeft;
  src = c.h == c.d ? kSrcDiag : src;
  if (local) src = c.h == 0 ? kSrcZero : src;
  return src | (c.eo ? kEOpenBit : 0u) | (c.fo ? kFOpenBit : 0u);
}

// reference.cpp's traceback walk (tie rules 2 and 3) from cell (i, j) (1-based) until a local
// start or a border: bits(i, j) gives a cell's direction bits, emit(op) takes the ops end to
// start ('=' 'X' 'I' 'D'). Leaves (i, j) at the cell where the walk stopped.
template <class Bits, class Emit>
__device__ __forceinline__ void gotoh_walk(uint32_t& i, uint32_t& j, const uint8_t* q, const uint8_t* t, Bits bits,
                                           Emit emit) {
  enum { InH, InE, InF } state = InH;  // InE: moving left, InF: moving up
  while (i > 0 && j > 0) {
    const uint32_t b = bits(i, j);
    if (state == InH) {
      const uint32_t src = b & 3;
      if (src == kSrcZero) break;
      if (src == kSrcDiag) {
        emit(q[i - 1] == t[j - 1] ? '=' : 'X');
        --i, --j;
      } else {
        state = src == kSrcUp ? InF : InE;
      }
    } else if (state == InF) {
      emit('I');
      --i;
      if (b & kFOpenBit) state = InH;
    } else {
      emit('D');
      --j;
      if (b & kEOpenBit) state = InH;
    }
  }
}

}  // namespace hpc::cuda
