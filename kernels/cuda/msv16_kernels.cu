// The SSV fast path of the GPU MSV filter in 16-bit lanes: per two cells one instruction, an
// fp16 fma.relu on the FMA pipe or Hopper's DPX __viaddmax_s16x2_relu on the integer pipe
// (the same bit pattern either way), and half a 3-way max for the running max, the diagonal
// carried in registers by Farrar's striping, several models packed into one warp's 64 slots.
// Compiled per slot size Q and per profile format (fp16 words and bytes, int16 pairs, signed
// bytes, or a mix: msv16_lane.hpp). Layout, recurrence and the proof
// that every result equals msv_filters.cpp's ssv_score (and so the byte kernel): see
// msv16_lane.hpp; the lane code there is shared with the host emulator the unit tests run
// (msv16_layout.hpp). Targets the SSV cannot decide run the full MSV (msv_full16.cuh) on the
// model's own profile, read from global memory (~1% of the pairs).
#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/msv16_lane.hpp"
#include "kernels/cuda/msv_full16.cuh"
#include "kernels/cuda/msv_kernels.cuh"

namespace hpc::cuda {
namespace {

namespace m16 = hpc::hmm::msv16;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 8;  // warps (targets in flight) per block

// The residue codes of the kCheckRows rows from i0, four to a word: lane j < kCheckRows / 4 holds rows
// i0 + 4j .. i0 + 4j + 3 (byte t: row i0 + 4j + t; 0 past the end). The warp then broadcasts
// one word per four rows instead of one shuffle per row: every shuffle is a shared-memory
// wavefront, which the profile loads already keep 83-94% busy (ncu, w16; 6.6% fewer
// wavefronts, launches 4-5% shorter).
static_assert(m16::kCheckRows % 4 == 0 && m16::kCheckRows <= 128, "block_codes: four codes per lane");
__device__ __forceinline__ uint32_t block_codes(const uint8_t* seq, int i0, int L, int lane) {
  uint32_t v = 0;
  if (lane < m16::kCheckRows / 4) {
    const int r = i0 + 4 * lane;
#pragma unroll
    for (int t = 0; t < 4; ++t)
      if (r + t < L) v |= uint32_t(seq[r + t]) << (8 * t);
  }
  return v;
}

// code_offset of byte t of a codes word: with t a constant (the unrolled rows), one mask and
// one multiply (the multiply on the FMA pipe), where a shift and a mask would both take the
// busier ALU pipe.
template <int P>
__device__ __forceinline__ int code_offset_of_byte(uint32_t four, int t) {
  constexpr uint32_t S = uint32_t(m16::kLanes * P * 4);  // bytes per code (code_offset)
  switch (t) {
    case 0: return int((four & 0xffu) * S);
    case 1:
      if constexpr (S % 256 == 0) return int((four & 0xff00u) * (S / 256));
      else return int(((four >> 8) & 0xffu) * S);
    case 2: return int(__umulhi(four & 0xff0000u, S << 16));
    default: return int(__umulhi(four & 0xff000000u, S << 8));
  }
}

// Grid: x over the targets, y over the packs of the launch; a block holds its pack's w
// profile in shared memory and its warps take targets longest first. Per target the warp
// runs msv16_layout.hpp's emulate_target (same steps, same order), then the fallbacks.
// Minimum blocks per SM in the launch bounds (min_blocks<Q>): as many as the registers allow
// without spills (ptxas -v: Q <= 8 at 64 registers, Q <= 12 at 80, Q <= 28 at 123-128; larger
// Q are bound by their shared profile anyway, and with no minimum ptxas caps them at 64-80
// registers and spills). Q = 8 went from 80 registers and 3 blocks to 64 and 4: w16 9.14 ->
// 9.64 TCUPS in MsvGpu.KernelVariantsThroughput (H200).
template <int Q>
constexpr int min_blocks() { return Q <= 8 ? 4 : Q <= 12 ? 3 : Q <= 28 ? 2 : 1; }

template <int Q, int Format>
__global__ void __launch_bounds__(kWarps * 32, min_blocks<Q>()) msv16_kernel(m16::Args a) {
  constexpr int P = m16::words_per_lane(Q, Format);
  constexpr int kWords = int(m16::profile_words(Q, Format));
  extern __shared__ uint4 smem4[];
  uint32_t* prof = reinterpret_cast<uint32_t*>(smem4);
  const m16::Pack& pack = a.packs[blockIdx.y];
  const uint4* src = reinterpret_cast<const uint4*>(a.wprof + pack.profile);
  for (int i = threadIdx.x; i < kWords / 4; i += blockDim.x) smem4[i] = src[i];
  __syncthreads();

  const int lane = threadIdx.x & 31;
  const uint32_t models = pack.lane_models[lane], links = pack.lane_links[lane];
  const uint32_t sel = m16::diagonal_selector(links);
  const uint32_t gate = m16::subslot_gate(links, Format == m16::kF16);
  const int nm = int(pack.n_models);
  const uint32_t all = nm == 32 ? ~0u : (1u << nm) - 1u;
  // Lane j < nm holds pack model j's parameters, tjb and result.
  m16::ModelParams mp;
  if (lane < nm) mp = a.models[pack.model[lane]];
  const int T = lane < nm ? m16::threshold(mp) : m16::kNoThreshold;
  int t_of[2 * m16::kMaxSubslots];  // T of the model of sub-slot t, half h (2t + h)
#pragma unroll
  for (int t = 0; t < m16::kMaxSubslots; ++t)
#pragma unroll
    for (int h = 0; h < 2; ++h) t_of[2 * t + h] = __shfl_sync(kFull, T, m16::model_of(models, t, h) & 31);

  const uint32_t n = a.end - a.begin;
  // Targets are handed out one at a time, longest first (by_length ascends), so the warps of
  // a pack finish within about one short target of each other. A fixed stride gave warp 0
  // the longest target of every stride: with databases' long tails of lengths the SMs then
  // sat idle for 13-18% of the launch (ncu: active against elapsed cycles, H100). The next
  // target is taken while this one runs, so the atomic's latency is hidden.
  uint32_t* taken = a.taken + blockIdx.y;
  const uint32_t first = __shfl_sync(kFull, lane == 0 ? atomicAdd(taken, 1u) : 0u, 0);
  for (uint32_t w = first, ticket = 0; w < n; w = __shfl_sync(kFull, ticket, 0)) {
    if (lane == 0) ticket = atomicAdd(taken, 1u);  // the next target, read after this one
    const uint32_t idx = n - 1 - w;
    const uint32_t pos = a.begin + idx;
    const uint64_t off = a.offsets[pos];
    const int L = int(a.offsets[pos + 1] - off);
    if (L <= 0) {  // never scored (the pipeline skips empty targets)
      if (lane < nm) a.out[mp.targets + idx] = 0;
      continue;
    }
    const uint8_t* seq = a.residues + off;
    const int tjb = lane < nm ? int(a.tjb[mp.targets + idx]) : 0;
    int32_t res = 0;
    const bool pre = lane < nm && m16::falls_back_at_start(mp, tjb);
    if (pre) res = m16::kFallback;
    uint32_t decided = __ballot_sync(kFull, pre);
    if (decided != all) {
      uint32_t thr[m16::kMaxSubslots];
      const auto thresholds = [&] {
#pragma unroll
        for (int t = 0; t < m16::kMaxSubslots; ++t) thr[t] = m16::lane_threshold(models, t_of, decided, t);
      };
      thresholds();
      m16::LaneState<Q> s;
      m16::lane_start(s);
      const m16::LaneProfile<P> lp = m16::lane_profile<P>(prof, lane);
      uint32_t next = block_codes(seq, 0, L, lane);
      for (int i0 = 0; i0 < L; i0 += m16::kCheckRows) {
        const int rows = min(m16::kCheckRows, L - i0);
        const uint32_t codes = next;
        if (i0 + m16::kCheckRows < L) next = block_codes(seq, i0 + m16::kCheckRows, L, lane);
        const auto row = [&](uint32_t four, int t) {
          const uint32_t up = __shfl_up_sync(kFull, s.row[Q - 1], 1);
          m16::lane_row<Q, Format>(s, lp, code_offset_of_byte<P>(four, t), up, sel, gate);
        };
        int r = 0;
        for (; r + 4 <= rows; r += 4) {
          const uint32_t four = __shfl_sync(kFull, codes, r >> 2);
#pragma unroll
          for (int t = 0; t < 4; ++t) row(four, t);
        }
        if (r < rows) {  // the last 1-3 rows of the target
          const uint32_t four = __shfl_sync(kFull, codes, r >> 2);
          for (int t = 0; r + t < rows; ++t) row(four, t);
        }
        const uint32_t newly = __reduce_or_sync(kFull, m16::lane_reached(s, thr, models));
        if (newly) {
          if ((newly >> lane) & 1u) res = m16::reached_result(mp, tjb);
          decided |= newly;
          thresholds();
          if (decided == all) break;  // every model of the pack is decided
        }
        if (decided) m16::lane_cap(s);
      }
      const uint32_t undecided = all & ~decided;
      if (undecided) {
        for (uint32_t u = undecided; u; u &= u - 1) {
          const int m = __ffs(int(u)) - 1;
          const int mb = int(__reduce_max_sync(kFull, uint32_t(m16::lane_model_best(s, models, m))));
          if (lane == m) res = m16::final_result(mp, tjb, mb);
        }
      }
    }
    // The SSV could not decide: the full MSV (msv_full16.cuh), model by model.
    for (uint32_t u = __ballot_sync(kFull, lane < nm && res == m16::kFallback); u; u &= u - 1) {
      const int m = __ffs(int(u)) - 1;
      const m16::ModelParams& fm = a.models[pack.model[m]];
      const int32_t r = msv_full16::msv_full_any<m16::byte_chunks_for(m16::kSlots * Q)>(
          fm, a.fprof + fm.full_profile, seq, L, __shfl_sync(kFull, tjb, m), lane);
      if (lane == m) res = r;
    }
    if (lane < nm) a.out[mp.targets + idx] = res;
  }
}

template <int Q, int Format>
void launch(const m16::Args& a, int sm_count, cudaStream_t stream) {
  const auto kernel = msv16_kernel<Q, Format>;
  const size_t smem = m16::profile_words(Q, Format) * sizeof(uint32_t);
  const int threads = kWarps * 32;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  // All the carve-out to shared memory: the profile lives there, L1 serves only the residues
  // and the (rare) fallbacks' byte profiles.
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  int(cudaSharedmemCarveoutMaxShared)));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const uint32_t n = a.end - a.begin;
  const uint32_t blocks_needed = (n + kWarps - 1) / kWarps;
  // One wave of resident blocks over all packs; their warps take the pack's targets one by
  // one, longest first (Args::taken), so they finish together.
  const uint32_t resident = uint32_t(std::max(1, per_sm)) * uint32_t(std::max(1, sm_count));
  const uint32_t per_pack = (resident + a.n_packs - 1) / a.n_packs;
  const dim3 grid(std::max<uint32_t>(1, std::min(blocks_needed, per_pack)), a.n_packs);
  kernel<<<grid, threads, smem, stream>>>(a);
  CUDA_CHECK_LAUNCH("msv16_kernel");
}

template <int Format>
void launch_q(const m16::Args& a, int q, int sm_count, cudaStream_t stream) {
  switch (q) {
#define HPC_MSV16_LAUNCH_CASE(Q) \
  case Q: return launch<Q, Format>(a, sm_count, stream);
    HPC_MSV16_FOR_EACH_Q(HPC_MSV16_LAUNCH_CASE)
#undef HPC_MSV16_LAUNCH_CASE
    default: throw Error("launch_msv16_kernel: no kernel compiled for " + std::to_string(q) + " nodes per slot");
  }
}

}  // namespace

void launch_msv16_kernel(const hmm::msv16::Args& a, int q, int format, int sm_count, cudaStream_t stream) {
  if (a.end <= a.begin || a.n_packs == 0) return;
  switch (format) {
    case m16::kW16: return launch_q<m16::kW16>(a, q, sm_count, stream);
    case m16::kMix: return launch_q<m16::kMix>(a, q, sm_count, stream);
    case m16::kW8: return launch_q<m16::kW8>(a, q, sm_count, stream);
    case m16::kF16: return launch_q<m16::kF16>(a, q, sm_count, stream);
    default: throw Error("launch_msv16_kernel: unknown profile format " + std::to_string(format));
  }
}

}  // namespace hpc::cuda
