// Generic backend factory: picks CPU or CUDA behind the one SearchBackend interface.
#include "kernels/backend.hpp"

#include <cstdio>

#include "kernels/cpu/cpu_backend.hpp"
#include "kernels/fault_injection.hpp"
#include "src/core/error.hpp"
#include "src/core/process_clock.hpp"
#include "src/core/tuning.hpp"
#ifdef HPCALIGN_HAVE_CUDA
#include "kernels/cuda/cuda_backend.hpp"
#endif

namespace hpc {

BackendKind parse_backend_kind(const std::string& s) {
  if (s == "auto") return BackendKind::Auto;
  if (s == "cpu") return BackendKind::Cpu;
  if (s == "cuda") return BackendKind::Cuda;
  throw Error("unknown backend '" + s + "' (expected auto, cpu or cuda)");
}

DeviceWarmup::DeviceWarmup(BackendKind kind, bool distributed) {
#ifdef HPCALIGN_HAVE_CUDA
  if (kind != BackendKind::Cpu && !distributed) {
    if (tuning_flag(Tunable::kCudaTiming))
      std::fprintf(stderr, "cuda warm-up began %.3f s after the process\n", process_seconds_fine());
    thread_ = std::thread([] { cuda_warm_up_contexts(); });
  }
#else
  (void)kind, (void)distributed;
#endif
}

DeviceWarmup::~DeviceWarmup() {
  if (thread_.joinable()) thread_.join();
}

bool cuda_available() {
#ifdef HPCALIGN_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

bool cuda_compiled() {
#ifdef HPCALIGN_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

static BackendKind resolve(BackendKind kind) {
  if (kind == BackendKind::Auto) return cuda_available() ? BackendKind::Cuda : BackendKind::Cpu;
  if (kind == BackendKind::Cuda && !cuda_available()) {
#ifdef HPCALIGN_HAVE_CUDA
    throw Error("--backend cuda: no CUDA GPU is visible to this process (check CUDA_VISIBLE_DEVICES and the driver)");
#else
    throw Error("--backend cuda: this hpcalign was built without CUDA support (no CUDA compiler at configure time)");
#endif
  }
  return kind;
}

int backend_device_count(BackendKind kind) {
#ifdef HPCALIGN_HAVE_CUDA
  if (resolve(kind) == BackendKind::Cuda) return cuda_device_count();
#else
  resolve(kind);
#endif
  return 1;
}

std::vector<Alignment> SearchBackend::align_flat(const std::vector<AlignRequest>& pairs, CigarBuffer& cigars) {
  std::vector<Alignment> alns = align(pairs);
  cigars = take_cigars(alns);
  return alns;
}

std::unique_ptr<SearchBackend> make_search_backend(BackendKind kind, int device, int threads, bool faults) {
  auto wrap = [faults](std::unique_ptr<SearchBackend> b) { return faults ? with_fault_injection(std::move(b)) : std::move(b); };
#ifdef HPCALIGN_HAVE_CUDA
  if (resolve(kind) == BackendKind::Cuda) return wrap(make_cuda_search_backend(device));
#else
  resolve(kind);
  (void)device;
#endif
  return wrap(make_cpu_search_backend(threads));
}

}  // namespace hpc
