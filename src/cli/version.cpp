#include "src/cli/version.hpp"

#include <string>

#include "hpcalign_git_revision.hpp"  // generated at build time (cmake/git_revision.cmake)
#include "kernels/backend.hpp"
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
      << "CUDA backend: " << (cuda_compiled() ? std::string("on, architectures ") + HPCALIGN_CUDA_ARCHITECTURES : "off")
      << "\n"
      << "CPU kernels: " << kCompiledKernels << " compiled; this CPU runs " << to_string(detect_simd_isa()) << "\n";
}

}  // namespace hpc::cli
