#pragma once
// Per-ISA entry points of the inter-sequence kernel (internal to kernels/cpu).
// Each lives in its own translation unit compiled for its ISA (sw_simd_avx2.cpp,
// sw_simd_sse2.cpp); sw_simd.cpp picks one at run time.
#include <cstdint>

#include "kernels/cpu/sw_simd.hpp"

namespace hpc::sw_detail {

// Target columns handled per pass over the query: the H/E row state stays in registers
// across them, cutting loads and stores per cell by this factor.
constexpr int kColumnsPerPass = 4;
constexpr int kVectorBytes = 32;  // the widest vector: sizes the `work` blocks
constexpr int kAvx2Lanes = 16;    // 16-bit lanes per vector; 8-bit passes have twice as many
constexpr int kSse2Lanes = 8;

// Aligns `query` (m >= 1 letters, codes < kAlphabetSize) against the lanes' targets,
// interleaved in `columns` (ncols x lanes target codes, column after column; ncols a
// multiple of kColumnsPerPass; SwTables::kPadCode after a target's end). Writes each
// lane's best score to best[lanes]; it may be saturated, which the caller detects
// with SwTables' limits. `work` holds 2*m vectors of kVectorBytes, aligned to them.
// _16: signed 16-bit lanes; _8: unsigned biased 8-bit lanes (the first pass).
using GroupKernel = void (*)(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                             void* work, int32_t* best);
void group_scores_avx2_16(const SwTables&, const uint8_t*, int, const uint8_t*, int, void*, int32_t*);
void group_scores_avx2_8(const SwTables&, const uint8_t*, int, const uint8_t*, int, void*, int32_t*);
void group_scores_sse2_16(const SwTables&, const uint8_t*, int, const uint8_t*, int, void*, int32_t*);
void group_scores_sse2_8(const SwTables&, const uint8_t*, int, const uint8_t*, int, void*, int32_t*);

// Global (semi false) or semiglobal scores of the lanes, signed 16-bit lanes
// (sw_simd_kernel.hpp's group_end_scores_generic): lane l's target has lane_len[l] columns (0:
// none); out[l] its score, exact where the caller's EndScoreFit holds.
using EndKernel = void (*)(const SwTables& t, const uint8_t* query, int m, const uint8_t* columns, int ncols,
                           const int16_t* lane_len, bool semi, void* work, int32_t* out);
void group_end_scores_avx2_16(const SwTables&, const uint8_t*, int, const uint8_t*, int, const int16_t*, bool, void*,
                              int32_t*);
void group_end_scores_sse2_16(const SwTables&, const uint8_t*, int, const uint8_t*, int, const int16_t*, bool, void*,
                              int32_t*);

}  // namespace hpc::sw_detail
