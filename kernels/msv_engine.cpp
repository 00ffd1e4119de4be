// The msv engine factory: the CUDA engine where this build has it and the kind asks for it.
#include "kernels/msv_engine.hpp"

#include "kernels/cpu/msv_engine_cpu.hpp"
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

}  // namespace hpc
