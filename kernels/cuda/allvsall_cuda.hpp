#pragma once
// The CUDA all-vs-all engine (compiled only with CUDA): kernels/allvsall_engine.cpp reaches it
// through the generic factory. No CUDA header here, so host-only files can include it.
#include <memory>

#include "kernels/allvsall_engine.hpp"

namespace hpc {

// The share of the GPU's free memory an engine's launches take when setup.launch_budget is 0.
constexpr double kAllVsAllLaunchShare = 0.6;

std::unique_ptr<AllVsAllEngine> make_cuda_allvsall_engine(int device, const AllVsAllSetup& setup);

}  // namespace hpc
