#include "src/pss/pss_engine.hpp"

#include <cmath>
#include <limits>

#include "kernels/cpu/sw_profile_simd.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "src/core/error.hpp"
#include "src/pss/permute.hpp"

namespace hpc {

void pss_statistics(PssPairResult& r, uint32_t query_length, uint32_t subject_length,
                    const std::vector<int32_t>& permuted, const CensorSpec& censor) {
  r.n_perm = uint32_t(permuted.size());
  r.fit = fit_gumbel(permuted, censor);
  if (!r.fit.converged()) {
    r.K = 0;
    r.pvalue = r.log10_pvalue = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  const double mn = double(query_length) * double(subject_length);
  r.K = std::exp(r.fit.lambda * r.fit.mu - std::log(mn));
  // K m n e^(-lambda x) = e^(-lambda (x - mu)): the Gumbel survival, computed with expm1.
  r.pvalue = gumbel_survival(r.score, r.fit.mu, r.fit.lambda);
  r.log10_pvalue = gumbel_log_survival(r.score, r.fit.mu, r.fit.lambda) / std::log(10.0);
}

struct PssCpuEngine::Impl {
  PssParams params;
  const SequenceSet& queries;
  const SequenceSet& subjects;
  SwScorer scorer;
  std::unique_ptr<SwProfileScorer> profile_scorer;

  Impl(const PssParams& p, const SequenceSet& q, const SequenceSet& s, const QueryProfile* profile)
      : params(p), queries(q), subjects(s), scorer(p.matrix, p.gaps) {
    if (profile) {
      if (q.size() != 1 || q.length(0) != profile->length)
        throw Error("pss: a PSSM profile needs exactly one query of the profile's length");
      profile_scorer = std::make_unique<SwProfileScorer>(*profile, p.gaps);
    }
  }
};

PssCpuEngine::PssCpuEngine(const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
                           const QueryProfile* profile)
    : impl_(std::make_unique<Impl>(params, queries, subjects, profile)) {
  if (params.permutations < kMinGumbelSamples)
    throw Error("pss: --permutations must be at least " + std::to_string(kMinGumbelSamples));
}
PssCpuEngine::~PssCpuEngine() = default;

DeviceCapacity PssCpuEngine::capacity() const {
  DeviceCapacity c;
  const bool profile = impl_->profile_scorer != nullptr;
  c.name = std::string("cpu (1 thread, ") + (profile ? "sse2 striped profile" : impl_->scorer.kernel_name()) + ")";
  c.compute_units = 1;
  c.resident_per_unit = profile ? 8 : impl_->scorer.batch_lanes();
  return c;
}

std::vector<PssPairResult> PssCpuEngine::run(const std::vector<uint32_t>& queries, uint32_t subject) {
  const Impl& im = *impl_;
  const SeqView sv = im.subjects.view(subject);
  const uint32_t n_perm = im.params.permutations;
  const std::vector<uint8_t> copies = permute_subject_batch(sv, im.params.seed, subject, 0, n_perm);
  std::vector<SeqView> views(n_perm);
  for (uint32_t k = 0; k < n_perm; ++k) views[k] = {copies.data() + size_t(k) * sv.length, sv.length};

  std::vector<PssPairResult> out;
  std::vector<int32_t> scores(n_perm);
  if (im.profile_scorer) {
    for (uint32_t q : queries) {
      PssPairResult r;
      r.query = q;
      r.target = subject;
      r.score = im.profile_scorer->score(sv);
      im.profile_scorer->score(views.data(), n_perm, scores.data());
      pss_statistics(r, im.queries.length(q), sv.length, scores, im.params.censor);
      if (im.params.keep_scores) r.permuted_scores = scores;
      out.push_back(std::move(r));
    }
    return out;
  }
  // The permuted copies are interleaved once (SIMD lane layout) and reused for every query.
  const SwTargetBatch batch = im.scorer.make_batch(views.data(), n_perm);
  for (uint32_t q : queries) {
    PssPairResult r;
    r.query = q;
    r.target = subject;
    const SeqView qv = im.queries.view(q);
    r.score = im.scorer.score(qv, sv);
    im.scorer.score(qv, batch, scores.data());
    pss_statistics(r, qv.length, sv.length, scores, im.params.censor);
    if (im.params.keep_scores) r.permuted_scores = scores;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace hpc
