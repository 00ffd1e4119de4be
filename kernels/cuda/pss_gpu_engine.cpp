#include "kernels/cuda/pss_gpu_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "kernels/cpu/thread_pool.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"
#include "kernels/cuda/pss_cuda_engine.hpp"

namespace hpc {

// Copies per launch, in units of what the GPU holds at once: several waves per launch let the
// block scheduler balance long and short pairs; chunking lets the host fit one launch's
// Gumbels while the GPU scores the next.
// HPCALIGN_PSS_WAVES overrides it (tuning on the GPU).
uint64_t waves_per_launch() {
  return uint64_t(*tuning_number(Tunable::kPssWaves));
}

struct PssGpuEngine::Impl {
  PssParams params;
  const SequenceSet& queries;
  const SequenceSet& subjects;
  const QueryProfile* profile;
  // A PSSM needs the profile kernel; plain sequences take the faster packed one.
  std::unique_ptr<PssCudaScorer> scorer_ptr;
  PssCudaScorer& scorer;
  uint64_t concurrent;
  ThreadPool pool;

  Impl(int device, const PssParams& p, const SequenceSet& q, const SequenceSet& s, const QueryProfile* prof,
       int host_threads)
      : params(p), queries(q), subjects(s), profile(prof),
        scorer_ptr(prof ? std::make_unique<PssCudaScorer>(device)
                        : std::make_unique<PssCudaScorer>(device, p.matrix, p.gaps)),
        scorer(*scorer_ptr), concurrent(scorer.capacity().concurrent()), pool(std::max(1, host_threads)) {
    if (prof && (q.size() != 1 || q.length(0) != prof->length))
      throw Error("pss: a PSSM profile needs exactly one query of the profile's length");
  }

  // Fills the rows of `jobs` from their scores (pair-major, N permuted + the real one each).
  void statistics(const std::vector<PssPairJob>& jobs, const std::vector<int32_t>& scores,
                  const std::vector<uint32_t>& tile_queries, uint32_t subject_begin, PssPairResult* rows,
                  size_t subjects_in_tile) {
    const uint32_t n_perm = params.permutations, per = n_perm + 1;
    pool.run(jobs.size(), [&](size_t p) {
      PssPairResult& r = rows[jobs[p].query * subjects_in_tile + jobs[p].subject];
      r.query = tile_queries[jobs[p].query];
      r.target = subject_begin + jobs[p].subject;
      r.score = scores[p * per + n_perm];
      const std::vector<int32_t> permuted(scores.begin() + p * per, scores.begin() + p * per + n_perm);
      pss_statistics(r, queries.length(r.query), subjects.length(r.target), permuted, params.censor);
      if (params.keep_scores) r.permuted_scores = permuted;
    });
  }
};

PssGpuEngine::PssGpuEngine(int device, const PssParams& params, const SequenceSet& queries, const SequenceSet& subjects,
                           const QueryProfile* profile, int host_threads)
    : impl_(std::make_unique<Impl>(device, params, queries, subjects, profile, host_threads)) {
  if (params.permutations < kMinGumbelSamples)
    throw Error("pss: --permutations must be at least " + std::to_string(kMinGumbelSamples));
}

DeviceCapacity PssGpuEngine::capacity() const { return impl_->scorer.capacity(); }
double PssGpuEngine::kernel_seconds() const { return impl_->scorer.kernel_seconds(); }

std::vector<PssPairResult> PssGpuEngine::run(const std::vector<uint32_t>& queries, uint32_t subject_begin,
                                             uint32_t subject_end) {
  Impl& im = *impl_;
  // Tuning aid (HPCALIGN_CUDA_TIMING): where a tile's host time goes.
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double, std::milli>(clock::now() - t).count(); };
  const clock::time_point t_tile = clock::now();
  std::vector<SeqView> views;
  std::vector<uint32_t> indices;
  for (uint32_t s = subject_begin; s < subject_end; ++s) {
    views.push_back(im.subjects.view(s));
    indices.push_back(s);
  }
  im.scorer.load_subjects(views, indices, im.params.seed, im.params.permutations);
  const double t_load = since(t_tile);
  const uint64_t per = uint64_t(im.params.permutations) + 1;
  const size_t chunk = size_t(std::max<uint64_t>(1, waves_per_launch() * im.concurrent / per));  // pairs per launch
  std::vector<std::vector<PssPairJob>> launches;
  std::function<void(const std::vector<PssPairJob>&)> start;
  std::vector<SeqView> query_views;
  if (im.profile) {
    // Profile mode: every pair of the tile, largest first (LPT), cut into launches.
    im.scorer.set_queries(std::vector<QueryProfile>(queries.size(), *im.profile));
    std::vector<PssPairJob> jobs;
    for (uint32_t k = 0; k < queries.size(); ++k)
      for (uint32_t s = 0; s < views.size(); ++s) jobs.push_back({k, s});
    auto cells = [&](const PssPairJob& j) { return uint64_t(im.profile->length) * views[j.subject].length; };
    std::stable_sort(jobs.begin(), jobs.end(), [&](const PssPairJob& a, const PssPairJob& b) { return cells(a) > cells(b); });
    for (size_t b = 0; b < jobs.size(); b += chunk)
      launches.emplace_back(jobs.begin() + b, jobs.begin() + std::min(jobs.size(), b + chunk));
    start = [&](const std::vector<PssPairJob>& jobs) { im.scorer.launch(jobs, im.params.gaps); };
  } else {
    // Sequence mode: launches of whole queries against every subject of the tile (the packed
    // kernel orders its own work units LPT); pairs listed query-major as launch_queries() scores them.
    for (uint32_t q : queries) query_views.push_back(im.queries.view(q));
    // An even count when more than one, so the query-pair kernel's lanes are all used (the
    // plan batches queries of similar length together, so neighbours pair with little padding).
    size_t group = std::max<size_t>(1, chunk / std::max<size_t>(1, views.size()));
    if (group > 1) group &= ~size_t(1);
    for (uint32_t k0 = 0; k0 < queries.size(); k0 += uint32_t(group)) {
      launches.emplace_back();
      for (uint32_t k = k0; k < std::min<size_t>(queries.size(), k0 + group); ++k)
        for (uint32_t s = 0; s < views.size(); ++s) launches.back().push_back({k, s});
    }
    start = [&](const std::vector<PssPairJob>& jobs) {
      const uint32_t k0 = jobs.front().query, k1 = jobs.back().query + 1;
      im.scorer.launch_queries(std::vector<SeqView>(query_views.begin() + k0, query_views.begin() + k1));
    };
  }

  std::vector<PssPairResult> out(size_t(queries.size()) * views.size());
  if (launches.empty()) return out;
  double t_start = 0, t_wait = 0, t_fit = 0;
  clock::time_point t = clock::now();
  start(launches[0]);
  t_start += since(t);
  for (size_t i = 0; i < launches.size(); ++i) {
    t = clock::now();
    const std::vector<int32_t> scores = im.scorer.wait();
    t_wait += since(t);
    t = clock::now();
    if (i + 1 < launches.size()) start(launches[i + 1]);  // GPU busy while we fit
    t_start += since(t);
    t = clock::now();
    im.statistics(launches[i], scores, queries, subject_begin, out.data(), views.size());
    t_fit += since(t);
  }
  if (tuning_flag(Tunable::kCudaTiming))
    std::fprintf(stderr, "pss tile: total %.3f ms, load %.3f ms, launches %zu, start %.3f ms, wait %.3f ms, fit %.3f ms\n",
                 since(t_tile), t_load, launches.size(), t_start, t_wait, t_fit);
  return out;
}

PssGpuEngine::~PssGpuEngine() = default;

}  // namespace hpc
