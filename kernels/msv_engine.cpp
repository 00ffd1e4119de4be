// The msv engine factory (the CUDA engine where this build has it and the kind asks for it), and
// a tile's run with out-of-memory recovery.
#include "kernels/msv_engine.hpp"

#include <functional>
#include <string>

#include "kernels/cpu/msv_engine_cpu.hpp"
#include "kernels/fault_injection.hpp"
#include "src/plan/tile_split.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/msv_engine_cuda.hpp"
#endif

namespace hpc {

std::unique_ptr<MsvEngine> make_msv_engine(BackendKind kind, int device, int host_threads, const MsvSetup& setup) {
  backend_device_count(kind);  // --backend cuda without a GPU or without CUDA: the backend's clear error
#ifdef HPCALIGN_HAVE_CUDA
  if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available()))
    return make_cuda_msv_engine(device, host_threads, setup);
#else
  (void)device, (void)host_threads;
#endif
  return std::make_unique<CpuMsvEngine>(setup);
}

MsvTileResult run_msv_tile(MsvEngine& engine, const Tile& tile) {
  const std::function<MsvTileResult(const Tile&)> part = [&](const Tile& t) {
    injected_out_of_memory(t.cells, "tile " + std::to_string(t.id));
    return engine.run(t);
  };
  const std::function<MsvTileResult(const Tile&, const Tile&, MsvTileResult&&, const Tile&, MsvTileResult&&)> join =
      [](const Tile&, const Tile&, MsvTileResult&& a, const Tile&, MsvTileResult&& b) {
        a.counts.insert(a.counts.end(), b.counts.begin(), b.counts.end());
        a.pairs.insert(a.pairs.end(), b.pairs.begin(), b.pairs.end());
        return std::move(a);
      };
  return run_splitting_on_oom<MsvTileResult>(tile, part, join, log_oom_split("models", "targets"));
}

}  // namespace hpc
