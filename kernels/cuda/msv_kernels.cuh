#pragma once
// Device side of the GPU MSV filter (kernels/cuda/msv_kernels.cu), called by msv_cuda.cu.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/cuda/msv16_lane.hpp"

namespace hpc::cuda {

// Result code for "the byte range overflowed": the target certainly passes (+infinity nats).
constexpr int32_t kMsvOverflow = INT_MIN;
// Model nodes are striped over a warp in chunks of 32 lanes x 4 byte cells.
constexpr int kMsvChunkCells = 128;
constexpr int kMsvMaxChunks = 32;  // models up to 4096 nodes run on the GPU
constexpr int kMsvCodes = 24;      // residue rows of the profile (src/core/alphabet.hpp)

// One model of a launch: where its striped profile, its per-target tjb bytes and its
// results live (a launch scores every model against the same targets).
struct MsvModelSlot {
  uint64_t profile = 0;  // first word of its profile in MsvKernelArgs::profiles
  uint64_t targets = 0;  // first entry of its rows in tjb and out (model-major, n targets each)
  int base = 0, bias = 0, tbm = 0, tec = 0;
};

struct MsvKernelArgs {
  const uint8_t* residues = nullptr;  // whole database, concatenated in Database::by_length order
  const uint64_t* offsets = nullptr;  // sequence p of that order is residues[offsets[p] .. offsets[p+1])
  const uint32_t* profiles = nullptr; // per model [code][chunk][lane] words of 4 byte costs, padding cost 255
  const MsvModelSlot* models = nullptr;
  uint32_t n_models = 0;
  const uint8_t* tjb = nullptr;       // per (model, target of the launch): MsvProfile::tjb(L)
  int32_t* out = nullptr;             // per (model, target): the xJ byte score, or kMsvOverflow
  uint32_t begin = 0, end = 0;        // by_length positions of the targets
};

// The chunk count the kernel is compiled for that holds `chunks` chunks (>= chunks).
int msv_kernel_chunks(int chunks);
// Launches the MSV kernel compiled for `chunks` (a value msv_kernel_chunks returned) on `stream`.
void launch_msv_kernel(const MsvKernelArgs& args, int chunks, int sm_count, cudaStream_t stream);

// The 16-bit DPX SSV kernel (msv16_kernels.cu; layout in msv16_lane.hpp): launches the packs
// args.packs[0 .. n_packs), all of `q` nodes per slot (an hmm::msv16::kQs value), their
// profiles in `format` (hmm::msv16::ProfileFormat), on `stream`. Same results as
// launch_msv_kernel.
void launch_msv16_kernel(const hmm::msv16::Args& args, int q, int format, int sm_count, cudaStream_t stream);

}  // namespace hpc::cuda
