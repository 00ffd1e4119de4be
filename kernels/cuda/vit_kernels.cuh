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
  const uint8_t* residues = nullptr;          // the resident database's residues, in length order ...
  const uint64_t* offsets = nullptr;          // ... position p is residues[offsets[p] .. offsets[p+1])
  const hmm::vit::TargetRef* refs = nullptr;  // per batch target: its position and move(L)
  int32_t* out = nullptr;                     // per batch target: xC, or hmm::vit::kOverflow
};

// Launches the kernel compiled for segment size `segment` (one of hmm::vit::kSegments).
void launch_vit_kernel(const VitKernelArgs& args, int segment, cudaStream_t stream);

}  // namespace hpc::cuda
