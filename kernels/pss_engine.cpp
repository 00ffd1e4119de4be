// The pss engine factory: the CUDA engine where this build has it and the kind asks for it.
#include "kernels/pss_engine.hpp"

#include "kernels/cpu/pss_cpu.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/pss_gpu_engine.hpp"
#endif

namespace hpc {

std::unique_ptr<PssEngine> make_pss_engine(BackendKind kind, int device, int host_threads, const PssParams& params,
                                           const SequenceSet& queries, const SequenceSet& subjects,
                                           const QueryProfile* profile) {
  backend_device_count(kind);  // --backend cuda without a GPU or without CUDA: the backend's clear error
#ifdef HPCALIGN_HAVE_CUDA
  if (kind == BackendKind::Cuda || (kind == BackendKind::Auto && cuda_available()))
    return std::make_unique<PssGpuEngine>(device, params, queries, subjects, profile, host_threads);
#else
  (void)device, (void)host_threads;
#endif
  return std::make_unique<PssCpuEngine>(params, queries, subjects, profile);
}

}  // namespace hpc
