#include "src/workloads/hmmsearch_survivors.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "src/hmm/forward_group.hpp"
#include "src/hmm/hmmer_float_mode.hpp"

namespace hpc {
namespace {

const std::string kNoDescription;

hmm::GroupTarget group_target(const Database& db, const Survivor& s) {
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
  // model builds few of them. Neighbours of one model go through the Forward filter up to eight
  // at a time (src/hmm/forward_group.hpp).
  const size_t n = survivors.size();
  // One run on a pool of one thread (the CPU worker's): each run builds its own pipelines, whose
  // matrices grow again, page by page.
  const size_t runs = std::min(n, pool.threads() == 1 ? size_t(1) : size_t(pool.threads()) * 4);
  const int width = std::min(hmm::forward_group_width(), hmm::kMaxGroup);
  pool.run(runs, [&](size_t job) {
    std::optional<hmm::PostFilterPipeline> pipe;
    uint32_t model = 0;
    const size_t end = (job + 1) * n / runs;
    std::vector<float> group_row;
    std::vector<float> group_rows[hmm::kMaxGroup];  // each target's Forward special rows
    const auto scorable = [&](size_t k) {
      const SeqView v = db.seqs.view(survivors[k].target);
      return hmm::has_residue(v.data, int(v.length));
    };
    for (size_t i = job * n / runs; i < end; ++i) {
      const Survivor& s = survivors[i];
      if (!scorable(i)) continue;  // fails the Forward filter (out[i] stays so)
      if (!pipe || s.model != model) pipe.emplace(models.at(s.model), settings, profiles.at(s.model)), model = s.model;
      const auto target = [&](size_t k) {
        const Survivor& t = survivors[k];
        const SeqView v = db.seqs.view(t.target);
        return hmm::PostFilterPipeline::Target{&db.seqs.ids[t.target], &kNoDescription, v.data, int(v.length),
                                               t.filter_nats};
      };
      const auto score = [&](size_t k) {
        const hmm::PostFilterPipeline::Target t = target(k);
        out[k] = parses ? pipe->score_parsed(*t.name, *t.description, t.seq, t.L, t.filter_nats, parses->at(k))
                        : pipe->score(*t.name, *t.description, t.seq, t.L, t.filter_nats);
      };
      // This one and the next ones of its model (of similar lengths in a list ordered by
      // length) through the Forward filter together; the few that pass it go on from Backward
      // two at a time (score_forwarded: their Backward parsers side by side) on the filter's
      // own Forward rows.
      size_t group = 1;
      while (!parses && group < size_t(width) && i + group < end && survivors[i + group].model == s.model &&
             scorable(i + group))
        ++group;
      if (group == 1) {
        score(i);
        continue;
      }
      hmm::GroupTarget in[hmm::kMaxGroup];
      float nats[hmm::kMaxGroup];
      for (size_t k = 0; k < group; ++k) in[k] = group_target(db, survivors[i + k]);
      const hmm::HmmerFloatMode mode;
      hmm::forward_group(profiles.at(s.model), in, int(group), group_row, nats, false, group_rows);
      size_t passed[hmm::kMaxGroup], npassed = 0;
      for (size_t k = 0; k < group; ++k)
        if (pipe->passes_forward(nats[k], survivors[i + k].filter_nats)) passed[npassed++] = k;
      for (size_t k = 0; k < npassed; k += 2) {
        const int two = k + 1 < npassed ? 2 : 1;
        hmm::PostFilterPipeline::Target t[2];
        const std::vector<float>* rows[2];
        float fwd[2];
        hmm::PostFilterResult r[2];
        for (int j = 0; j < two; ++j) {
          const size_t g = passed[k + size_t(j)];
          t[j] = target(i + g), rows[j] = &group_rows[g], fwd[j] = nats[g];
        }
        pipe->score_forwarded(t, two, rows, fwd, r);
        for (int j = 0; j < two; ++j) out[i + passed[k + size_t(j)]] = std::move(r[j]);
      }
      i += group - 1;
    }
  });
  return out;
}

}  // namespace hpc
