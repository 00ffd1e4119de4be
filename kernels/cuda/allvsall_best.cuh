#pragma once
// The all-vs-all fills' end-cell candidates (avsa_fill and avsa_fill16 share the tie rule).
#include <cuda_runtime.h>

#include <cstdint>

namespace hpc::cuda {

// End-cell candidates: the larger score wins, then the earlier cell in row-major order, which
// is what reference.cpp's row-major scan with a strict '>' picks (tie rule 1).
struct Best {
  int32_t score;
  uint32_t i, j;
  __device__ bool beats(const Best& o) const {
    return score != o.score ? score > o.score : i != o.i ? i < o.i : j < o.j;
  }
};

// The best of a group's lanes (xor distances below G stay inside the aligned group).
template <uint32_t G>
__device__ Best group_best(Best b) {
  for (uint32_t d = G / 2; d > 0; d >>= 1) {
    Best o{__shfl_xor_sync(0xFFFFFFFFu, b.score, d), __shfl_xor_sync(0xFFFFFFFFu, b.i, d),
           __shfl_xor_sync(0xFFFFFFFFu, b.j, d)};
    if (o.beats(b)) b = o;
  }
  return b;
}

}  // namespace hpc::cuda
