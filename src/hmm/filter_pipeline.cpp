#include "src/hmm/filter_pipeline.hpp"

#include "src/core/error.hpp"

namespace hpc::hmm {

namespace {
constexpr double kLn2 = 0.69314718055994529;  // eslCONST_LOG2

void require_model_data(const HmmModel& m) {
  if (!m.has_stats)
    throw InputError(m.source, m.first_line, "model '" + m.name + "' has no STATS LOCAL lines (calibrate it with hmmbuild 3.x)");
  if (!m.has_compo) throw InputError(m.source, m.first_line, "model '" + m.name + "' has no COMPO line (needed by the bias filter)");
}
}  // namespace

unsigned parse_stages(const std::string& s) {
  if (s == "msv") return kStageMsv;
  if (s == "msv,bias") return kStageMsv | kStageBias;
  if (s == "msv,bias,vit") return kStageMsv | kStageBias | kStageVit;
  throw Error("--stages must be msv, msv,bias or msv,bias,vit (got '" + s + "')");
}

std::string stages_name(unsigned stages) {
  std::string n = "msv";
  if (stages & kStageBias) n += ",bias";
  if (stages & kStageVit) n += ",vit";
  return n;
}

ModelFilters::ModelFilters(const HmmModel& m) : ModelFilters(m, model_scores(m)) {}

ModelFilters::ModelFilters(const HmmModel& m, const ModelScores& scores)
    : name(m.name),
      length(m.length),
      msv_mu(m.msv_mu),
      msv_lambda(m.msv_lambda),
      vit_mu(m.vit_mu),
      vit_lambda(m.vit_lambda),
      msv(build_msv_profile(scores)),
      vit(build_vit_profile(scores)),
      bias((require_model_data(m), m.length), m.compo),
      simd(msv, vit, StripedFilters::fastest_isa(m.length)) {}

PairResult run_filters(const ModelFilters& m, const uint8_t* seq, int L, const FilterSettings& s, FilterWorkspace& ws) {
  if (L <= 0) return PairResult{};
  return run_filters_after_msv(m, seq, L, m.simd.msv(m.msv, seq, L, ws), s, ws);
}

namespace {
struct MsvStat {
  float nullsc, bits;
  double P;
};
// p7_Pipeline's MSV bits and P-value, with its types: float score, double P.
MsvStat msv_stat(const ModelFilters& m, int L, float usc) {
  const float nullsc = null_one_score(L);
  const float bits = float(double(usc - nullsc) / kLn2);
  return {nullsc, bits, gumbel_survival(bits, m.msv_mu, m.msv_lambda)};
}
}  // namespace

bool msv_filter_passes(const ModelFilters& m, int L, float usc, const FilterSettings& s) {
  return L > 0 && !(msv_stat(m, L, usc).P > s.F1);
}

namespace {
// The pipeline up to the Viterbi filter; bias_score() gives the bias filter's null (nats), called
// only where the MSV filter passes and the bias stage is on.
template <class BiasScore>
PairResult until_viterbi(const ModelFilters& m, int L, float usc, const FilterSettings& s, BiasScore&& bias_score) {
  PairResult r;
  if (L <= 0) return r;
  const MsvStat st = msv_stat(m, L, usc);
  const float nullsc = st.nullsc;
  float bits = st.bits;
  double P = st.P;
  r.msv_bits = bits;
  r.msv_pvalue = P;
  if (P > s.F1) return r;
  r.msv_pass = true;

  float filtersc = nullsc;
  if (s.stages & kStageBias) {
    filtersc = bias_score();
    bits = float(double(usc - filtersc) / kLn2);
    P = gumbel_survival(bits, m.msv_mu, m.msv_lambda);
    if (P > s.F1) return r;
  }
  r.bias_pass = true;
  r.filter_nats = filtersc;
  r.needs_viterbi = (s.stages & kStageVit) && P > s.F2;
  r.passed = !r.needs_viterbi;
  return r;
}
}  // namespace

PairResult run_filters_until_viterbi(const ModelFilters& m, const uint8_t* seq, int L, float usc,
                                     const FilterSettings& s) {
  return until_viterbi(m, L, usc, s, [&] { return m.bias.score(seq, L); });
}

PairResult run_filters_until_viterbi(const ModelFilters& m, int L, float usc, float bias_nats,
                                     const FilterSettings& s) {
  return until_viterbi(m, L, usc, s, [&] { return bias_nats; });
}

PairResult finish_viterbi(const ModelFilters& m, PairResult r, float vit_nats, const FilterSettings& s) {
  if (!r.needs_viterbi) throw Error("internal: finish_viterbi on a pair the Viterbi filter does not decide");
  r.needs_viterbi = false;
  const float bits = float(double(vit_nats - r.filter_nats) / kLn2);
  const double P = gumbel_survival(bits, m.vit_mu, m.vit_lambda);
  r.vit_bits = bits;
  r.vit_pvalue = P;
  r.passed = !(P > s.F2);  // as p7_Pipeline: only a P above F2 stops the pair
  return r;
}

PairResult run_filters_after_msv(const ModelFilters& m, const uint8_t* seq, int L, float usc, const FilterSettings& s,
                                 FilterWorkspace& ws) {
  const PairResult r = run_filters_until_viterbi(m, seq, L, usc, s);
  if (!r.needs_viterbi) return r;
  return finish_viterbi(m, r, m.simd.viterbi(m.vit, seq, L, ws), s);
}

}  // namespace hpc::hmm
