#include "src/workloads/hmmsearch_survivors.hpp"

#include <algorithm>
#include <optional>

namespace hpc {

std::vector<hmm::PostFilterResult> score_survivors(const std::vector<HmmModel>& models,
                                                   const std::vector<hmm::FbProfile>& profiles, const Database& db,
                                                   const hmm::PipelineSettings& settings,
                                                   const std::vector<Survivor>& survivors, ThreadPool& pool,
                                                   const std::vector<hmm::FbParse>* parses) {
  std::vector<hmm::PostFilterResult> out(survivors.size());
  // Runs of the list, a few per thread so that uneven targets even out; a run keeps its
  // pipeline (profile and matrices) while the model stays the same, so a list ordered by
  // model builds few of them.
  const size_t n = survivors.size();
  const size_t runs = std::min(n, size_t(pool.threads()) * 4);
  pool.run(runs, [&](size_t job) {
    std::optional<hmm::PostFilterPipeline> pipe;
    uint32_t model = 0;
    for (size_t i = job * n / runs; i < (job + 1) * n / runs; ++i) {
      const Survivor& s = survivors[i];
      if (!pipe || s.model != model) pipe.emplace(models.at(s.model), settings, profiles.at(s.model)), model = s.model;
      const SeqView v = db.seqs.view(s.target);
      const std::string& id = db.seqs.ids[s.target];
      out[i] = parses ? pipe->score_parsed(id, "", v.data, int(v.length), s.filter_nats, parses->at(i))
                      : pipe->score(id, "", v.data, int(v.length), s.filter_nats);
    }
  });
  return out;
}

}  // namespace hpc
