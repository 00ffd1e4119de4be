// GPU twin of kernels/cpu/msv_filters.cpp's byte MSV filter (SSV fast path + full MSV), one
// warp per target, in saturating bytes: the byte kernel, run with HPCALIGN_MSV_KERNEL=byte
// (the default is the 16-bit DPX SSV of msv16_kernels.cu, which falls back to the same byte
// msv_full). Layout and the byte helpers: msv_byte.cuh; the byte profile in shared memory.
#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/msv_byte.cuh"
#include "kernels/cuda/msv_kernels.cuh"

namespace hpc::cuda {
namespace {

using msv_byte::diagonal;
using msv_byte::kFull;
using msv_byte::splat;
using msv_byte::warp_max_byte;
constexpr int kWarpsPerBlock = 8;

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
    if (!ssv<NC>(model, prof, seq, L, tjb, lane, &result))
      result = msv_byte::msv_full<NC>(model, prof, seq, L, tjb, lane);
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
