#include "src/hmm/hmmsearch_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "src/core/alphabet.hpp"
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

// The Forward filter (F3); filter_nats: the filters' null (the bias filter's, recomputed by the
// filter pipeline as HMMER does; null1 under --nobias).
bool forward_passes(float tau, float lambda, double F3, float fwd_nats, float filter_nats) {
  const HmmerFloatMode mode;
  const float fwd_bits = float((fwd_nats - filter_nats) / kLn2);
  return !(std::exp(exp_logsurv(fwd_bits, tau, lambda)) > F3);
}

}  // namespace

FilterSettings PipelineSettings::filter_settings() const {
  FilterSettings f;
  f.F1 = F1, f.F2 = F2;
  f.stages = kStageMsv | kStageVit | (bias_filter ? kStageBias : 0u);
  return f;
}

HmmsearchPipeline::HmmsearchPipeline(const HmmModel& model, const PipelineSettings& settings)
    : HmmsearchPipeline(model, settings, model_scores(model)) {}

HmmsearchPipeline::HmmsearchPipeline(const HmmModel& model, const PipelineSettings& settings,
                                     const ModelScores& scores)
    : filter_settings_(settings.filter_settings()),
      filters_(model, scores),
      post_(model, settings, build_fb_profile(model, scores)) {}

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
  PostFilterResult r = post_.score(name, description, seq, L, f.filter_nats);
  counts_.past_fwd += r.past_fwd;
  return std::move(r.hit);
}

float HmmsearchPipeline::filter_nats(const uint8_t* seq, int L) const {
  const HmmerFloatMode mode;
  return (filter_settings_.stages & kStageBias) ? filters_.bias.score(seq, L) : null_one_score(L);
}

bool HmmsearchPipeline::passes_forward(const uint8_t* seq, int L, float fwd_nats) const {
  return post_.passes_forward(fwd_nats, filter_nats(seq, L));
}

std::optional<TargetHit> HmmsearchPipeline::score_parsed(const std::string& name, const std::string& description,
                                                         const uint8_t* seq, int L, const FbParse& parse) {
  PostFilterResult r = post_.score_parsed(name, description, seq, L, filter_nats(seq, L), parse);
  counts_.past_fwd += r.past_fwd;
  return std::move(r.hit);
}

PostFilterPipeline::PostFilterPipeline(const HmmModel& model, const PipelineSettings& settings)
    : PostFilterPipeline(model, settings, build_fb_profile(model)) {}

PostFilterPipeline::PostFilterPipeline(const HmmModel& model, const PipelineSettings& settings,
                                       const FbProfile& profile)
    : fwd_tau_(model.fwd_tau), fwd_lambda_(model.fwd_lambda), settings_(settings), profile_(profile) {
  domain_ws_.seed = settings.seed;
}

bool has_residue(const uint8_t* seq, int L) {
  return std::any_of(seq, seq + L, [](uint8_t c) { return c != kCodeStop; });
}

PostFilterResult PostFilterPipeline::score(const std::string& name, const std::string& description,
                                           const uint8_t* seq, int L, float filter_nats) {
  const HmmerFloatMode mode;
  PostFilterResult out;
  if (!has_residue(seq, L)) return out;
  profile_.configure(L, true);
  const float fwdsc = forward(seq, L, profile_, fwd_, false);
  if (!passes_forward(fwdsc, filter_nats)) return out;
  out.past_fwd = true;
  backward(seq, L, profile_, fwd_, bck_, false);
  out.hit = define_hit(name, description, seq, L, fwdsc);
  return out;
}

void PostFilterPipeline::score_forwarded(const Target* t, int n, const std::vector<float>* const* fwd_x,
                                         const float* fwd_nats, PostFilterResult* out) {
  if (n < 1 || n > 2) throw Error("internal: score_forwarded of " + std::to_string(n) + " targets");
  const HmmerFloatMode mode;
  const FbTargetPair pair{{t[0].seq, t[n - 1].seq},
                          {t[0].L, t[n - 1].L},
                          {fb_special_odds(t[0].L, true), fb_special_odds(t[n - 1].L, true)}};
  FbMatrix* fwd[2] = {&fwd_, &fwd2_};
  for (int k = 0; k < n; ++k) {
    // The filters pass no target without residues (run_filters), so none comes here; the
    // Backward parsers below would read rows it has not.
    if (t[k].L < 1) throw Error("internal: score_forwarded given a target without residues");
    if (fwd_x[k]->size() < (size_t(t[k].L) + 1) * kXCells)
      throw Error("internal: score_forwarded given " + std::to_string(fwd_x[k]->size()) + " special cells for a target of " +
                  std::to_string(t[k].L) + " residues");
    fwd[k]->resize(profile_.M, profile_.Q, t[k].L, false);
    std::copy(fwd_x[k]->begin(), fwd_x[k]->begin() + (ptrdiff_t(t[k].L) + 1) * kXCells, fwd[k]->xmx.begin());
    fwd[k]->has_own_scales = true;
  }
  float bcksc[2];
  if (n == 2) {
    backward_pair(pair, profile_, fwd_, fwd2_, bck_, bck2_, false, bcksc);
  } else {
    profile_.configure(t[0].L, true);
    backward(t[0].seq, t[0].L, profile_, fwd_, bck_, false);
  }
  for (int k = 0; k < n; ++k) {
    out[k] = PostFilterResult{};
    out[k].past_fwd = true;
    profile_.configure(t[k].L, true);
    if (k == 1) std::swap(fwd_, fwd2_), std::swap(bck_, bck2_);  // define_hit reads fwd_ and bck_
    out[k].hit = define_hit(*t[k].name, *t[k].description, t[k].seq, t[k].L, fwd_nats[k]);
    if (k == 1) std::swap(fwd_, fwd2_), std::swap(bck_, bck2_);
  }
}

bool forward_filter_passes(const HmmModel& model, const PipelineSettings& settings, float fwd_nats,
                           float filter_nats) {
  return forward_passes(model.fwd_tau, model.fwd_lambda, settings.F3, fwd_nats, filter_nats);
}

bool PostFilterPipeline::passes_forward(float fwd_nats, float filter_nats) const {
  return forward_passes(fwd_tau_, fwd_lambda_, settings_.F3, fwd_nats, filter_nats);
}

PostFilterResult PostFilterPipeline::score_parsed(const std::string& name, const std::string& description,
                                                  const uint8_t* seq, int L, float filter_nats, const FbParse& parse) {
  PostFilterResult out;
  if (!has_residue(seq, L)) return out;
  if (!passes_forward(parse.fwd_nats, filter_nats)) return out;
  if (!parse.has_backward || parse.fwd_x.size() != (size_t(L) + 1) * kXCells ||
      parse.bck_x.size() != parse.fwd_x.size())
    throw Error("target " + name + ": passes the Forward filter but its Backward parser rows are missing");
  out.past_fwd = true;
  const HmmerFloatMode mode;
  fwd_.resize(profile_.M, profile_.Q, L, false), bck_.resize(profile_.M, profile_.Q, L, false);
  std::copy(parse.fwd_x.begin(), parse.fwd_x.end(), fwd_.xmx.begin());
  std::copy(parse.bck_x.begin(), parse.bck_x.end(), bck_.xmx.begin());
  fwd_.has_own_scales = true, bck_.has_own_scales = parse.bck_own_scales;
  profile_.configure(L, true);
  out.hit = define_hit(name, description, seq, L, parse.fwd_nats);
  return out;
}

std::optional<TargetHit> PostFilterPipeline::define_hit(const std::string& name, const std::string& description,
                                                        const uint8_t* seq, int L, float fwdsc) {
  const HmmerFloatMode mode;
  const float nullsc = null_one_score(L);
  const double tau = fwd_tau_, lambda = fwd_lambda_;
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
