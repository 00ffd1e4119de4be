#include "kernels/cpu/pss_cpu.hpp"

#include <algorithm>
#include <iterator>

#include "kernels/cpu/sw_profile_simd.hpp"
#include "kernels/cpu/sw_simd.hpp"
#include "src/core/error.hpp"
#include "src/pss/permute.hpp"

namespace hpc {

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

std::vector<PssPairResult> PssCpuEngine::run(const std::vector<uint32_t>& queries, uint32_t subject_begin,
                                             uint32_t subject_end) {
  std::vector<PssPairResult> rows;
  for (uint32_t s = subject_begin; s < subject_end; ++s) {
    auto part = run(queries, s);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  // Ordered by query, then subject.
  std::stable_sort(rows.begin(), rows.end(), [](const PssPairResult& a, const PssPairResult& b) {
    return a.query != b.query ? a.query < b.query : a.target < b.target;
  });
  return rows;
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
