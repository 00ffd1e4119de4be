#pragma once
// Batched local alignments (coordinates + CIGAR) on the GPU, identical to
// reference_align(AlignMode::Local, ...): same end cell, same path under the tie rule.
//
// Pairs go in three queues of stripe tickets (traceback_kernels.hpp): the end cells, the start
// bounds (all pairs at once), then the direction nibbles of each rectangle and the walk, in
// batches that fit the memory budget.
// Host fallback (strip_align_all, kernels/cpu/strip_align.hpp: the same alignment in bounded
// memory, on all cores) for the pairs the GPU cannot take exactly:
//   - scores or lengths beyond the int32 arithmetic's safe range (see int32_safe), and
//   - a rectangle whose nibbles alone exceed the budget (the constructor's, else half the free
//     device memory; HPCALIGN_CUDA_TRACEBACK_BYTES when set: tests use it to force batching
//     and fallback).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/traceback_kernels.hpp"
#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc::cuda {

struct TracebackStats {
  size_t gpu_pairs = 0, host_pairs = 0, trace_batches = 0;
};

class GpuTraceback {
 public:
  // budget: device bytes a batch may take; 0: half the free memory at each align().
  GpuTraceback(const ScoreMatrix& matrix, GapCosts gaps, cudaStream_t stream, uint64_t budget = 0);
  // Alignments in the order of `pairs` (query, target).
  std::vector<Alignment> align(const std::vector<std::pair<SeqView, SeqView>>& pairs);
  const TracebackStats& last_stats() const { return stats_; }

 private:
  bool int32_safe(uint32_t m, uint32_t n) const;
  uint64_t budget_bytes() const;

  ScoreMatrix matrix_;
  GapCosts gaps_;
  cudaStream_t stream_;
  uint64_t budget_ = 0;
  TracebackStats stats_;
  DeviceBuffer<int32_t> matrix_dev_;
  DeviceBuffer<uint8_t> residues_;
  TbQueue queue_;
  DeviceBuffer<TbPair> pairs_;
  DeviceBuffer<TbPartial> partial_;
  DeviceBuffer<TbEnd> ends_;
  DeviceBuffer<uint32_t> bounds_;
  DeviceBuffer<TbWalk> walks_;
  DeviceBuffer<int2> colbuf_;
  DeviceBuffer<uint32_t> bits_;
  DeviceBuffer<char> ops_;
};

}  // namespace hpc::cuda
