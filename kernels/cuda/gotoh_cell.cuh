#pragma once
// One Gotoh cell with src/align/reference.cpp's tie decisions, shared by the traceback
// kernels (search alignments, all-vs-all): E from the left, F from above, each opened
// when opening is at least as good as extending (>=), H = max(diagonal, E, F), clamped at
// 0 for local alignment.

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

}  // namespace hpc::cuda
