#pragma once
// The CUDA msv engine (kernels/msv_engine.hpp), built only with CUDA: the MSV filter of every
// (model, target) of a tile in one launch, the P-values on a host thread pool (the shared
// pipeline code), the bias filter of the pairs past MSV in one GPU call (HPCALIGN_HMM_BIAS=host:
// on the pool), then the Viterbi filter of the bias survivors of all the tile's models in one
// GPU call. Models or targets the kernels cannot hold take the CPU twin.
#include <memory>

#include "kernels/msv_engine.hpp"

namespace hpc {

std::unique_ptr<MsvEngine> make_cuda_msv_engine(int device, int host_threads, const MsvSetup& setup);

}  // namespace hpc
