#pragma once
// Batched alignments (coordinates + CIGAR) and scores on the GPU, identical to
// reference_align(mode, ...) and reference_score(mode, ...): same end cell, same path under the
// tie rule, in local, global and semiglobal mode.
//
// Pairs go in queues of stripe tickets (traceback_kernels.hpp): the end cells (local,
// semiglobal: all pairs at once; global ends at (m, n)), the start bounds (local), then the
// direction nibbles of each rectangle and the walk, in batches that fit the memory budget.
// Host fallback (strip_align_all, kernels/cpu/strip_align.hpp: the same alignment in bounded
// memory, on all cores) for the pairs the GPU cannot take exactly:
//   - scores or lengths beyond the int32 arithmetic's safe range (see int32_safe), and
//   - a rectangle whose nibbles alone exceed the budget (the constructor's, else half the free
//     device memory; HPCALIGN_CUDA_TRACEBACK_BYTES when set: tests use it to force batching
//     and fallback);
//   - global and semiglobal pairs with an empty sequence (their alignment is an end gap).
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
  using Pairs = std::vector<std::pair<SeqView, SeqView>>;
  // budget: device bytes a batch may take; 0: half the free memory at each align().
  GpuTraceback(AlignMode mode, const ScoreMatrix& matrix, GapCosts gaps, cudaStream_t stream, uint64_t budget = 0);
  // Alignments in the order of `pairs` (query, target).
  std::vector<Alignment> align(const Pairs& pairs);
  // Scores alone (pass 1), in the order of `pairs`.
  std::vector<int32_t> scores(const Pairs& pairs);
  const TracebackStats& last_stats() const { return stats_; }

 private:
  struct Placed;
  bool int32_safe(uint32_t m, uint32_t n) const;
  uint64_t budget_bytes() const;
  Placed place(const Pairs& pairs);
  std::vector<TbEnd> find_ends(const std::vector<TbPair>& whole, TbResidues res, uint64_t budget);
  void find_start_bounds(const std::vector<TbPair>& whole, std::vector<TbEnd>& ends, TbResidues res, uint64_t budget);

  AlignMode mode_;
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
