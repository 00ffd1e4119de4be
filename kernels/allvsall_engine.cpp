#include "kernels/allvsall_engine.hpp"

#include "kernels/cpu/allvsall_cpu.hpp"
#include "src/core/error.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace hpc {

// Auto picks the GPUs when this build has CUDA and one is visible; backend_device_count()
// resolves the kind and throws the usual clear message for --backend cuda without a GPU.
int allvsall_engine_count(BackendKind kind) { return backend_device_count(kind); }

std::unique_ptr<AllVsAllEngine> make_allvsall_engine(BackendKind kind, int device, int threads, const AllVsAllSetup& setup) {
#ifdef HPCALIGN_HAVE_CUDA
  if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available()))
    return make_cuda_allvsall_engine(device, setup);
#else
  if (kind == BackendKind::Cuda) backend_device_count(kind);  // throws: built without CUDA
#endif
  (void)device;
  return std::make_unique<CpuAllVsAll>(setup, threads);
}

}  // namespace hpc
