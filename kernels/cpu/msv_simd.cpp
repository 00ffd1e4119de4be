#include "kernels/cpu/msv_simd.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/msv_simd_isa.hpp"
#include "src/core/error.hpp"

namespace hpc::hmm {
namespace {

const msv_detail::KernelSet* kernels_for(SimdIsa isa) {
  switch (isa) {
    case SimdIsa::Scalar: return nullptr;
    case SimdIsa::Sse2: return &msv_detail::kSse2Kernels;
    case SimdIsa::Avx2:
#if defined(__x86_64__) || defined(__i386__)
      return &msv_detail::kAvx2Kernels;
#else
      break;
#endif
  }
  throw Error(std::string("msv filters: no ") + to_string(isa) + " kernels in this build");
}

// A striped table of `rows` rows of `vectors` vectors of `lanes` values of T, filled by
// value(row, vector, lane). Rows and vectors as loops, not divisions of one index: those had been
// most of the construction, itself a tenth of building a model's filters.
template <class T, class F>
std::vector<SimdBlock> stripe(size_t rows, size_t vectors, int lanes, F value) {
  std::vector<SimdBlock> out((rows * vectors * lanes * sizeof(T) + sizeof(SimdBlock) - 1) / sizeof(SimdBlock));
  T* v = reinterpret_cast<T*>(out.data());
  for (size_t row = 0; row < rows; ++row)
    for (size_t j = 0; j < vectors; ++j, v += lanes)
      for (int z = 0; z < lanes; ++z) v[z] = value(row, j, z);
  return out;
}

}  // namespace

StripedFilters::StripedFilters(const MsvProfile& msv, const VitProfile& vit, SimdIsa isa) : isa_(isa) {
  if (!simd_isa_supported(isa)) throw Error(std::string("msv filters: this CPU cannot run the ") + to_string(isa) + " kernels");
  const msv_detail::KernelSet* k = kernels_ = kernels_for(isa);
  if (!k) return;
  const int M = msv.M, vb = k->vector_bytes;
  Layout& s = layout_;
  s.lanes8 = vb, s.q8 = std::max(1, (M + vb - 1) / vb);
  s.lanes16 = vb / 2, s.q16 = std::max(1, (vit.M + s.lanes16 - 1) / s.lanes16);
  s.ssv_stride = s.q8 + kMaxBands - 1;
  const int q8 = s.q8, q16 = s.q16, stride = s.ssv_stride;
  constexpr int kCodes = kHmmerAlphabetSize;

  // Node of lane z in vector q; past M: padding.
  const auto node8 = [&](size_t q, int z) { return z * q8 + int(q) + 1; };
  const auto node16 = [&](size_t q, int z) { return z * q16 + int(q) + 1; };
  // The SSV's rows hold q8 vectors, then kMaxBands - 1 wrapped copies of the first ones (vector
  // j is vector j % q8), copied below.
  s.ssv = stripe<int8_t>(kCodes, size_t(stride), vb, [&](size_t code, size_t j, int z) {
    const int k = node8(j, z);
    if (j >= size_t(q8)) return int8_t(0);
    if (k > M) return int8_t(127);  // the largest cost: padding never rises above begin
    return int8_t(std::clamp(int(msv.row(uint8_t(code))[k]) - msv.bias, -128, 127));
  });
  int8_t* const ssv = reinterpret_cast<int8_t*>(s.ssv.data());
  for (int code = 0; code < kCodes; ++code)
    for (int j = q8; j < stride; ++j)
      std::memcpy(ssv + (size_t(code) * stride + j) * vb, ssv + (size_t(code) * stride + j % q8) * vb, size_t(vb));
  s.cost = stripe<uint8_t>(kCodes, size_t(q8), vb, [&](size_t code, size_t q, int z) {
    const int k = node8(q, z);
    return k > M ? uint8_t(255) : msv.row(uint8_t(code))[k];
  });
  s.emit = stripe<int16_t>(kCodes, size_t(q16), s.lanes16, [&](size_t code, size_t q, int z) {
    const int k = node16(q, z);
    return k > vit.M ? int16_t(-32768) : vit.row(uint8_t(code))[k];
  });
  const std::vector<int16_t>* trans[7] = {&vit.bm, &vit.mm, &vit.im, &vit.dm, &vit.md, &vit.mi, &vit.ii};
  s.trans = stripe<int16_t>(size_t(q16), 7, s.lanes16, [&](size_t q, size_t t, int z) {
    const int k = node16(q, z);
    return k > vit.M ? int16_t(-32768) : (*trans[t])[k];
  });
  s.dd = stripe<int16_t>(1, size_t(q16), s.lanes16, [&](size_t, size_t q, int z) {
    const int k = node16(q, z);
    return k > vit.M ? int16_t(-32768) : vit.dd[k];
  });
}

SimdIsa StripedFilters::fastest_isa(int M) {
  const SimdIsa widest = detect_simd_isa();
  return widest == SimdIsa::Avx2 && M <= 32 ? SimdIsa::Sse2 : widest;
}

namespace {
SimdBlock* work_rows(FilterWorkspace& ws, size_t vectors, int vector_bytes) {
  const size_t blocks = (vectors * vector_bytes + sizeof(SimdBlock) - 1) / sizeof(SimdBlock);
  if (ws.simd.size() < blocks) ws.simd.resize(blocks);
  return ws.simd.data();
}
}  // namespace

float StripedFilters::msv(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const {
  const msv_detail::KernelSet* k = kernels_;
  if (!k) return msv_filter_score(p, seq, L, ws);
  if (ssv_applies(p, L))
    if (const std::optional<float> sc = ssv_verdict(p, L, k->ssv_best(layout_, seq, L))) return *sc;
  return k->msv_full(layout_, p, seq, L, work_rows(ws, layout_.q8, k->vector_bytes));
}

float StripedFilters::msv_full(const MsvProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const {
  const msv_detail::KernelSet* k = kernels_;
  if (!k) return msv_full_score(p, seq, L, ws);
  return k->msv_full(layout_, p, seq, L, work_rows(ws, layout_.q8, k->vector_bytes));
}

float StripedFilters::viterbi(const VitProfile& p, const uint8_t* seq, int L, FilterWorkspace& ws) const {
  const msv_detail::KernelSet* k = kernels_;
  if (!k) return viterbi_filter_score(p, seq, L, ws);
  return k->viterbi(layout_, p, seq, L, work_rows(ws, 3 * size_t(layout_.q16), k->vector_bytes));
}

}  // namespace hpc::hmm
