#pragma once
// Device code of the byte MSV filter (the byte kernel, msv_kernels.cu; the 16-bit SSV kernel's
// fallbacks run the same recursion in 16-bit lanes, msv_full16.cuh). The model's
// nodes are striped over the warp: lane l holds, in chunk c, the four cells
// k = 128c + 4l + 1 .. + 4 packed in one 32-bit register, updated with the SIMD byte
// intrinsics (__vaddus4, __vsubus4, __vmaxu4) that are exactly the saturating unsigned byte
// arithmetic HMMER uses. The diagonal dependency (cell k reads k-1 of the previous row) is a
// one-byte shift: inside the register with __byte_perm, across lanes with a shuffle, and
// across chunks through lane 31 of the previous chunk. The whole DP row stays in registers
// (NC words per lane); the byte profile is [code][chunk][lane] words of 4 byte costs.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/msv_kernels.cuh"

namespace hpc::cuda::msv_byte {

constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ uint32_t splat(int v) { return 0x01010101u * uint32_t(v & 0xFF); }

// Max over the 4 bytes of every lane's word, over the warp.
__device__ __forceinline__ int warp_max_byte(uint32_t v) {
  v = __vmaxu4(v, __byte_perm(v, 0, 0x1032));
  v = __vmaxu4(v, __byte_perm(v, 0, 0x2301));
  return int(__reduce_max_sync(kFull, v & 0xFF));
}

// The previous row's value on the diagonal of each of my 4 cells: my bytes shifted up by one,
// byte 0 from lane-1's byte 3 (lane 0: lane 31 of the previous chunk, carried in `carry`).
__device__ __forceinline__ uint32_t diagonal(uint32_t old, int lane, uint32_t& carry) {
  const uint32_t rot = __shfl_sync(kFull, old, (lane + 31) & 31);
  const uint32_t in = lane == 0 ? carry : rot;
  carry = rot;
  return __byte_perm(old, in, 0x2107);
}

// The special states of the full MSV between rows, in HMMER's byte arithmetic: tjb + tbm
// added as bytes, the B and J states, and the after-row rule. Shared by msv_full below and the
// 16-bit kernel's msv_full16::msv_full. `Params` has the model's base, bias, tbm, tec.
struct JState {
  int tjbm, xJ, xB;
  template <class Params>
  __device__ JState(const Params& a, int tjb) : tjbm((tjb + a.tbm) & 0xFF), xJ(0), xB(max(0, a.base - tjbm)) {}
  // After a row whose best match cell is xE: false when the byte range overflowed (the target
  // certainly passes: kMsvOverflow), else J and B updated for the next row.
  template <class Params>
  __device__ bool after_row(const Params& a, int xE) {
    if (xE + a.bias >= 255) return false;
    xJ = max(xJ, max(0, xE - a.tec));
    xB = max(0, max(a.base, xJ) - tjbm);
    return true;
  }
};

// The full byte MSV recursion (msv_full_score): returns xJ or kMsvOverflow. `Params` has the
// model's base, bias, tbm, tec (MsvModelSlot, msv16::ModelParams).
template <int NC, class Params>
__device__ int32_t msv_full(const Params& a, const uint32_t* prof, const uint8_t* seq, int L, int tjb, int lane) {
  JState j(a, tjb);
  const uint32_t bias4 = splat(a.bias);
  uint32_t row[NC];
#pragma unroll
  for (int c = 0; c < NC; ++c) row[c] = 0;
  for (int i0 = 0; i0 < L; i0 += 32) {
    const int mine = i0 + lane < L ? seq[i0 + lane] : 0;
    const int rows = min(32, L - i0);
    for (int r = 0; r < rows; ++r) {
      const uint32_t* cost = prof + __shfl_sync(kFull, mine, r) * (NC * 32) + lane;
      const uint32_t xB4 = splat(j.xB);
      uint32_t xE4 = 0, carry = 0;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const uint32_t diag = diagonal(row[c], lane, carry);
        const uint32_t sv = __vsubus4(__vaddus4(__vmaxu4(diag, xB4), bias4), cost[c * 32]);
        row[c] = sv;
        xE4 = __vmaxu4(xE4, sv);
      }
      if (!j.after_row(a, warp_max_byte(xE4))) return kMsvOverflow;
    }
  }
  return j.xJ;
}

}  // namespace hpc::cuda::msv_byte
