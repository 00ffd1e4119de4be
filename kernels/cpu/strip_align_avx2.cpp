// AVX2 instantiation of the strip aligner: 8 int32 lanes in one 256-bit vector. Compiled
// for AVX2 with a target pragma (the file's build flags stay baseline) and only called
// after __builtin_cpu_supports("avx2").
#include "kernels/cpu/strip_align_isa.hpp"

#if defined(__x86_64__) || defined(__i386__)  // 256-bit AVX2 exists on x86 only
// The standard headers first, so their templates keep baseline code.
#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "kernels/cpu/simd_intrinsics.hpp"
#include "src/align/traceback_walk.hpp"  // its inline code stays baseline too
#include "src/core/alphabet.hpp"

#pragma GCC push_options
#pragma GCC target("avx2")
#define HPCALIGN_STRIP_GATHER 1
#include "kernels/cpu/strip_align_kernel.hpp"

namespace hpc::strip_detail {

const Kernels& avx2_kernels() {
  static const Kernels k{end_cell_impl, start_bounds_impl, fill_impl, advance_impl};
  return k;
}

}  // namespace hpc::strip_detail
#pragma GCC pop_options
#endif
