#pragma once
// HMMER's striped float DP matrix (P7_OMX) for Forward, Backward, posterior decoding and
// optimal accuracy: per row i, 3Q vectors (M, D, I of segment q at [3q], [3q+1], [3q+2])
// and six special cells (E, N, J, B, C and the row's scale factor). A parser matrix keeps a
// single vector row (rows are overwritten in place, as HMMER's parsers do) but every special
// row; a full matrix keeps rows 0..L.
#include <vector>

#include "kernels/cpu/simd_intrinsics.hpp"

// std::vector<__m128> drops the type's alignment attribute from the template argument; the
// allocator still aligns to 16 bytes on the platforms we build for.
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace hpc::hmm {

enum XCell { kCellE = 0, kCellN, kCellJ, kCellB, kCellC, kCellScale, kXCells };

struct FbMatrix {
  int M = 0, Q = 0, L = 0;
  bool full = true;
  bool has_own_scales = true;
  float totscale = 0.0f;
  std::vector<__m128> dp;
  std::vector<float> xmx;

  // Sizes the matrix for a model of Q segments and a target of length L.
  void resize(int M_, int Q_, int L_, bool full_) {
    M = M_, Q = Q_, L = L_, full = full_;
    const size_t rows = full ? size_t(L) + 1 : 1;
    if (dp.size() < rows * 3 * Q) dp.resize(rows * 3 * Q);
    if (xmx.size() < (size_t(L) + 1) * kXCells) xmx.resize((size_t(L) + 1) * kXCells);
  }
  __m128* row(int i) { return dp.data() + (full ? size_t(i) : 0) * 3 * Q; }
  const __m128* row(int i) const { return dp.data() + (full ? size_t(i) : 0) * 3 * Q; }
  float& x(int i, int cell) { return xmx[size_t(i) * kXCells + cell]; }
  float x(int i, int cell) const { return xmx[size_t(i) * kXCells + cell]; }
};

inline __m128& mmo(__m128* row, int q) { return row[3 * q]; }
inline __m128& dmo(__m128* row, int q) { return row[3 * q + 1]; }
inline __m128& imo(__m128* row, int q) { return row[3 * q + 2]; }
inline __m128 mmo(const __m128* row, int q) { return row[3 * q]; }
inline __m128 dmo(const __m128* row, int q) { return row[3 * q + 1]; }
inline __m128 imo(const __m128* row, int q) { return row[3 * q + 2]; }

}  // namespace hpc::hmm
