#include "src/hmm/hmmsearch_pipeline.hpp"

#include <cmath>

#include "src/core/error.hpp"
#include "src/hmm/forward_backward.hpp"
#include "src/hmm/hmmer_float_mode.hpp"
#include "src/hmm/logsum.hpp"
#include "src/hmm/null_model.hpp"

namespace hpc::hmm {
namespace {

constexpr double kLn2 = 0.69314718055994529;  // eslCONST_LOG2
constexpr int kMaxTargetLength = 100000;
const double kLogOmega = std::log(1.0 / 256.0);  // log(bg->omega)

double exp_logsurv(double x, double mu, double lambda) { return x < mu ? 0.0 : -lambda * (x - mu); }

// esl_vec_FSum: compensated float sum.
float kahan_sum(const std::vector<float>& v) {
  float sum = 0.0f, c = 0.0f;
  for (float x : v) {
    const float y = x - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

}  // namespace

HmmsearchPipeline::HmmsearchPipeline(const HmmModel& model, const PipelineSettings& settings)
    : fwd_tau_(model.fwd_tau),
      fwd_lambda_(model.fwd_lambda),
      settings_(settings),
      filters_(model),
      profile_(build_fb_profile(model)) {
  filter_settings_.F1 = settings.F1, filter_settings_.F2 = settings.F2;
  filter_settings_.stages = kStageMsv | kStageVit | (settings.bias_filter ? kStageBias : 0u);
  domain_ws_.seed = settings.seed;
}

std::optional<TargetHit> HmmsearchPipeline::score(const std::string& name, const std::string& description,
                                                  const uint8_t* seq, int L) {
  if (L > kMaxTargetLength)  // p7_Pipeline refuses these too
    throw Error("target " + name + ": " + std::to_string(L) + " residues, over hmmsearch's limit of 100,000 per target");
  counts_.targets++;
  const HmmerFloatMode mode;
  const PairResult f = run_filters(filters_, seq, L, filter_settings_, filter_ws_);
  counts_.past_msv += f.msv_pass;
  counts_.past_bias += f.bias_pass;
  counts_.past_vit += f.passed;
  if (!f.passed) return std::nullopt;

  // filtersc: the bias filter's null (the filter pipeline recomputes it as HMMER does);
  // null1 under --nobias.
  const float nullsc = null_one_score(L);
  const float filtersc = settings_.bias_filter ? filters_.bias.score(seq, L) : nullsc;
  profile_.configure(L, true);
  const float fwdsc = forward(seq, L, profile_, fwd_, false);
  const float fwd_bits = float((fwdsc - filtersc) / kLn2);
  const double tau = fwd_tau_, lambda = fwd_lambda_;
  if (std::exp(exp_logsurv(fwd_bits, tau, lambda)) > settings_.F3) return std::nullopt;
  counts_.past_fwd++;

  backward(seq, L, profile_, fwd_, bck_, false);
  DomainDefinition dd = define_domains(seq, L, profile_, fwd_, bck_, domain_ws_);
  if (dd.nregions == 0 || dd.nenvelopes == 0 || dd.domains.empty()) return std::nullopt;

  TargetHit h;
  h.name = name, h.description = description, h.length = L;
  const bool null2 = settings_.null2;
  float seqbias = null2 ? flogsum(0.0f, float(kLogOmega + kahan_sum(dd.n2sc))) : 0.0f;
  float pre_score = float((fwdsc - nullsc) / kLn2);
  float seq_score = float((fwdsc - (nullsc + seqbias)) / kLn2);

  // The "reconstruction score": the sum over domains whose null2-corrected score is positive.
  float sum_score = 0.0f;
  seqbias = 0.0f;
  int Ld = 0;
  for (const EnvelopeDomain& d : dd.domains)
    if (d.envsc - d.domcorrection > 0.0f) {
      sum_score += d.envsc;
      Ld += d.jenv - d.ienv + 1;
      seqbias += d.domcorrection;
    }
  seqbias = null2 ? flogsum(0.0f, float(kLogOmega + seqbias)) : 0.0f;
  const double loop = std::log(double(float(L) / float(L + 3)));
  sum_score = float(sum_score + (L - Ld) * loop);
  const float pre2_score = float((sum_score - nullsc) / kLn2);
  sum_score = float((sum_score - (nullsc + seqbias)) / kLn2);
  if (Ld > 0 && sum_score > seq_score) seq_score = sum_score, pre_score = pre2_score;

  h.pre_score = pre_score, h.score = seq_score, h.sum_score = sum_score;
  h.lnP = exp_logsurv(seq_score, tau, lambda);
  h.pre_lnP = exp_logsurv(pre_score, tau, lambda);
  h.sum_lnP = exp_logsurv(sum_score, tau, lambda);
  h.nexpected = dd.nexpected;
  h.nregions = dd.nregions, h.nclustered = dd.nclustered, h.noverlaps = dd.noverlaps, h.nenvelopes = dd.nenvelopes;
  for (const EnvelopeDomain& e : dd.domains) {
    DomainHit d;
    d.env = e;
    const int Le = e.jenv - e.ienv + 1;
    d.bitscore = float(e.envsc + (L - Le) * loop);
    d.dombias = null2 ? flogsum(0.0f, float(kLogOmega + e.domcorrection)) : 0.0f;
    d.bitscore = float((d.bitscore - (nullsc + d.dombias)) / kLn2);
    d.lnP = exp_logsurv(d.bitscore, tau, lambda);
    h.domains.push_back(d);
  }
  for (size_t d = 0; d < h.domains.size(); ++d) h.domains[d].ali = std::move(dd.alignments[d]);
  for (size_t d = 0; d < h.domains.size(); ++d)
    if (h.domains[d].bitscore > h.domains[h.best_domain].bitscore) h.best_domain = int(d);
  return h;
}

}  // namespace hpc::hmm
