#pragma once
// The striped filter kernels, generic over a vector-traits type V. Included only by the
// per-ISA translation units (msv_simd_sse2.cpp, msv_simd_avx2.cpp) after they have selected
// their instruction set; internal linkage, so that no ISA's instantiation can be picked by the
// linker for another translation unit (the std headers it uses are included before the AVX2
// pragma, so their code keeps the baseline ISA).
//
// V provides: Reg, kBytes, load, store, zero, set1_8, set1_16, or_, subs_i8 (signed saturating),
// max_u8, adds_u8, subs_u8, adds_i16, max_i16, up1_8 / up1_16 (every lane moves one lane up
// across the whole vector, lane 0 becomes 0), hmax_u8, hmax_i16, any_gt_i16, and ssv_cell
// (sv = subs_i8(sv, *cost); xE = max_u8(xE, sv)).
#include <array>
#include <limits>
#include <utility>

#include "kernels/cpu/msv_simd_isa.hpp"

namespace hpc::hmm::msv_detail {
namespace {

template <class V>
struct Striped {
  using R = typename V::Reg;
  static constexpr int kMaxBands = StripedFilters::kMaxBands;

  static const R* vectors(const std::vector<SimdBlock>& v) { return reinterpret_cast<const R*>(v.data()); }

  // ---- SSV ----------------------------------------------------------------------------------
  // A band holds W vectors of diagonals in registers for the whole target (HMMER's
  // ssvfilter.c idea). Each diagonal cell is begin-relative and stored as signed byte - 128:
  // one saturating signed subtract of (cost - bias) both steps it and clamps it at the begin
  // level; the unsigned max then sees the run (a run past 127 - bias may wrap, but the max
  // has already recorded it at or above 255 - bias, which ssv_verdict treats as overflow).
  // Two running maxima (even and odd registers): short dependency chains without the
  // temporaries of a tree, so that a band of kMaxBands registers still fits the register file.
  template <int W>
  static inline __attribute__((always_inline)) void ssv_row(R (&sv)[W], const R* rsc, R (&xE)[2]) {
#pragma GCC unroll 16
    for (int r = 0; r < W; ++r) V::ssv_cell(sv[r], rsc + r, xE[r % 2]);
  }

  // Row J of the W rows where the band's registers reach the last vector one after the other
  // (W - 1 first): after its step that register moves its lanes up one (diagonals continue
  // from node z*Q to z*Q + 1) and lane 0 restarts at the begin level.
  template <int J, int W>
  static inline __attribute__((always_inline)) bool ssv_wrap_row(R (&sv)[W], const R* const* rows, const uint8_t* seq, int L, int& i,
                                  int p0, R (&xE)[2], R begin) {
    if (i >= L) return false;
    ssv_row<W>(sv, rows[seq[i]] + p0 + J, xE);
    sv[W - 1 - J] = V::or_(V::up1_8(sv[W - 1 - J]), begin);  // other lanes are negative: unchanged
    ++i;
    return true;
  }

  template <int W, size_t... J>
  static inline __attribute__((always_inline)) bool ssv_wrap(std::index_sequence<J...>, R (&sv)[W], const R* const* rows, const uint8_t* seq,
                              int L, int& i, int p0, R (&xE)[2], R begin) {
    return (ssv_wrap_row<int(J), W>(sv, rows, seq, L, i, p0, xE, begin) && ...);
  }

  // Vectors q..q+W-1 at row 0; at row i register r holds vector (q + r + i) mod Q. The
  // profile rows carry W - 1 wrapped copies, so the registers past the wrap read on.
  template <int W>
  static R ssv_band(const R* const* rows, const uint8_t* seq, int L, int Q, int q, R best) {
    const R begin = V::set1_8(0x80);
    R xE[2] = {best, best};
    R sv[W];
#pragma GCC unroll 16
    for (int r = 0; r < W; ++r) sv[r] = begin;
    int i = 0, p = q;
    for (;;) {
      const int plain = Q - W - p < L - i ? Q - W - p : L - i;
      for (const int end = i + plain; i < end; ++i, ++p) ssv_row<W>(sv, rows[seq[i]] + p, xE);
      if (!ssv_wrap<W>(std::make_index_sequence<W>(), sv, rows, seq, L, i, Q - W, xE, begin))
        return V::max_u8(xE[0], xE[1]);
      p = 0;
    }
  }

  using BandFn = R (*)(const R* const*, const uint8_t*, int, int, int, R);
  template <size_t... W>
  static constexpr std::array<BandFn, sizeof...(W) + 1> band_table(std::index_sequence<W...>) {
    return {nullptr, &ssv_band<int(W) + 1>...};
  }

  static int ssv_best(const Layout& s, const uint8_t* seq, int L) {
    static constexpr auto bands_of = band_table(std::make_index_sequence<kMaxBands>());
    const R* rows[kHmmerAlphabetSize];  // each residue's profile row
    for (int c = 0; c < kHmmerAlphabetSize; ++c) rows[c] = vectors(s.ssv) + c * s.ssv_stride;
    const int Q = s.q8;
    R xE = V::set1_8(0x80);
    const int bands = (Q + kMaxBands - 1) / kMaxBands;
    for (int b = 0, last = 0; b < bands; ++b) {
      const int q = Q * (b + 1) / bands;
      xE = bands_of[size_t(q - last)](rows, seq, L, Q, last, xE);
      last = q;
    }
    return V::hmax_u8(xE) - 128;
  }

  // ---- full MSV (p7_MSVFilter's striped byte recursion) -----------------------------------
  static float msv_full(const Layout& s, const MsvProfile& p, const uint8_t* seq, int L, SimdBlock* work) {
    const int Q = s.q8;
    R* dp = reinterpret_cast<R*>(work);
    for (int q = 0; q < Q; ++q) V::store(dp + q, V::zero());
    const R* cost = vectors(s.cost);
    const R biasv = V::set1_8(p.bias);
    MsvRowState st(p, L);
    for (int i = 0; i < L; ++i) {
      const R* rsc = cost + seq[i] * Q;
      const R xBv = V::set1_8(st.xB);
      R xEv = V::zero();
      R mpv = V::up1_8(V::load(dp + Q - 1));  // node 0 holds 0
      for (int q = 0; q < Q; ++q) {
        R sv = V::max_u8(mpv, xBv);
        sv = V::subs_u8(V::adds_u8(sv, biasv), V::load(rsc + q));
        xEv = V::max_u8(xEv, sv);
        mpv = V::load(dp + q);
        V::store(dp + q, sv);
      }
      if (!st.row(p, V::hmax_u8(xEv))) return std::numeric_limits<float>::infinity();
    }
    return st.nats(p);
  }

  // ---- Viterbi filter (p7_ViterbiFilter) ----------------------------------------------------
  static float viterbi(const Layout& s, const VitProfile& p, const uint8_t* seq, int L, SimdBlock* work) {
    const int Q = s.q16;
    R* Mx = reinterpret_cast<R*>(work);
    R* Ix = Mx + Q;
    R* Dx = Ix + Q;
    const R neg = V::set1_16(-32768);
    alignas(32) int16_t lane0[V::kBytes / 2] = {};
    lane0[0] = -32768;
    const R neg0 = V::load(lane0);  // or-ed into a moved-up vector: node 1 has no predecessor
    auto up = [&](R v) { return V::or_(V::up1_16(v), neg0); };
    for (int q = 0; q < 3 * Q; ++q) V::store(Mx + q, neg);
    const R* emit = vectors(s.emit);
    const R* trans = vectors(s.trans);
    const R* dd = vectors(s.dd);
    VitRowState st(p, L);
    for (int i = 0; i < L; ++i) {
      const R* rsc = emit + seq[i] * Q;
      const R* tsc = trans;
      const R xBv = V::set1_16(st.xB);
      R xEv = neg, Dmaxv = neg, dcv = neg;
      R mpv = up(V::load(Mx + Q - 1)), ipv = up(V::load(Ix + Q - 1)), dpv = up(V::load(Dx + Q - 1));
      for (int q = 0; q < Q; ++q, tsc += 7) {
        R sv = V::adds_i16(xBv, V::load(tsc));
        sv = V::max_i16(sv, V::adds_i16(mpv, V::load(tsc + 1)));
        sv = V::max_i16(sv, V::adds_i16(ipv, V::load(tsc + 2)));
        sv = V::max_i16(sv, V::adds_i16(dpv, V::load(tsc + 3)));
        sv = V::adds_i16(sv, V::load(rsc + q));
        xEv = V::max_i16(xEv, sv);
        mpv = V::load(Mx + q);
        dpv = V::load(Dx + q);
        ipv = V::load(Ix + q);
        V::store(Mx + q, sv);
        V::store(Dx + q, dcv);  // delayed: M->D of the vector before (vector 0 is set below)
        dcv = V::adds_i16(sv, V::load(tsc + 4));
        Dmaxv = V::max_i16(Dmaxv, dcv);
        V::store(Ix + q, V::max_i16(V::adds_i16(mpv, V::load(tsc + 5)), V::adds_i16(ipv, V::load(tsc + 6))));
      }
      const int xE = V::hmax_i16(xEv);
      if (xE >= 32767) return std::numeric_limits<float>::infinity();
      st.row(p, int16_t(xE));
      dcv = up(dcv);
      if (!st.needs_dd(p, V::hmax_i16(Dmaxv))) {
        V::store(Dx, dcv);
        continue;
      }
      // D->D: one full pass along the vectors, then passes carrying across the lanes until
      // a vector no longer changes (Farrar's lazy F).
      for (int q = 0; q < Q; ++q) {
        const R d = V::max_i16(dcv, V::load(Dx + q));
        V::store(Dx + q, d);
        dcv = V::adds_i16(d, V::load(dd + q));
      }
      for (bool changed = true; changed;) {
        dcv = up(dcv);
        for (int q = 0; q < Q; ++q) {
          const R old = V::load(Dx + q);
          if (!V::any_gt_i16(dcv, old)) {
            changed = false;
            break;
          }
          const R d = V::max_i16(dcv, old);
          V::store(Dx + q, d);
          dcv = V::adds_i16(d, V::load(dd + q));
        }
      }
    }
    return st.nats(p);
  }

  static constexpr KernelSet kernels() { return {V::kBytes, &ssv_best, &msv_full, &viterbi}; }
};

}  // namespace
}  // namespace hpc::hmm::msv_detail
