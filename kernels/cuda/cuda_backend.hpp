#pragma once
// Entry points of the CUDA backend; compiled only when CMake finds a CUDA compiler
// (HPCALIGN_HAVE_CUDA). kernels/backend.cpp calls these behind the generic factory.
#include <memory>

#include "kernels/backend.hpp"

namespace hpc {

// Number of CUDA devices visible to this process (0 when the driver or GPU is missing).
int cuda_device_count();
// Backend bound to device `device` (0-based among the visible ones).
std::unique_ptr<SearchBackend> make_cuda_search_backend(int device);

}  // namespace hpc
