// GPU twin of kernels/cpu/msv_filters.cpp's viterbi_filter_score (HMMER's 16-bit Viterbi
// filter), one warp per target, read by position from the resident device database (a
// batch uploads no residues). The model's nodes are cut into 32 contiguous segments of S
// nodes, one per lane (kernels/cuda/vit_lane.hpp holds the per-lane recurrence, shared with
// the host emulator the CPU tests check); the previous row's M, I, D stay in registers
// (3 x S ints per lane), the packed profile of the block's model in shared memory
// (2,048 x S bytes). Per row: three shuffles bring the neighbour's last node (k-1 of the lane's
// first node), one more its M->D value, two warp reductions give xE and Dmax, and every lane
// updates the special states identically. The lazy-F D->D pass repeats "in-segment pass, then
// carry the last D to the next lane" until no lane changes (__any_sync), which reaches the
// sequential loop's result exactly.
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/vit_kernels.cuh"

namespace hpc::cuda {
namespace {

using namespace hpc::hmm::vit;

constexpr unsigned kFull = 0xffffffffu;

template <int S>
__device__ int32_t vit_target(const uint32_t* tr, const uint32_t* em, const uint8_t* seq, int L, int move,
                              const GroupParams& g, int lane) {
  int M[S], I[S], D[S];
#pragma unroll
  for (int j = 0; j < S; ++j) M[j] = I[j] = D[j] = kNeg;
  Specials s = start_specials(g.base, move, g.e_loop, g.e_move, g.ddbound);
  for (int i0 = 0; i0 < L; i0 += kLanes) {
    const int mine = i0 + lane < L ? int(seq[i0 + lane]) : 0;
    const int rows = min(kLanes, L - i0);
    for (int r = 0; r < rows; ++r) {
      const int code = __shfl_sync(kFull, mine, r);
      int inM = __shfl_up_sync(kFull, M[S - 1], 1);
      int inI = __shfl_up_sync(kFull, I[S - 1], 1);
      int inD = __shfl_up_sync(kFull, D[S - 1], 1);
      if (lane == 0) inM = inI = inD = kNeg;
      int xe, dm, dnl;
      lane_row<S>(tr, em + code * (S / 2) * kLanes, s.xB, inM, inI, inD, M, I, D, xe, dm, dnl);
      const int dn_in = __shfl_up_sync(kFull, dnl, 1);
      D[0] = lane == 0 ? kNeg : dn_in;
      const int xE = __reduce_max_sync(kFull, xe);
      const int dmax = __reduce_max_sync(kFull, dm);
      bool lazy = false;
      if (!end_row(s, xE, dmax, lazy)) return kOverflow;  // warp-uniform
      if (lazy) {                                          // warp-uniform
        bool changed;
        do {
          int carry = __shfl_up_sync(kFull, D[S - 1], 1);
          if (lane == 0) carry = kNeg;
          changed = lane_lazy_f<S>(tr, carry, D);
        } while (__any_sync(kFull, changed));
      }
    }
  }
  return s.xC;
}

template <int S>
__global__ void __launch_bounds__(warps_per_block(S) * 32) vit_kernel(VitKernelArgs a) {
  extern __shared__ uint4 smem[];
  constexpr int kWarps = warps_per_block(S);
  const Work w = a.work[blockIdx.x];
  const GroupParams g = a.groups[w.group];
  const uint4* src = a.profiles + g.offset / 4;
  constexpr int kWords4 = int(profile_words(S) / 4);
  for (int i = threadIdx.x; i < kWords4; i += blockDim.x) smem[i] = src[i];
  __syncthreads();
  const uint32_t* prof = reinterpret_cast<const uint32_t*>(smem);
  const int lane = threadIdx.x & 31;
  const uint32_t* tr = prof + lane * 4;
  const uint32_t* em = prof + trans_words(S) + lane;
  for (uint32_t t = w.begin + (threadIdx.x >> 5); t < w.end; t += kWarps) {
    const TargetRef ref = a.refs[t];
    const uint64_t off = a.offsets[ref.position];
    const int L = int(a.offsets[ref.position + 1] - off);
    const int32_t result = vit_target<S>(tr, em, a.residues + off, L, ref.move, g, lane);
    if (lane == 0) a.out[t] = result;
  }
}

template <int S>
void launch(const VitKernelArgs& a, cudaStream_t stream) {
  const size_t smem = profile_words(S) * sizeof(uint32_t);
  CUDA_CHECK(cudaFuncSetAttribute(vit_kernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  vit_kernel<S><<<a.blocks, warps_per_block(S) * 32, smem, stream>>>(a);
  CUDA_CHECK_LAUNCH("vit_kernel");
}

}  // namespace

void launch_vit_kernel(const VitKernelArgs& a, int segment, cudaStream_t stream) {
  if (a.blocks == 0) return;
  switch (segment) {
    case 2: return launch<2>(a, stream);
    case 4: return launch<4>(a, stream);
    case 8: return launch<8>(a, stream);
    case 16: return launch<16>(a, stream);
    case 32: return launch<32>(a, stream);
    case 40: return launch<40>(a, stream);
    default: throw Error("launch_vit_kernel: no kernel compiled for segment size " + std::to_string(segment));
  }
}

}  // namespace hpc::cuda
