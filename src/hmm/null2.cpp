#include "src/hmm/null2.hpp"

#include "src/hmm/null_model.hpp"
#include "src/hmm/sse_expf.hpp"

namespace hpc::hmm {
namespace {

// Odds per code from the usage row: sum_k u_M(k) e_k(x) + u_I(k), plus the N/C/J share;
// degenerate codes averaged over their members (esl_abc_FAvgScVec), '*' 1. Each code's sum
// runs in HMMER's order; five codes' chains run side by side (one chain alone waits on its
// adds' latency). `inserts` false: every u_I is zero (a trace's usage), and adding +0 to a
// sum of products of non-negative numbers (never -0) leaves it as it is, so those adds go.
template <bool kInserts>
void usage_sums(const FbProfile& p, const __m128* use, __m128 sums[20]) {
  constexpr int kChains = 5;
  const int Q = p.Q;
  for (int code = 0; code < 20; code += kChains) {
    const __m128* rp[kChains];
    __m128 sv[kChains];
    for (int c = 0; c < kChains; ++c) rp[c] = p.emit(uint8_t(code + c)), sv[c] = _mm_setzero_ps();
    for (int q = 0; q < Q; ++q) {
      const __m128 um = use[3 * q];
      for (int c = 0; c < kChains; ++c) {
        sv[c] = _mm_add_ps(sv[c], _mm_mul_ps(um, rp[c][q]));
        if (kInserts) sv[c] = _mm_add_ps(sv[c], use[3 * q + 2]);
      }
    }
    for (int c = 0; c < kChains; ++c) sums[code + c] = sv[c];
  }
}

Null2 odds_from_usage(const FbProfile& p, const __m128* use, float xfactor, bool inserts) {
  const auto& classes = residue_classes();
  __m128 sums[20];
  if (inserts)
    usage_sums<true>(p, use, sums);
  else
    usage_sums<false>(p, use, sums);
  std::array<float, kHmmAlphabet> std20{};
  for (int code = 0; code < 20; ++code) std20[classes[code].members[0]] = sse_hsum(sums[code]) + xfactor;
  Null2 out{};
  for (int code = 0; code < kHmmerAlphabetSize; ++code) {
    const ResidueClass& rc = classes[code];
    if (rc.count == 0) {
      out[code] = 1.0f;
    } else if (code < 20) {
      out[code] = std20[rc.members[0]];
    } else {
      float sum = 0.0f;  // members in HMMER's residue order, as Easel sums them
      for (int y = 0; y < kHmmAlphabet; ++y)
        for (int j = 0; j < rc.count; ++j)
          if (rc.members[j] == y) sum += std20[y];
      out[code] = sum / float(rc.count);
    }
  }
  return out;
}

}  // namespace

Null2 null2_by_expectation(const FbProfile& p, FbMatrix& pp) {
  const int Q = p.Q, Ld = pp.L;
  __m128* r0 = pp.row(0);
  const __m128* r1 = pp.row(1);
  for (int q = 0; q < 3 * Q; ++q) r0[q] = r1[q];
  pp.x(0, kCellN) = pp.x(1, kCellN);
  pp.x(0, kCellC) = pp.x(1, kCellC);
  pp.x(0, kCellJ) = pp.x(1, kCellJ);
  for (int i = 2; i <= Ld; ++i) {
    const __m128* ri = pp.row(i);
    for (int q = 0; q < Q; ++q) {
      r0[3 * q] = _mm_add_ps(ri[3 * q], r0[3 * q]);
      r0[3 * q + 2] = _mm_add_ps(ri[3 * q + 2], r0[3 * q + 2]);
    }
    pp.x(0, kCellN) += pp.x(i, kCellN);
    pp.x(0, kCellC) += pp.x(i, kCellC);
    pp.x(0, kCellJ) += pp.x(i, kCellJ);
  }
  const float norm = float(1.0 / double(float(Ld)));
  const __m128 sv = _mm_set1_ps(norm);
  for (int q = 0; q < Q; ++q) {
    r0[3 * q] = _mm_mul_ps(r0[3 * q], sv);
    r0[3 * q + 2] = _mm_mul_ps(r0[3 * q + 2], sv);
  }
  pp.x(0, kCellN) *= norm;
  pp.x(0, kCellC) *= norm;
  pp.x(0, kCellJ) *= norm;
  const float xfactor = pp.x(0, kCellN) + pp.x(0, kCellC) + pp.x(0, kCellJ);
  return odds_from_usage(p, r0, xfactor, true);
}

Null2 null2_by_trace(const FbProfile& p, const Trace& tr, int zstart, int zend) {
  const int Q = p.Q;
  thread_local std::vector<float> counts;  // [3q+cell][lane]; kept per thread (called per sampled domain)
  thread_local std::vector<__m128> use;
  counts.assign(size_t(3) * Q * 4, 0.0f);
  float xN = 0.0f, xC = 0.0f, xJ = 0.0f;
  int Ld = 0;
  for (int z = zstart; z <= zend; ++z) {
    if (tr.i[z] == 0) continue;
    ++Ld;
    if (tr.k[z] > 0) {  // M or I: HMMER counts both in the M cell
      const int q = (tr.k[z] - 1) % Q, r = (tr.k[z] - 1) / Q;
      counts[size_t(3 * q) * 4 + r] += 1.0f;
    } else if (tr.st[z] == kStN) {
      xN += 1.0f;
    } else if (tr.st[z] == kStC) {
      xC += 1.0f;
    } else if (tr.st[z] == kStJ) {
      xJ += 1.0f;
    }
  }
  const float norm = float(1.0 / double(float(Ld)));
  const __m128 sv = _mm_set1_ps(norm);
  use.resize(size_t(3) * Q);
  for (int c = 0; c < 3 * Q; ++c) use[c] = _mm_mul_ps(_mm_loadu_ps(&counts[size_t(c) * 4]), sv);
  xN *= norm, xC *= norm, xJ *= norm;
  return odds_from_usage(p, use.data(), xN + xC + xJ, false);
}

}  // namespace hpc::hmm
