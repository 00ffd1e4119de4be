#include "src/hmm/posterior.hpp"

#include <cmath>

namespace hpc::hmm {

bool decode_posteriors(const FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck, FbMatrix& pp) {
  const int L = fwd.L, Q = p.Q;
  float scaleproduct = float(1.0 / bck.x(0, kCellN));
  pp.resize(p.M, Q, L, true);
  __m128* ppv = pp.row(0);
  for (int q = 0; q < 3 * Q; ++q) ppv[q] = _mm_setzero_ps();
  for (int c : {kCellE, kCellN, kCellJ, kCellC, kCellB}) pp.x(0, c) = 0.0f;
  // pp may be bck itself (HMMER overwrites the Backward matrix): read each cell before writing.
  for (int i = 1; i <= L; ++i) {
    ppv = pp.row(i);
    const __m128* fv = fwd.row(i);
    const __m128* bv = bck.row(i);
    const __m128 totrv = _mm_set1_ps(scaleproduct * fwd.x(i, kCellScale));
    for (int q = 0; q < Q; ++q) {
      ppv[3 * q] = _mm_mul_ps(_mm_mul_ps(fv[3 * q], bv[3 * q]), totrv);
      ppv[3 * q + 1] = _mm_setzero_ps();
      ppv[3 * q + 2] = _mm_mul_ps(_mm_mul_ps(fv[3 * q + 2], bv[3 * q + 2]), totrv);
    }
    const float bN = bck.x(i, kCellN), bJ = bck.x(i, kCellJ), bC = bck.x(i, kCellC);
    const float bScale = bck.x(i, kCellScale);
    pp.x(i, kCellE) = 0.0f;
    pp.x(i, kCellN) = fwd.x(i - 1, kCellN) * bN * p.xf[kXN][kLoop] * scaleproduct;
    pp.x(i, kCellJ) = fwd.x(i - 1, kCellJ) * bJ * p.xf[kXJ][kLoop] * scaleproduct;
    pp.x(i, kCellC) = fwd.x(i - 1, kCellC) * bC * p.xf[kXC][kLoop] * scaleproduct;
    pp.x(i, kCellB) = 0.0f;
    if (bck.has_own_scales) scaleproduct *= fwd.x(i, kCellScale) / bScale;
  }
  return !std::isinf(scaleproduct);
}

bool decode_domains(const FbProfile& p, const FbMatrix& fwd, const FbMatrix& bck, DomainPosteriors& d) {
  const int L = fwd.L;
  float scaleproduct = float(1.0 / bck.x(0, kCellN));
  d.btot.assign(L + 1, 0.0f), d.etot.assign(L + 1, 0.0f), d.mocc.assign(L + 1, 0.0f);
  for (int i = 1; i <= L; ++i) {
    d.btot[i] = d.btot[i - 1] + (fwd.x(i - 1, kCellB) * bck.x(i - 1, kCellB) * fwd.x(i - 1, kCellScale) * scaleproduct);
    if (bck.has_own_scales) scaleproduct *= fwd.x(i - 1, kCellScale) / bck.x(i - 1, kCellScale);
    d.etot[i] = d.etot[i - 1] + (fwd.x(i, kCellE) * bck.x(i, kCellE) * fwd.x(i, kCellScale) * scaleproduct);
    float njcp = fwd.x(i - 1, kCellN) * bck.x(i, kCellN) * p.xf[kXN][kLoop] * scaleproduct;
    njcp += fwd.x(i - 1, kCellJ) * bck.x(i, kCellJ) * p.xf[kXJ][kLoop] * scaleproduct;
    njcp += fwd.x(i - 1, kCellC) * bck.x(i, kCellC) * p.xf[kXC][kLoop] * scaleproduct;
    d.mocc[i] = float(1.0 - double(njcp));
  }
  return !std::isinf(scaleproduct);
}

}  // namespace hpc::hmm
