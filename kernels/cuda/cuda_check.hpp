#pragma once
// Every CUDA runtime call goes through CUDA_CHECK: a failure becomes hpc::Error carrying
// the call, the CUDA error string, and (for allocations) a hint about memory.
#include <cuda_runtime.h>

#include <string>

#include "src/core/error.hpp"

namespace hpc::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* what, const char* file, int line) {
  std::string msg = std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                    "): " + cudaGetErrorString(err);
  // Out of memory is not sticky: the driver splits the tile and the worker goes on
  // (src/workloads/tile_splits.hpp).
  if (err == cudaErrorMemoryAllocation)
    throw OutOfMemory(msg + " -- the GPU is out of memory; use a smaller database partition or fewer queries per tile");
  throw Error(msg);
}

}  // namespace hpc::cuda

#define CUDA_CHECK(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) ::hpc::cuda::throw_cuda_error(err_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, execution errors at the next sync.
#define CUDA_CHECK_LAUNCH(name) CUDA_CHECK(cudaGetLastError())
