#pragma once
// The full MSV of one (model, target) for the 16-bit SSV kernel's fallbacks (msv16_kernels.cu:
// the pairs HMMER's SSV hands to the full MSV, when the J state may have been used). HMMER's
// saturating unsigned byte arithmetic, computed in 16-bit lanes with Hopper's DPX instructions:
// for a cell c and a bound x of [0, 255],
//   adds(x, bias) = min(x + bias, 255)    one __viaddmin_u16x2 (no 16-bit overflow: <= 510),
//   subs(y, cost) = max(y - cost, 0)      one __viaddmax_s16x2_relu with the negated cost,
// so every cell, and the result, equal msv_byte::msv_full's (and the CPU's). The byte
// intrinsics that msv_full uses (__vaddus4, __vsubus4, __vmaxu4) are emulated on sm_90 by long
// LOP3/PRMT chains: ~60 serial instructions a row for a one-chunk model, where this is ~12.
// Layout as msv_full's (nodes striped over the warp in chunks of 128, lane l holding nodes
// 128 c + 4 l + 1 .. + 4 of chunk c, a byte each), the costs of a lane's 4 nodes in two
// int16-pair words (msv16::full_profile). For models of up to 2 chunks the next row's costs
// are loaded while a row runs (and the residue codes a 32-row block ahead): a row's chain
// (shuffle, cells, warp max, xB) is serial.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/msv16_lane.hpp"
#include "kernels/cuda/msv_byte.cuh"
#include "kernels/cuda/msv_kernels.cuh"

namespace hpc::cuda::msv_full16 {

using msv_byte::kFull;

__device__ __forceinline__ uint32_t splat16(int v) { return 0x00010001u * uint32_t(v & 0xFFFF); }
// max per unsigned 16-bit lane (PTX max.u16x2, sm_90 on; CUDA has no 2-input DPX intrinsic for
// it). Below sm_90 __vmaxu2, the same per-lane unsigned max in a few instructions.
__device__ __forceinline__ uint32_t max_u16x2(uint32_t a, uint32_t b) {
#if __CUDA_ARCH__ >= 900
  uint32_t r;
  asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return __vmaxu2(a, b);
#endif
}

// Returns xJ or kMsvOverflow. `prof`: the model's full profile, NC chunks. The row stays 4 byte
// cells a register per chunk (as msv_full's: registers are what the SSV kernels of large slots
// are short of), unpacked into two 16-bit words for a row and packed back.
template <int NC>
__device__ int32_t msv_full(const hmm::msv16::ModelParams& a, const uint32_t* prof, const uint8_t* seq, int L, int tjb,
                            int lane) {
  msv_byte::JState j(a, tjb);
  const uint32_t bias2 = splat16(a.bias), top2 = splat16(255);
  // Loading the next row's costs ahead takes a chunk's two cost words in registers: kept to
  // models of one or two chunks (<= 256 nodes; more spill at small slots).
  constexpr bool kAhead = NC <= 2;
  constexpr int NP = kAhead ? NC : 1;
  uint32_t row[NC];  // byte j of chunk c: node 128 c + 4 lane + j + 1
  uint2 next[NP];
#pragma unroll
  for (int c = 0; c < NC; ++c) row[c] = 0;
  const auto costs = [&](int code) { return reinterpret_cast<const uint2*>(prof) + code * (NC * 32) + lane; };
  const auto load = [&](int code) {
    if constexpr (kAhead) {
      const uint2* cost = costs(code);
#pragma unroll
      for (int c = 0; c < NC; ++c) next[c] = cost[c * 32];
    }
  };
  int mine = lane < L ? seq[lane] : 0;  // residue codes of the block's rows, one per lane
  load(__shfl_sync(kFull, mine, 0));
  for (int i0 = 0; i0 < L; i0 += 32) {
    const int ahead = i0 + 32 + lane < L ? seq[i0 + 32 + lane] : 0;
    const int rows = min(32, L - i0);
    for (int r = 0; r < rows; ++r) {
      uint2 cost[NP];
      const uint2* direct = nullptr;
      if constexpr (kAhead) {
#pragma unroll
        for (int c = 0; c < NC; ++c) cost[c] = next[c];
        load(__shfl_sync(kFull, r + 1 < 32 ? mine : ahead, (r + 1) & 31));  // the next row's (past L: code 0)
      } else {
        direct = costs(__shfl_sync(kFull, mine, r));
      }
      const uint32_t xB2 = splat16(j.xB);
      uint32_t xE2 = 0, carry = 0;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        // Diagonal input (the previous row, one node back): my bytes shifted up by one, byte 0
        // from the lane before's byte 3 (lane 0: lane 31 of the chunk before; 0 for node 1).
        uint2 w;
        if constexpr (kAhead) w = cost[c];
        else w = direct[c * 32];
        const uint32_t rot = __shfl_sync(kFull, row[c], (lane + 31) & 31);
        const uint32_t diag = __byte_perm(row[c], lane == 0 ? carry : rot, 0x2107);
        carry = rot;
        const uint32_t d_lo = __byte_perm(diag, 0u, 0x4140), d_hi = __byte_perm(diag, 0u, 0x4342);
        const uint32_t l = __viaddmax_s16x2_relu(__viaddmin_u16x2(max_u16x2(d_lo, xB2), bias2, top2), w.x, 0u);
        const uint32_t h = __viaddmax_s16x2_relu(__viaddmin_u16x2(max_u16x2(d_hi, xB2), bias2, top2), w.y, 0u);
        row[c] = __byte_perm(l, h, 0x6420);
        xE2 = __vimax3_u16x2(xE2, l, h);
      }
      if (!j.after_row(a, int(__reduce_max_sync(kFull, max(xE2 & 0xFFFFu, xE2 >> 16))))) return kMsvOverflow;
    }
    mine = ahead;
  }
  return j.xJ;
}

// msv_full for a model of `chunks` chunks (a kByteChunks value): only the counts up to MaxC, those
// its caller's packs can hold, are compiled in.
template <int C, int MaxC>
__device__ __forceinline__ bool full_case(const hmm::msv16::ModelParams& a, const uint32_t* prof, const uint8_t* seq,
                                          int L, int tjb, int lane, int32_t* r) {
  if constexpr (C <= MaxC) {
    if (a.chunks == C) {
      *r = msv_full<C>(a, prof, seq, L, tjb, lane);
      return true;
    }
  }
  return false;
}
template <int MaxC>
__device__ int32_t msv_full_any(const hmm::msv16::ModelParams& a, const uint32_t* prof, const uint8_t* seq, int L,
                                int tjb, int lane) {
  int32_t r = 0;
  full_case<1, MaxC>(a, prof, seq, L, tjb, lane, &r) || full_case<2, MaxC>(a, prof, seq, L, tjb, lane, &r) ||
      full_case<3, MaxC>(a, prof, seq, L, tjb, lane, &r) || full_case<4, MaxC>(a, prof, seq, L, tjb, lane, &r) ||
      full_case<6, MaxC>(a, prof, seq, L, tjb, lane, &r) || full_case<8, MaxC>(a, prof, seq, L, tjb, lane, &r) ||
      full_case<12, MaxC>(a, prof, seq, L, tjb, lane, &r) || full_case<16, MaxC>(a, prof, seq, L, tjb, lane, &r) ||
      full_case<24, MaxC>(a, prof, seq, L, tjb, lane, &r) || full_case<32, MaxC>(a, prof, seq, L, tjb, lane, &r);
  return r;
}

}  // namespace hpc::cuda::msv_full16
