// The msv engine factory (the CUDA engine where this build has it and the kind asks for it), and
// a tile's run.
#include "kernels/msv_engine.hpp"

#include <string>

#include "kernels/cpu/msv_engine_cpu.hpp"
#include "kernels/fault_injection.hpp"
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
  injected_out_of_memory(tile.cells, "tile " + std::to_string(tile.id));
  return engine.run(tile);
}

}  // namespace hpc
