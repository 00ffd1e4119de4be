#pragma once
// Cell arithmetic for the Smith-Waterman kernels, in two flavours sharing one DP body:
//   Packed16: two database subjects per thread, one in each signed 16-bit lane of a
//             32-bit register (Hopper DPX: one instruction updates both; elsewhere the
//             SIMD video intrinsics emulate it). Overflow is detected, never returned.
//   Exact32 : one subject per thread in plain int32; used to rescore overflowing pairs.
// Both store H as "H - (open+extend)" so that the same value serves the E and F
// recurrences; the substitution table therefore holds s + (open+extend).
// Requires open >= 0 and extend >= 0 (so open+extend >= extend; see sw_kernels.cu).
#include <cstdint>

namespace hpc::cuda {

constexpr int kPadCode = 24;  // residue code past a subject's end: scores kPadScore* with all
constexpr int kCodes = 25;    // 24 alphabet codes + the padding code
constexpr int kChunk = 32;    // subject columns held in registers per thread (per pass)

struct Packed16 {
  static constexpr int kStride = kCodes * kCodes;  // table entries per query letter: (a, b) pairs
  static constexpr int kPadScore = -16384;
  // Global mode's F at row 0: below every real value of a lane that fits (global16_fit), with
  // room below it for an extension.
  static constexpr int kNegInf = -28672;
  static __host__ __device__ uint32_t pack(int lo, int hi) {
    return uint32_t(uint16_t(int16_t(lo))) | (uint32_t(uint16_t(int16_t(hi))) << 16);
  }
  static __host__ __device__ uint32_t splat(int v) { return pack(v, v); }
  static __device__ int lane(uint32_t v, int k) { return int(int16_t(uint16_t(v >> (16 * k)))); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // max(a + b, c) per lane: one DPX instruction.
  static __device__ uint32_t add_max(uint32_t a, uint32_t b, uint32_t c) { return __viaddmax_s16x2(a, b, c); }
  static __device__ uint32_t add_max_relu(uint32_t a, uint32_t b, uint32_t c) { return __viaddmax_s16x2_relu(a, b, c); }
  static __device__ uint32_t max_relu(uint32_t a, uint32_t b) { return __vimax_s16x2_relu(a, b); }
  static __device__ uint32_t max3_relu(uint32_t a, uint32_t b, uint32_t c) { return __vimax3_s16x2_relu(a, b, c); }
  // a + b per lane (add.s16x2, wrapping like the DPX add): VIADD.16x2, beside the ALU pipe
  // that the DPX ops fill (see sw_kernels.cu's packed_cell).
  static __device__ uint32_t add(uint32_t a, uint32_t b) {
    uint32_t r;
    asm("add.s16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
  }
#else
  static __device__ uint32_t add_max(uint32_t a, uint32_t b, uint32_t c) { return __vmaxs2(__vadd2(a, b), c); }
  static __device__ uint32_t add_max_relu(uint32_t a, uint32_t b, uint32_t c) {
    return __vmaxs2(__vmaxs2(__vadd2(a, b), c), 0u);
  }
  static __device__ uint32_t max_relu(uint32_t a, uint32_t b) { return __vmaxs2(__vmaxs2(a, b), 0u); }
  static __device__ uint32_t max3_relu(uint32_t a, uint32_t b, uint32_t c) {
    return __vmaxs2(__vmaxs2(__vmaxs2(a, b), c), 0u);
  }
  static __device__ uint32_t add(uint32_t a, uint32_t b) { return __vadd2(a, b); }
#endif
};

struct Exact32 {
  static constexpr int kStride = kCodes;  // table entries per query letter
  static constexpr int kPadScore = -(1 << 28);
  static constexpr int kNegInf = -(1 << 28);
  static __host__ __device__ uint32_t splat(int v) { return uint32_t(v); }
  static __device__ int s(uint32_t v) { return int(v); }
  static __device__ int lane(uint32_t v, int) { return int(v); }
  static __device__ uint32_t add_max(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(max(s(a) + s(b), s(c))); }
  static __device__ uint32_t add_max_relu(uint32_t a, uint32_t b, uint32_t c) {
    return uint32_t(max(max(s(a) + s(b), s(c)), 0));
  }
  static __device__ uint32_t max_relu(uint32_t a, uint32_t b) { return uint32_t(max(max(s(a), s(b)), 0)); }
  static __device__ uint32_t max3_relu(uint32_t a, uint32_t b, uint32_t c) {
    return uint32_t(max(max(s(a), s(b)), max(s(c), 0)));
  }
  static __device__ uint32_t add(uint32_t a, uint32_t b) { return uint32_t(s(a) + s(b)); }
};

}  // namespace hpc::cuda
