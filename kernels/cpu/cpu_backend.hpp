#pragma once
// The CPU search backend: the SIMD score kernel (kernels/cpu/sw_simd.hpp) over a pool
// of threads, and the reference aligner for the alignments of the hits.
#include <memory>
#include <optional>

#include "kernels/backend.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "kernels/cpu/thread_pool.hpp"

namespace hpc {

class CpuSearchBackend : public SearchBackend {
 public:
  // threads: worker threads, 0 = the job's CPUs (usable_cpus(), src/core/cpu_budget.hpp).
  // isa: the kernel to use (tests force one); defaults to the fastest this CPU runs.
  explicit CpuSearchBackend(int threads, SimdIsa isa = detect_simd_isa());

  std::string name() const override;
  DeviceCapacity capacity() const override;
  void prepare(const SearchSetup& setup) override;
  std::vector<std::vector<ScoredTarget>> search_tile(const Tile& tile) override;
  SampledTile search_tile_sampled(const Tile& tile, const std::vector<uint32_t>& sample) override;
  std::vector<Alignment> align(const std::vector<AlignRequest>& pairs) override;

 private:
  const SearchSetup& setup() const;  // throws hpc::Error before prepare()
  // search_tile_sampled; `sample` may be null (no sample lists).
  SampledTile scan(const Tile& tile, const std::vector<uint32_t>* sample);

  int threads_;
  SimdIsa isa_;
  ThreadPool pool_;
  std::optional<SearchSetup> setup_;
  std::optional<SwScorer> scorer_;
};

std::unique_ptr<SearchBackend> make_cpu_search_backend(int threads);

}  // namespace hpc
