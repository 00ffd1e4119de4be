#pragma once
// Macros for per-lane kernel code that is compiled twice: by nvcc for the GPU kernels and by
// the host compiler for the warp emulators the CPU unit tests run (vit_lane.hpp,
// msv16_lane.hpp), so the tests check the very code the GPU runs.
#if defined(__CUDACC__)
#define HPC_LANE_FN __host__ __device__ __forceinline__
#else
#define HPC_LANE_FN inline
#endif
#if defined(__CUDA_ARCH__)
#define HPC_LANE_UNROLL _Pragma("unroll")  // the register arrays need constant indices
#else
#define HPC_LANE_UNROLL
#endif
