#pragma once
// Entry points of the CUDA backend; compiled only when CMake finds a CUDA compiler
// (HPCALIGN_HAVE_CUDA). kernels/backend.cpp calls these behind the generic factory.
#include <memory>

#include "kernels/backend.hpp"

namespace hpc {

// Number of CUDA devices visible to this process (0 when the driver or GPU is missing).
int cuda_device_count();
// Creates the primary context of every visible device (errors are left to the real calls).
void cuda_warm_up_contexts();
// Backend bound to device `device` (0-based among the visible ones).
std::unique_ptr<SearchBackend> make_cuda_search_backend(int device);

}  // namespace hpc
