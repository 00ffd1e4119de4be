#pragma once
// Device side of the GPU Viterbi filter (kernels/cuda/vit_kernels.cu), called by vit_cuda.cu.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/vit_lane.hpp"

namespace hpc::cuda {

struct VitKernelArgs {
  const uint4* profiles = nullptr;            // packed profiles (vit_lane.hpp layout) of the batch's groups
  const hmm::vit::GroupParams* groups = nullptr;
  const hmm::vit::Work* work = nullptr;       // this launch's blocks (one Work per block)
  uint32_t blocks = 0;                        // how many
  const uint8_t* residues = nullptr;          // batch targets concatenated
  const uint64_t* offsets = nullptr;          // target t is residues[offsets[t] .. offsets[t+1])
  const int32_t* moves = nullptr;             // per target: VitProfile::move(L)
  int32_t* out = nullptr;                     // per target: xC, or hmm::vit::kOverflow
};

// Launches the kernel compiled for segment size `segment` (one of hmm::vit::kSegments).
void launch_vit_kernel(const VitKernelArgs& args, int segment, cudaStream_t stream);

}  // namespace hpc::cuda
