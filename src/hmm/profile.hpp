#pragma once
// Search profiles built from a core model exactly as HMMER 3.3.2 builds them for hmmsearch
// (p7_ProfileConfig in local multihit mode, then p7_oprofile_Convert):
//  - MsvProfile: the MSV filter's unsigned byte costs (scale 3/ln2 "third bits", base 190,
//    bias = -(largest residue score), tbm = ln 2/(M(M+1)), tec = ln 0.5, tjb = ln 3/(L+3)),
//  - VitProfile: the Viterbi filter's signed 16-bit scores (scale 500/ln2, base 12000),
//    with local entry from the model's match occupancy, insert emissions scored 0, and
//    the lazy-F bound on delete paths.
// Residue rows are indexed by the codes of HMMER's residue rules (src/core/alphabet.hpp,
// kHmmerAlphabetSize rows); degenerate codes B, J, Z, U, O, X get HMMER's expected scores,
// '*' HMMER's nonresidue (-infinity). The GPU kernels hold the first kAlphabetSize rows;
// their callers score targets with U, O or J on the host (kernels/cuda/msv_cuda.hpp).
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io/hmm_file.hpp"
#include "src/core/alphabet.hpp"

namespace hpc::hmm {

// Float match scores ln(p/f) per node (1..M) and code, as p7_ProfileConfig computes them.
std::vector<std::vector<float>> match_scores(const HmmModel& model);  // [code][k], k = 0..M

// Local entry scores ln(occ_k / sum_i occ_i (M-i+1)), stored off by one as HMMER stores
// them: [k-1] is the entry into M_k; [M] is -infinity.
std::vector<float> local_entry_scores(const HmmModel& model);

// The float scores of p7_ProfileConfig that the MSV, Viterbi and Forward/Backward profiles all
// start from, made once a model and read by the three (each had made its own: three times
// the match scores' logs, twice the transitions').
struct ModelScores {
  int M = 0;
  std::vector<std::vector<float>> match;  // match_scores(model)
  std::vector<float> entry;               // local_entry_scores(model)
  // ln t[k][which] (float of the double log) for the nodes with transitions, 1..M-1.
  std::vector<std::array<float, kHmmTransitions>> trans;
  // The profile's transition score: -infinity out of node 0 and node M (B->M aside, in entry).
  float tsc(int k, int which) const {
    return k < 1 || k >= M ? -std::numeric_limits<float>::infinity() : trans[size_t(k)][size_t(which)];
  }
};
ModelScores model_scores(const HmmModel& model);

struct MsvProfile {
  int M = 0;
  float scale = 0;        // 3/ln2 (float, as HMMER stores it)
  uint8_t base = 190;
  uint8_t bias = 0;
  uint8_t tbm = 0, tec = 0;
  // cost[code * (M + 1) + k]: biased byte cost of emitting `code` at node k (k = 1..M).
  std::vector<uint8_t> cost;
  const uint8_t* row(uint8_t code) const { return cost.data() + size_t(code) * (M + 1); }
  // Length-dependent J/N->B cost for a target of length L (p7_oprofile_ReconfigMSVLength).
  uint8_t tjb(int L) const;
};
MsvProfile build_msv_profile(const ModelScores& scores);
MsvProfile build_msv_profile(const HmmModel& model);

struct VitProfile {
  int M = 0;
  float scale = 0;        // 500/ln2
  int16_t base = 12000;
  // Per node k = 1..M (index k; 0 unused): transitions into M_k and out of node k.
  std::vector<int16_t> bm, mm, im, dm;   // into M_k from B, M_{k-1}, I_{k-1}, D_{k-1}
  std::vector<int16_t> md, mi, ii, dd;   // M_k->D_{k+1}, M_k->I_k, I_k->I_k, D_k->D_{k+1}
  std::vector<int16_t> emit;             // emit[code * (M + 1) + k]
  int16_t e_loop = 0, e_move = 0;        // E->J, E->C
  int ddbound = -32768;                  // lazy-F bound (HMMER's ddbound_w)
  const int16_t* row(uint8_t code) const { return emit.data() + size_t(code) * (M + 1); }
  int16_t move(int L) const;             // N/J/C->move score for a target of length L
};
VitProfile build_vit_profile(const ModelScores& scores);
VitProfile build_vit_profile(const HmmModel& model);

// HMMER's rounding helpers (exposed for tests).
uint8_t unbiased_byte(float scale, float score);
uint8_t biased_byte(float scale, uint8_t bias, float score);
int16_t word_score(float scale, float score);

}  // namespace hpc::hmm
