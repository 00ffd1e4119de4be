// GPU twin of kernels/cpu/msv_filters.cpp's byte MSV filter (SSV fast path + full MSV), one
// warp per target. The model's nodes are striped over the warp: lane l holds, in chunk c, the
// four cells k = 128c + 4l + 1 .. + 4 packed in one 32-bit register, updated with the SIMD
// byte intrinsics (__vaddus4, __vsubus4, __vmaxu4) that are exactly the saturating unsigned
// byte arithmetic HMMER uses. The diagonal dependency (cell k reads k-1 of the previous row)
// is a one-byte shift: inside the register with __byte_perm, across lanes with a shuffle,
// and across chunks through lane 31 of the previous chunk. The whole DP row stays in
// registers (NC words per lane), the byte profile in shared memory.
#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/msv_kernels.cuh"

namespace hpc::cuda {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;

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

// p7_SSVFilter as msv_filters.cpp's ssv_score: returns false when the full MSV must decide.
// The byte cells saturate at 255, which can only happen after `best` has reached the overflow
// level, where the answer no longer depends on the values; so no per-row test is needed.
template <int NC>
__device__ bool ssv(const MsvModelSlot& a, const uint32_t* prof, const uint8_t* seq, int L, int tjb, int lane,
                    int32_t* out) {
  const int bias = a.bias;
  if (tjb + a.tbm + a.tec + bias >= 127) return false;
  const uint32_t bias4 = splat(bias), clamp4 = splat(min(255, 127 + bias));
  uint32_t row[NC];
#pragma unroll
  for (int c = 0; c < NC; ++c) row[c] = 0;
  uint32_t best4 = 0;
  for (int i0 = 0; i0 < L; i0 += 32) {
    const int mine = i0 + lane < L ? seq[i0 + lane] : 0;
    const int rows = min(32, L - i0);
    for (int r = 0; r < rows; ++r) {
      const uint32_t* cost = prof + __shfl_sync(kFull, mine, r) * (NC * 32) + lane;
      uint32_t carry = 0;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const uint32_t diag = diagonal(row[c], lane, carry);
        const uint32_t g = __vsubus4(__vaddus4(diag, bias4), __vminu4(cost[c * 32], clamp4));
        row[c] = g;
        best4 = __vmaxu4(best4, g);
      }
    }
  }
  const int best = warp_max_byte(best4);
  if (best >= 127 - bias) {
    if (a.base - tjb - a.tbm < 128) return false;
    *out = kMsvOverflow;
    return true;
  }
  const int xE = a.base - tjb - a.tbm + best;
  if (xE >= 255 - bias) {
    *out = kMsvOverflow;
    return true;
  }
  const int xJ = xE - a.tec;
  if (xJ > a.base) return false;  // the J state may have been used
  *out = xJ;
  return true;
}

// The full byte MSV recursion (msv_full_score): returns xJ or kMsvOverflow.
template <int NC>
__device__ int32_t msv_full(const MsvModelSlot& a, const uint32_t* prof, const uint8_t* seq, int L, int tjb,
                            int lane) {
  const int tjbm = (tjb + a.tbm) & 0xFF;  // HMMER adds them as bytes
  const uint32_t bias4 = splat(a.bias);
  uint32_t row[NC];
#pragma unroll
  for (int c = 0; c < NC; ++c) row[c] = 0;
  int xJ = 0;
  int xB = max(0, a.base - tjbm);
  for (int i0 = 0; i0 < L; i0 += 32) {
    const int mine = i0 + lane < L ? seq[i0 + lane] : 0;
    const int rows = min(32, L - i0);
    for (int r = 0; r < rows; ++r) {
      const uint32_t* cost = prof + __shfl_sync(kFull, mine, r) * (NC * 32) + lane;
      const uint32_t xB4 = splat(xB);
      uint32_t xE4 = 0, carry = 0;
#pragma unroll
      for (int c = 0; c < NC; ++c) {
        const uint32_t diag = diagonal(row[c], lane, carry);
        const uint32_t sv = __vsubus4(__vaddus4(__vmaxu4(diag, xB4), bias4), cost[c * 32]);
        row[c] = sv;
        xE4 = __vmaxu4(xE4, sv);
      }
      const int xE = warp_max_byte(xE4);
      if (xE + a.bias >= 255) return kMsvOverflow;
      xJ = max(xJ, max(0, xE - a.tec));
      xB = max(0, max(a.base, xJ) - tjbm);
    }
  }
  return xJ;
}

// Grid: x over the targets, y over the models of the launch; a block holds its model's
// profile in shared memory and its warps take targets longest first.
template <int NC>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) msv_kernel(MsvKernelArgs a) {
  extern __shared__ uint32_t prof[];
  const MsvModelSlot model = a.models[blockIdx.y];
  const uint32_t* profile = a.profiles + model.profile;
  for (int i = threadIdx.x; i < kMsvCodes * NC * 32; i += blockDim.x) prof[i] = profile[i];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const uint32_t n = a.end - a.begin;
  const uint32_t stride = gridDim.x * kWarpsPerBlock;
  const uint8_t* tjbs = a.tjb + model.targets;
  int32_t* out = a.out + model.targets;
  // Longest targets first (by_length ascends), so the tail of the launch is short work.
  for (uint32_t w = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5); w < n; w += stride) {
    const uint32_t idx = n - 1 - w;
    const uint32_t pos = a.begin + idx;
    const uint64_t off = a.offsets[pos];
    const int L = int(a.offsets[pos + 1] - off);
    if (L <= 0) {  // never scored (the pipeline skips empty targets)
      if (lane == 0) out[idx] = 0;
      continue;
    }
    const uint8_t* seq = a.residues + off;
    const int tjb = tjbs[idx];
    int32_t result;
    if (!ssv<NC>(model, prof, seq, L, tjb, lane, &result)) result = msv_full<NC>(model, prof, seq, L, tjb, lane);
    if (lane == 0) out[idx] = result;
  }
}

template <int NC>
void launch(const MsvKernelArgs& a, int sm_count, cudaStream_t stream) {
  const size_t smem = size_t(kMsvCodes) * NC * 32 * sizeof(uint32_t);
  CUDA_CHECK(cudaFuncSetAttribute(msv_kernel<NC>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const uint32_t n = a.end - a.begin;
  const uint32_t blocks_needed = (n + kWarpsPerBlock - 1) / kWarpsPerBlock;
  // About 16 blocks per SM over all models together: enough to fill it, few enough that each
  // block's profile load is spread over many targets.
  const uint32_t per_model = std::max<uint32_t>(1, uint32_t(sm_count) * 16 / std::max<uint32_t>(1, a.n_models));
  const dim3 grid(std::max<uint32_t>(1, std::min(blocks_needed, per_model)), a.n_models);
  msv_kernel<NC><<<grid, kWarpsPerBlock * 32, smem, stream>>>(a);
  CUDA_CHECK_LAUNCH("msv_kernel");
}

}  // namespace

int msv_kernel_chunks(int chunks) {
  for (int nc : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32})
    if (chunks <= nc) return nc;
  return 0;
}

void launch_msv_kernel(const MsvKernelArgs& a, int chunks, int sm_count, cudaStream_t stream) {
  if (a.end <= a.begin || a.n_models == 0) return;
  switch (chunks) {
    case 1: return launch<1>(a, sm_count, stream);
    case 2: return launch<2>(a, sm_count, stream);
    case 3: return launch<3>(a, sm_count, stream);
    case 4: return launch<4>(a, sm_count, stream);
    case 6: return launch<6>(a, sm_count, stream);
    case 8: return launch<8>(a, sm_count, stream);
    case 12: return launch<12>(a, sm_count, stream);
    case 16: return launch<16>(a, sm_count, stream);
    case 24: return launch<24>(a, sm_count, stream);
    case 32: return launch<32>(a, sm_count, stream);
    default: throw Error("launch_msv_kernel: no kernel compiled for " + std::to_string(chunks) + " chunks");
  }
}

}  // namespace hpc::cuda
