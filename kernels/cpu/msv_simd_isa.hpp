#pragma once
// Per-ISA entry points of the striped HMMER filters (internal to kernels/cpu). Each set lives
// in its own translation unit compiled for its ISA (msv_simd_sse2.cpp, msv_simd_avx2.cpp);
// msv_simd.cpp picks one at run time.
#include <cstdint>

#include "kernels/cpu/msv_simd.hpp"

namespace hpc::hmm::msv_detail {

using Layout = StripedFilters::Layout;

struct KernelSet {
  int vector_bytes;
  // The SSV's best diagonal run over the target, relative to the begin level (ssv_verdict's
  // `best`).
  int (*ssv_best)(const Layout&, const uint8_t* seq, int L);
  // msv_full_score and viterbi_filter_score; `work` holds q8 (MSV) or 3 * q16 (Viterbi)
  // vectors, aligned to 32 bytes.
  float (*msv_full)(const Layout&, const MsvProfile&, const uint8_t* seq, int L, SimdBlock* work);
  float (*viterbi)(const Layout&, const VitProfile&, const uint8_t* seq, int L, SimdBlock* work);
};

extern const KernelSet kSse2Kernels;
extern const KernelSet kAvx2Kernels;  // x86 only

}  // namespace hpc::hmm::msv_detail
