#pragma once
// Per-ISA entry points of the strip aligner (internal to kernels/cpu). Each lives in its own
// translation unit compiled for its ISA (strip_align_avx2.cpp, strip_align_sse2.cpp);
// strip_align.cpp picks one at run time.
#include <cstdint>
#include <limits>
#include <utility>

#include "src/core/scoring.hpp"

namespace hpc::strip_detail {

constexpr int kLanes = 8;  // query rows per strip: one int32 lane each
constexpr int32_t kNegInf = std::numeric_limits<int32_t>::min() / 4;  // room to subtract without wrapping

// How the row-0 and column-0 cells are set (src/align/reference.cpp's borders).
enum class Border {
  Zero,      // H = 0
  Charged,   // H(0,j) = -(open + j*extend), H(i,0) likewise, H(0,0) = 0
  Anchored,  // H(0,0) = 0, every other border cell -inf
};

// One pass over q (rows) x t (columns); every value fits int32 (the caller checked).
struct Pass {
  const uint8_t* q;
  uint32_t m;
  const uint8_t* t;
  uint32_t n;
  const ScoreMatrix* mat;
  GapCosts g;
  bool clamp_zero;  // local: H >= 0
  Border border;
  // The row above the first: nullptr, the border row; else H and F of columns 0..n of row
  // `row0` (a checkpoint), the rows then being row0+1.. for the column-0 border values.
  const int32_t* top_h = nullptr;
  const int32_t* top_f = nullptr;
  uint32_t row0 = 0;
};

struct EndCell {
  int32_t score = 0;
  uint32_t i = 0, j = 0;
};

// Traceback cells: 4 bits each, reference.cpp's codes; the 8 rows of a strip at one
// anti-diagonal step share a 32-bit word (row r in bits 4r..4r+3).
inline uint64_t fill_words(uint32_t m, uint32_t n) { return uint64_t((m + kLanes - 1) / kLanes) * (n + kLanes - 1); }
inline uint8_t fill_cell(const uint32_t* words, uint32_t n, uint32_t i, uint32_t j) {  // 1-based
  const uint32_t strip = (i - 1) / kLanes, r = (i - 1) % kLanes;
  return (words[uint64_t(strip) * (n + kLanes - 1) + (j + r - 1)] >> (4 * r)) & 0xF;
}

struct Kernels {
  // End cell under tie rule 1 (pass border Zero for local/semiglobal, Charged for global).
  EndCell (*end_cell)(AlignMode mode, const Pass& p);
  // Anchored pass: the largest row and column whose diagonal value equals `score`
  // (each at least 1).
  std::pair<uint32_t, uint32_t> (*start_bounds)(const Pass& p, int32_t score);
  // Writes the 4-bit cells of the whole matrix to words[fill_words(m, n)]; returns H(m, n).
  int32_t (*fill)(const Pass& p, uint32_t* words);
  // H and F of the pass's last row (columns 0..n) to h[n+1], f[n+1]: a checkpoint.
  void (*advance)(const Pass& p, int32_t* h, int32_t* f);
};

const Kernels& avx2_kernels();  // x86 only; call only where the CPU has AVX2
const Kernels& sse2_kernels();  // baseline (NEON through the compiler's vector extensions)

}  // namespace hpc::strip_detail
