#include "src/cli/version.hpp"

#include "hpcalign_git_revision.hpp"  // generated at build time (cmake/git_revision.cmake)
#include "kernels/cpu/sw_simd.hpp"

namespace hpc::cli {
namespace {

#if defined(__x86_64__) || defined(__i386__)
constexpr const char* kCompiledKernels = "sse2, avx2";
#else
constexpr const char* kCompiledKernels = "neon-simde (the SSE2 kernels on NEON through SIMDe)";
#endif

}  // namespace

void print_version(std::ostream& out) {
  out << "hpcalign " << HPCALIGN_VERSION << "\n"
      << "git revision: " << HPCALIGN_GIT_REVISION << "\n"
#ifdef HPCALIGN_HAVE_CUDA
      << "CUDA backend: on, architectures " << HPCALIGN_CUDA_ARCHITECTURES << "\n"
#else
      << "CUDA backend: off\n"
#endif
      << "CPU kernels: " << kCompiledKernels << " compiled; this CPU runs " << to_string(detect_simd_isa()) << "\n";
}

}  // namespace hpc::cli
