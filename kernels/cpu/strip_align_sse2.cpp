// Baseline instantiation of the strip aligner: the 8 int32 lanes as two 128-bit halves
// (SSE2 on x86-64, NEON on aarch64, as the compiler lowers its vector extensions).
// The baseline build notes that 256-bit vector arguments change the ABI; the kernel's vectors
// stay inside this file.
#pragma GCC diagnostic ignored "-Wpsabi"
#include "kernels/cpu/strip_align_kernel.hpp"

namespace hpc::strip_detail {

const Kernels& sse2_kernels() {
  static const Kernels k{end_cell_impl, start_bounds_impl, fill_impl, advance_impl};
  return k;
}

}  // namespace hpc::strip_detail
