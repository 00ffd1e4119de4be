#pragma once
// HMMER 3.3.2's MSV and Viterbi filters in Farrar-striped SIMD, as its impl_sse does them,
// bit-identical to the generic twins of kernels/cpu/msv_filters.hpp (what they return, also on
// overflow: MSV's 255 and Viterbi's 32767 give +infinity):
//  - MSV: first the SSV shortcut over bands of diagonals held in registers (one saturating
//    signed byte subtract and one unsigned max per 16 or 32 cells, no stores), then, where
//    the SSV cannot decide, the full striped byte MSV with its J state;
//  - Viterbi: the striped 16-bit recursion with the lazy-F D->D passes.
// The bias filter needs no DP of its own: it rescores the MSV score against the composition
// null (src/hmm/null_model.hpp), O(L) per target.
// Node k of the model (1..M) sits in lane (k-1) / Q of vector (k-1) % Q, Q = ceil(M / lanes);
// the nodes past M are padding that can neither raise a maximum nor feed a real node.
// AVX2 (32 byte lanes / 16 word lanes) where the CPU has it, else SSE2 (16 / 8; on aarch64
// through SIMDe on NEON); SimdIsa::Scalar runs the generic twins.
// Measured (README, msv): the CPU backend runs 2.5x hmmsearch 3.3.2's speed per core (AMD EPYC
// Zen 3, AVX2; 22 models x 20M synthetic residues, CPU seconds, both on 2 threads; 3.7x on
// Pfam domains); the SSV bands reach 60-95 GCUPS per core on models of 200+ nodes.
#include <cstdint>
#include <vector>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cpu/sw_simd.hpp"

namespace hpc::hmm {
namespace msv_detail {
struct KernelSet;
}

// The striped profiles of one model for one instruction set, and its filters.
class StripedFilters {
 public:
  StripedFilters() = default;  // empty (ModelFilters' default)
  StripedFilters(const MsvProfile& msv, const VitProfile& vit, SimdIsa isa = detect_simd_isa());
  // The profiles passed here must be the ones the object was built from.
  float msv(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const;      // msv_filter_score
  float msv_full(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const;  // msv_full_score
  float viterbi(const VitProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const;  // viterbi_filter_score
  SimdIsa isa() const { return isa_; }
  // The faster of this CPU's kernels for a model of M nodes: AVX2, except SSE2 up to 32 nodes,
  // where the one 32-lane vector makes every row wait on AVX2's slower lane move (a cross-half
  // permute) on the diagonals' dependency chain (M = 20: 1.5x faster in SSE2, EPYC Zen 3).
  static SimdIsa fastest_isa(int M);

  // The layout (read by the kernels, kernels/cpu/msv_simd_kernel.hpp).
  static constexpr int kMaxBands = 12;  // SSV diagonal vectors held in registers at once
  struct Layout {
    int lanes8 = 0, q8 = 0;    // byte lanes per vector, vectors per byte row
    int lanes16 = 0, q16 = 0;  // word lanes, vectors per word row
    int ssv_stride = 0;        // vectors per residue in `ssv` (q8 + kMaxBands - 1: wrapped copies)
    std::vector<SimdBlock> ssv;   // [code][ssv_stride]: signed cost - bias, capped at 127 (SSV)
    std::vector<SimdBlock> cost;  // [code][q8]: biased byte costs (full MSV), padding 255
    std::vector<SimdBlock> emit;  // [code][q16]: Viterbi match emissions, padding -32768
    std::vector<SimdBlock> trans; // [q16][7]: into M from B, M, I, D; M->D, M->I, I->I
    std::vector<SimdBlock> dd;    // [q16]: D->D
  };

 private:
  SimdIsa isa_{};
  const msv_detail::KernelSet* kernels_ = nullptr;  // nullptr: the generic twins
  Layout layout_;
};

}  // namespace hpc::hmm
