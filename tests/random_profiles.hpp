#pragma once
// Random HMMER filter profiles and targets, and the check of the striped SIMD filters against
// the generic twins (kernels/cpu/msv_filters.hpp), shared by tests/unit and the
// dependency-free tests/cross. The profiles are built to reach every branch: byte costs far
// below the bias (long high-scoring diagonals: SSV and MSV overflow, the J state), large
// tbm (no SSV shortcut), Viterbi emissions that overflow 32767, '-infinity' rows, and D->D
// paths cheap enough for the lazy-F passes to run.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cpu/msv_simd.hpp"
#include "src/core/alphabet.hpp"

namespace hpc::test {

inline int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A byte MSV profile: costs around bias + 10 (a mildly negative score), `hot` of them 0
// (+bias, the best score), the nonresidue '*' 255 as HMMER's -infinity.
inline hmm::MsvProfile random_msv_profile(std::mt19937& rng, int M, double hot) {
  hmm::MsvProfile p;
  p.M = M;
  p.scale = float(3.0 / 0.69314718055994529);
  p.base = 190;
  p.bias = uint8_t(uniform(rng, 0, 60));
  p.tbm = uint8_t(uniform(rng, 0, 3) == 0 ? uniform(rng, 60, 120) : uniform(rng, 10, 60));
  p.tec = uint8_t(uniform(rng, 0, 8));
  p.cost.assign(size_t(kHmmerAlphabetSize) * (M + 1), 255);
  std::uniform_real_distribution<double> u(0, 1);
  for (int code = 0; code < kHmmerAlphabetSize; ++code) {
    if (code == kCodeStop) continue;
    for (int k = 1; k <= M; ++k)
      p.cost[size_t(code) * (M + 1) + k] =
          u(rng) < hot ? 0 : uint8_t(std::min(255, std::max(0, p.bias + uniform(rng, -4, 40))));
  }
  return p;
}

// A 16-bit Viterbi profile with HMMER's constants; emissions up to `hot_emit`, transitions
// 0 .. -3000 with some impossible (-32768) ones, ddbound from `dd_mode`: -1 computed as HMMER
// does, 0 always run the D->D passes, 1 never.
inline hmm::VitProfile random_vit_profile(std::mt19937& rng, int M, int hot_emit, int dd_mode) {
  hmm::VitProfile p;
  p.M = M;
  p.scale = float(500.0 / 0.69314718055994529);
  p.base = 12000;
  p.emit.assign(size_t(kHmmerAlphabetSize) * (M + 1), -32768);
  for (int code = 0; code < kHmmerAlphabetSize; ++code) {
    if (code == kCodeStop) continue;
    for (int k = 1; k <= M; ++k) p.emit[size_t(code) * (M + 1) + k] = int16_t(uniform(rng, -1500, hot_emit));
  }
  const auto trans = [&](int lo) {
    std::vector<int16_t> t(M + 1, -32768);
    for (int k = 1; k <= M; ++k) t[k] = uniform(rng, 0, 30) == 0 ? int16_t(-32768) : int16_t(uniform(rng, lo, 0));
    return t;
  };
  p.bm = trans(-6000), p.mm = trans(-400), p.im = trans(-2000), p.dm = trans(-1500);
  p.md = trans(-2500), p.mi = trans(-2500), p.ii = trans(-1500), p.dd = trans(-300);
  for (auto& v : p.ii) v = int16_t(std::min<int>(v, -1));
  p.md[M] = p.mi[M] = p.dd[M] = -32768;  // no node past M
  p.e_loop = p.e_move = -500;
  if (dd_mode == 0) {
    p.ddbound = 32767;
  } else if (dd_mode == 1) {
    p.ddbound = -65536;
  } else {
    p.ddbound = -32768;
    for (int k = 2; k < M - 1; ++k) p.ddbound = std::max(p.ddbound, p.dd[k] + p.dm[k + 1] - p.bm[k + 1]);
  }
  return p;
}

// Targets for one model of length M: random residues (every code, '*' too; the first target
// '*' only), and the best
// residue per node (from `best`) as one or two embedded copies with mutations, so that runs
// reach overflow and the J state joins two hits.
inline std::vector<std::vector<uint8_t>> random_targets(std::mt19937& rng, const std::vector<uint8_t>& best, int n) {
  std::vector<std::vector<uint8_t>> out;
  for (int t = 0; t < n; ++t) {
    const int kind = t % 4;
    std::vector<uint8_t> s;
    const auto noise = [&](int len) {
      for (int i = 0; i < len; ++i) s.push_back(uint8_t(uniform(rng, 0, 40) == 0 ? uniform(rng, 20, kHmmerAlphabetSize - 1)
                                                                                : uniform(rng, 0, 19)));
    };
    const auto copy = [&](double rate) {
      const int from = uniform(rng, 0, int(best.size()) - 1), len = uniform(rng, 1, int(best.size()) - from);
      for (int i = from; i < from + len; ++i) s.push_back(uniform(rng, 0, 999) < rate * 1000 ? uint8_t(uniform(rng, 0, 19)) : best[i]);
    };
    if (t == 0) {
      s.assign(3, kCodeStop);  // nothing emits '*'
    } else if (kind == 0 || t < 8) {
      noise(t < 8 ? t + 1 : uniform(rng, 1, 1500));
    } else {
      noise(uniform(rng, 0, 200));
      copy(kind == 1 ? 0.02 : 0.3);
      if (kind == 3) noise(uniform(rng, 0, 100)), copy(0.1);
      noise(uniform(rng, 0, 200));
    }
    out.push_back(s);
  }
  return out;
}

inline std::vector<uint8_t> cheapest_codes(const hmm::MsvProfile& p) {
  std::vector<uint8_t> best(p.M);
  for (int k = 1; k <= p.M; ++k)
    for (int c = 1; c < 20; ++c)
      if (p.row(uint8_t(c))[k] < p.row(best[k - 1])[k]) best[k - 1] = uint8_t(c);
  return best;
}

// What the comparisons saw: every branch must be reached for a check to mean something.
struct FilterTally {
  long compared = 0, mismatches = 0;
  long msv_infinite = 0, ssv_undecided = 0, msv_finite = 0;
  long vit_infinite = 0, vit_finite = 0, vit_minus_infinite = 0;
  std::string first_mismatch;
};

inline bool same_float(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Every filter of `simd` against its generic twin on every target, bit for bit.
inline void compare_filters(const hmm::MsvProfile& msv, const hmm::VitProfile& vit, const hmm::StripedFilters& simd,
                            const std::vector<std::vector<uint8_t>>& targets, FilterTally& tally,
                            const std::string& what) {
  hmm::FilterWorkspace ws;
  for (size_t t = 0; t < targets.size(); ++t) {
    const uint8_t* s = targets[t].data();
    const int L = int(targets[t].size());
    const float ms = hmm::msv_filter_score(msv, s, L, ws), mf = hmm::msv_full_score(msv, s, L, ws);
    const float vs = hmm::viterbi_filter_score(vit, s, L, ws);
    const bool decided = hmm::ssv_filter_score(msv, s, L, ws).has_value();
    const float got[3] = {simd.msv(msv, s, L, ws), simd.msv_full(msv, s, L, ws), simd.viterbi(vit, s, L, ws)};
    const float want[3] = {ms, mf, vs};
    const char* names[3] = {"msv", "msv_full", "viterbi"};
    for (int f = 0; f < 3; ++f) {
      ++tally.compared;
      if (same_float(got[f], want[f])) continue;
      if (tally.mismatches++ == 0)
        tally.first_mismatch = what + " target " + std::to_string(t) + " (L " + std::to_string(L) + ") " + names[f] +
                               ": " + std::to_string(got[f]) + " vs generic " + std::to_string(want[f]);
    }
    tally.ssv_undecided += !decided;
    (std::isinf(ms) ? tally.msv_infinite : tally.msv_finite)++;
    (std::isinf(vs) ? (vs > 0 ? tally.vit_infinite : tally.vit_minus_infinite) : tally.vit_finite)++;
  }
}

// The whole random suite for one instruction set: models of many lengths (below one
// vector, at the SSV's band and vector borders, long ones) and their targets.
inline FilterTally random_filter_suite(SimdIsa isa, uint32_t seed, int models) {
  std::mt19937 rng(seed);
  FilterTally tally;
  const int fixed[] = {1, 2, 15, 16, 17, 31, 32, 33, 191, 192, 193, 383, 384, 385, 767, 768, 769};
  for (int m = 0; m < models; ++m) {
    const int M = m < int(std::size(fixed)) ? fixed[m] : uniform(rng, 1, 1200);
    const hmm::MsvProfile msv = random_msv_profile(rng, M, m % 3 == 0 ? 0.0 : 0.05);
    hmm::VitProfile vit = random_vit_profile(rng, M, m % 4 == 0 ? 4000 : 900, m % 3 - 1);
    if (m % 7 == 6) vit.bm.assign(M + 1, -32768);  // no way in: the Viterbi filter's -infinity
    const hmm::StripedFilters simd(msv, vit, isa);
    const auto targets = random_targets(rng, cheapest_codes(msv), 24);
    compare_filters(msv, vit, simd, targets, tally, "model " + std::to_string(m) + " (M " + std::to_string(M) + ")");
  }
  return tally;
}

}  // namespace hpc::test
