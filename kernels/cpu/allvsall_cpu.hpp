#pragma once
// The CPU all-vs-all engine (the twin every other backend must match bit for bit):
//   score(): exact scores of a list of pairs. Local mode: the SIMD kernel
//     (kernels/cpu/sw_simd.hpp), one vector of targets per query run; global and
//     semiglobal: the scalar 32-bit Gotoh (kernels/cpu/gotoh_scalar.hpp), or the strip
//     aligner's vector sweeps (kernels/cpu/strip_align.hpp) for pairs of 2^20 cells or more.
//   align(): alignments with THE TIE RULE (src/align/reference.hpp): the reference
//     aligner (4-bit cells) for short pairs whose full traceback fits the per-pair budget,
//     else the strip aligner (in bands of the budget past it), or, for pairs outside its
//     int32 range, the checkpointed reduced-space aligner: all give the identical alignment.
// Pairs are spread over a thread pool; results do not depend on the thread count.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/allvsall_engine.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"
#include "src/plan/allvsall_plan.hpp"

namespace hpc {

class CpuAllVsAll : public AllVsAllEngine {
 public:
  // setup.traceback_budget 0 = this engine's memory share (capacity().memory_bytes / threads).
  // threads: 0 = all cores. Throws hpc::Error on a bad setup or an unsupported isa.
  CpuAllVsAll(const AllVsAllSetup& setup, int threads, SimdIsa isa = detect_simd_isa());

  std::string name() const override;
  DeviceCapacity capacity() const override;
  uint64_t traceback_budget() const { return budget_; }

  // Exact scores, scores[k] for pairs[k]. Local mode scores each run of consecutive pairs
  // with the same query as one SIMD batch, so pass pairs sorted by query.
  std::vector<int32_t> score(const std::vector<PairIndex>& pairs) override;
  // Alignments (score, coordinates, CIGAR) following the tie rule.
  std::vector<Alignment> align(const std::vector<PairIndex>& pairs) override;
  uint64_t reduced_space_pairs() const override { return reduced_pairs_; }

 private:
  void check(const PairIndex& p) const;

  AllVsAllSetup setup_;
  int threads_;
  ThreadPool pool_;
  std::optional<SwScorer> scorer_;         // local mode
  std::optional<SwEndScorer> end_scorer_;  // global and semiglobal modes
  uint64_t budget_ = 0;
  std::atomic<uint64_t> reduced_pairs_{0};
};

}  // namespace hpc
