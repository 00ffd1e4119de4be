#pragma once
// HMMER 3.3.2's acceleration pipeline up to the Viterbi filter (p7_Pipeline), for one
// model against one target:
//   MSV:  bits = (msv - null1) / ln2, P from the model's STATS LOCAL MSV Gumbel; pass P <= F1
//   bias: the same MSV score against the composition-filter null (p7_bg_FilterScore); P <= F1
//   Vit:  only when the bias P is still > F2: bits = (vit - filter null) / ln2, P from
//         STATS LOCAL VITERBI; pass P <= F2
// Zero-length targets are skipped (never pass), as hmmsearch does.
#include <cmath>
#include <cstdint>
#include <string>

#include "io/hmm_file.hpp"
#include "kernels/cpu/msv_filters.hpp"
#include "kernels/cpu/msv_simd.hpp"
#include "src/hmm/null_model.hpp"
#include "src/hmm/profile.hpp"

namespace hpc::hmm {

enum Stage : unsigned { kStageMsv = 1, kStageBias = 2, kStageVit = 4 };
// "msv", "msv,bias" or "msv,bias,vit" -> stage mask; throws hpc::Error otherwise.
unsigned parse_stages(const std::string& s);
std::string stages_name(unsigned stages);

struct FilterSettings {
  double F1 = 0.02, F2 = 1e-3;
  unsigned stages = kStageMsv | kStageBias | kStageVit;
};

// Everything derived from one model that the filters need (built once, read by all threads).
struct ModelFilters {
  std::string name;
  int length = 0;
  float msv_mu = 0, msv_lambda = 0, vit_mu = 0, vit_lambda = 0;
  MsvProfile msv;
  VitProfile vit;
  BiasFilter bias;
  StripedFilters simd;  // the CPU's MSV and Viterbi filters (StripedFilters::fastest_isa)
  ModelFilters() = default;  // empty: a model whose filters are not built (HmmsearchJob::hold)
  explicit ModelFilters(const HmmModel& m);
  ModelFilters(const HmmModel& m, const ModelScores& scores);  // scores: model_scores(m)
};

struct PairResult {
  float msv_bits = NAN;
  double msv_pvalue = 1.0;
  bool msv_pass = false;
  bool bias_pass = false;
  float vit_bits = NAN;    // NaN when the Viterbi filter did not run
  double vit_pvalue = NAN;
  bool passed = false;     // passed every requested stage
  // Set by run_filters_until_viterbi: the Viterbi filter must decide (finish_viterbi), its
  // bits taken against `filter_nats` (the bias filter's null, or the plain null without it).
  bool needs_viterbi = false;
  float filter_nats = NAN;
};

PairResult run_filters(const ModelFilters& m, const uint8_t* seq, int L, const FilterSettings& s, FilterWorkspace& ws);
// The same pipeline given the MSV filter score `msv_nats` (msv_filter_score's value, e.g. from
// the GPU twin, kernels/cuda/msv_cuda.hpp): everything after the MSV filter is this code.
PairResult run_filters_after_msv(const ModelFilters& m, const uint8_t* seq, int L, float msv_nats,
                                 const FilterSettings& s, FilterWorkspace& ws);
// The same pipeline in two halves, for callers that score the Viterbi filter elsewhere in
// batches (the GPU twin, kernels/cuda/vit_cuda.hpp): everything up to the Viterbi filter, then,
// for a result with needs_viterbi, the Viterbi stage given viterbi_filter_score's value.
PairResult run_filters_until_viterbi(const ModelFilters& m, const uint8_t* seq, int L, float msv_nats,
                                     const FilterSettings& s);
// The same given the bias filter's score `bias_nats` (BiasFilter::score's value, e.g. from the
// GPU twin, kernels/cuda/bias_cuda.hpp; read only where the MSV filter passes and the bias stage
// is on).
PairResult run_filters_until_viterbi(const ModelFilters& m, int L, float msv_nats, float bias_nats,
                                     const FilterSettings& s);
PairResult finish_viterbi(const ModelFilters& m, PairResult r, float vit_nats, const FilterSettings& s);
// Whether an MSV score (nats) passes the MSV filter at target length L: the first decision
// of run_filters_until_viterbi, alone (what a GPU caller needs to skip the pairs that fail).
bool msv_filter_passes(const ModelFilters& m, int L, float msv_nats, const FilterSettings& s);

}  // namespace hpc::hmm
