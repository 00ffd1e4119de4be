#pragma once
// Models and targets for the Forward/Backward parser tests (tests/unit, tests/gpu): random
// models sharp enough for long runs of rescaling, the models in tests/data/hmm, and targets
// drawn from each model (one or many domains, long ones) next to random ones.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "io/hmm_file.hpp"
#include "random_sequences.hpp"
#include "test_support.hpp"
#include "src/core/alphabet.hpp"
#include "src/hmm/fb_parser.hpp"

namespace hpc::test {

// A random plan-7 model of M nodes: match emissions peaked on one residue by `sharpness`
// (0: flat, 1: almost deterministic), transitions with cheap or dear gaps.
inline HmmModel random_hmm(std::mt19937& rng, int M, double sharpness) {
  std::uniform_real_distribution<double> u(0.01, 1.0);
  HmmModel m;
  m.name = "random" + std::to_string(M);
  m.length = M;
  m.mat.assign(M + 1, {}), m.t.assign(M + 1, {});
  auto normalize = [](float* v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    for (int i = 0; i < n; ++i) v[i] = float(v[i] / s);
  };
  for (int k = 0; k <= M; ++k) {
    const int peak = std::uniform_int_distribution<int>(0, kHmmAlphabet - 1)(rng);
    for (int x = 0; x < kHmmAlphabet; ++x) {
      m.mat[k][x] = float(u(rng) * (1.0 - sharpness) + (x == peak ? 30.0 * sharpness : 0.0));
      u(rng);  // once an insert emission's draw (not held): the same random models as before
    }
    normalize(m.mat[k].data(), kHmmAlphabet);
    const double gap = std::uniform_int_distribution<int>(0, 3)(rng) == 0 ? 0.3 : 0.02;
    auto& t = m.t[k];
    t[kTMM] = float(1.0), t[kTMI] = float(gap * u(rng)), t[kTMD] = float(gap * u(rng));
    normalize(&t[kTMM], 3);
    t[kTIM] = float(u(rng)), t[kTII] = float(u(rng) * gap * 10);
    normalize(&t[kTIM], 2);
    t[kTDM] = float(u(rng)), t[kTDD] = float(u(rng) * (gap > 0.1 ? 3.0 : 0.5));
    normalize(&t[kTDM], 2);
  }
  m.mat[0] = {};
  m.mat[0][0] = 1.0f;
  m.t[0][kTDM] = 1.0f, m.t[0][kTDD] = 0.0f;
  m.t[M][kTMM] = 1.0f - m.t[M][kTMI], m.t[M][kTMD] = 0.0f, m.t[M][kTDM] = 1.0f, m.t[M][kTDD] = 0.0f;
  return m;
}

// The model's most likely residues (HMMER codes) from node `from`, with noise at `rate`.
inline std::vector<uint8_t> model_domain(std::mt19937& rng, const HmmModel& m, double rate, int from = 1) {
  std::vector<uint8_t> s;
  for (int k = from; k <= m.length; ++k) {
    int best = 0;
    for (int x = 1; x < kHmmAlphabet; ++x)
      if (m.mat[k][x] > m.mat[k][best]) best = x;
    s.push_back(encode_residue(static_cast<unsigned char>("ACDEFGHIKLMNPQRSTVWY"[best])));
  }
  std::vector<uint8_t> out = mutate(rng, s, rate);
  for (uint8_t& c : out) c = uint8_t(c % 20);  // mutate draws B, Z, X and '*' too: keep the 20 residues
  return out;
}

// Targets for one model: random ones (some with the degenerate and rare letters), one domain in
// random flanks, repeats of domains (the J state), and long ones of many domains.
inline std::vector<std::vector<uint8_t>> fb_targets(std::mt19937& rng, const HmmModel& m, int n_random, bool long_ones) {
  std::vector<std::vector<uint8_t>> t;
  std::uniform_int_distribution<int> len(1, 600);
  for (int i = 0; i < n_random; ++i) {
    t.push_back(random_seq(rng, size_t(len(rng)), 20));
    if (i % 3 == 0)  // HMMER's degenerate and rare letters: B, Z, X, U, O, J
      for (uint8_t& c : t.back())
        if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) c = uint8_t("\x14\x15\x16\x18\x19\x1a"[c % 6]);
  }
  auto flank = [&](int n) { return random_seq(rng, size_t(n), 20); };
  for (double rate : {0.0, 0.1, 0.3}) {
    std::vector<uint8_t> s = flank(std::uniform_int_distribution<int>(0, 80)(rng));
    const auto d = model_domain(rng, m, rate);
    s.insert(s.end(), d.begin(), d.end());
    const auto f = flank(std::uniform_int_distribution<int>(0, 80)(rng));
    s.insert(s.end(), f.begin(), f.end());
    t.push_back(s);
  }
  const int repeats = long_ones ? std::max(4, 6000 / std::max(1, m.length)) : 3;
  std::vector<uint8_t> s;
  for (int r = 0; r < repeats; ++r) {
    const auto d = model_domain(rng, m, 0.05, 1 + r % std::max(1, m.length / 3));
    s.insert(s.end(), d.begin(), d.end());
    const auto f = flank(std::uniform_int_distribution<int>(0, 30)(rng));
    s.insert(s.end(), f.begin(), f.end());
  }
  t.push_back(s);
  return t;
}

// A profile no model gives (emission odds 1e-3 to 1e3, transitions 1e-3 to 1, B->M entries 1e6
// to 1e12 in odd rounds, else 1e-3 to 1), from a random model of M nodes: Forward rescales
// nearly every row, and some scores leave the float range.
inline hmm::FbProfile extreme_fb_profile(std::mt19937& rng, int M, int round) {
  hmm::FbProfile p = hmm::build_fb_profile(random_hmm(rng, M, 0.5));
  const double lift = round % 2 ? 6.0 : -3.0;
  // Nonzero lanes only (the padding past node M stays 0): a power of ten in [lo, lo + span).
  auto redraw = [&](__m128& v, double lo, double span) {
    alignas(16) float f[4];
    _mm_store_ps(f, v);
    for (float& x : f)
      if (x != 0.0f) x = float(std::pow(10.0, lo + span * std::uniform_real_distribution<double>(0, 1)(rng)));
    v = _mm_load_ps(f);
  };
  for (__m128& v : p.rfv) redraw(v, -3.0, 6.0);
  for (size_t j = 0; j < p.tfv.size(); ++j)
    redraw(p.tfv[j], j < size_t(7 * p.Q) && j % 7 == hmm::kFbBM ? lift : -3.0, round % 2 ? 6.0 : 3.0);
  return p;
}

// The protein models in tests/data/hmm (3box is DNA).
inline std::vector<HmmModel> data_models() {
  std::vector<HmmModel> all;
  for (const char* f : {"Pkinase.hmm", "fn3.hmm", "globins4.hmm", "M1.hmm", "XYPPX.hmm", "pfam_style.hmm",
                        "20aa.hmm.gz", "2OG-FeII_Oxy_3.hmm.gz", "Caudal_act.hmm.gz", "LuxC.hmm.gz",
                        "RRM_1.hmm.gz"}) {
    for (HmmModel& m : read_hmm_file(data_path(std::string("hmm/") + f))) all.push_back(std::move(m));
  }
  return all;
}

// Where two sets of special rows first differ, bit for bit ("" if nowhere).
inline std::string rows_difference(const float* a, const float* b, size_t rows) {
  static const char* cell[] = {"E", "N", "J", "B", "C", "scale"};
  for (size_t i = 0; i < rows * hmm::kFbXCells; ++i)
    if (float_bits(a[i]) != float_bits(b[i]))
      return "row " + std::to_string(i / hmm::kFbXCells) + " " + cell[i % hmm::kFbXCells] + ": " +
             std::to_string(a[i]) + " vs " + std::to_string(b[i]);
  return "";
}

// Where two parser results differ, bit for bit ("" if nowhere).
inline std::string parse_difference(const hmm::FbParse& a, const hmm::FbParse& b) {
  if (float_bits(a.fwd_nats) != float_bits(b.fwd_nats))
    return "Forward score " + std::to_string(a.fwd_nats) + " vs " + std::to_string(b.fwd_nats);
  if (a.has_backward != b.has_backward) return "Backward ran in one only";
  if (!a.has_backward) return "";
  if (float_bits(a.bck_nats) != float_bits(b.bck_nats))
    return "Backward score " + std::to_string(a.bck_nats) + " vs " + std::to_string(b.bck_nats);
  if (a.bck_own_scales != b.bck_own_scales) return "Backward's own scales";
  if (a.fwd_x.size() != b.fwd_x.size() || a.bck_x.size() != b.bck_x.size()) return "row counts";
  const size_t rows = a.fwd_x.size() / hmm::kFbXCells;
  const std::string f = rows_difference(a.fwd_x.data(), b.fwd_x.data(), rows);
  if (!f.empty()) return "Forward " + f;
  const std::string r = rows_difference(a.bck_x.data(), b.bck_x.data(), rows);
  return r.empty() ? "" : "Backward " + r;
}

}  // namespace hpc::test
