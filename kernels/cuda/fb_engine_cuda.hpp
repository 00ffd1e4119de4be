#pragma once
// The CUDA parser engine (kernels/hmm_fb_engine.hpp), built only with CUDA. forward(): a block
// per (model, target) job (kernels/cuda/fb_forward_block.cuh), the longest jobs first; jobs
// whose rows do not fit a block's shared memory, and parse(), one thread per job running the
// lane parsers (src/hmm/fb_parser_lanes.hpp) with its vector row in global memory, interleaved
// across the launch's threads so that a warp's accesses coalesce, sorted by model and length. The device returns the special
// rows (Forward alone: the scale factors) and the last cells; the host turns them into nats
// with the CPU's own code (hmm::fb_forward_nats), so results equal the CPU twin bit for bit.
#include <memory>

#include "kernels/hmm_fb_engine.hpp"

namespace hpc {

std::unique_ptr<FbEngine> make_cuda_fb_engine(int device, const std::vector<hmm::FbLaneProfile>* models);

}  // namespace hpc
