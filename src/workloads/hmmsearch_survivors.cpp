#include "src/workloads/hmmsearch_survivors.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "src/hmm/forward_pair.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc {
namespace {

hmm::PairTarget pair_target(const Database& db, const Survivor& s) {
  const SeqView v = db.seqs.view(s.target);
  return {v.data, int(v.length), hmm::fb_special_odds(int(v.length), true)};
}

}  // namespace

std::vector<hmm::PostFilterResult> score_survivors(const std::vector<HmmModel>& models,
                                                   const std::vector<hmm::FbProfile>& profiles, const Database& db,
                                                   const hmm::PipelineSettings& settings,
                                                   const std::vector<Survivor>& survivors, ThreadPool& pool,
                                                   const std::vector<hmm::FbParse>* parses) {
  std::vector<hmm::PostFilterResult> out(survivors.size());
  // Runs of the list, a few per thread so that uneven targets even out; a run keeps its
  // pipeline (profile and matrices) while the model stays the same, so a list ordered by
  // model builds few of them. Neighbours of one model go through the Forward filter two at a
  // time (src/hmm/forward_pair.hpp).
  const size_t n = survivors.size();
  const size_t runs = std::min(n, size_t(pool.threads()) * 4);
  pool.run(runs, [&](size_t job) {
    std::optional<hmm::PostFilterPipeline> pipe;
    uint32_t model = 0;
    const size_t end = (job + 1) * n / runs;
    std::vector<float> pair_row;
    for (size_t i = job * n / runs; i < end; ++i) {
      const Survivor& s = survivors[i];
      if (!pipe || s.model != model) pipe.emplace(models.at(s.model), settings, profiles.at(s.model)), model = s.model;
      const auto score = [&](size_t k) {
        const Survivor& t = survivors[k];
        const SeqView v = db.seqs.view(t.target);
        const std::string& id = db.seqs.ids[t.target];
        out[k] = parses ? pipe->score_parsed(id, "", v.data, int(v.length), t.filter_nats, parses->at(k))
                        : pipe->score(id, "", v.data, int(v.length), t.filter_nats);
      };
      if (parses || i + 1 == end || survivors[i + 1].model != s.model || !hmm::forward_pair_available()) {
        score(i);
        continue;
      }
      // This one and the next (of similar length in a list ordered by length) through the
      // Forward filter together; the few that pass it through score(), Forward again included.
      const hmm::HmmerFloatMode mode;
      const std::array<float, 2> nats = forward_pair(profiles.at(s.model), pair_target(db, s),
                                                     pair_target(db, survivors[i + 1]), pair_row);
      for (size_t k = i; k <= i + 1; ++k)
        if (pipe->passes_forward(nats[k - i], survivors[k].filter_nats)) score(k);
      ++i;
    }
  });
  return out;
}

}  // namespace hpc
