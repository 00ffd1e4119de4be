#pragma once
// hmmsearch's pipeline after its filters, for a list of survivors: the (model, target) pairs
// that passed the MSV, bias and Viterbi filters wherever those ran (an msv engine: CPU or GPU,
// kernels/msv_engine.hpp). Each survivor goes through the Forward filter, Backward, domain
// definition and null2 (hmm::PostFilterPipeline) on a host thread pool; with `parses` (the
// Forward/Backward parsers of the survivors, run by an FbEngine: kernels/hmm_fb_engine.hpp)
// only domain definition and the scores run here.
#include <cstdint>
#include <vector>

#include "io/database.hpp"
#include "io/hmm_file.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"

namespace hpc {

struct Survivor {
  uint32_t model = 0, target = 0;  // index in the model list; index in db.seqs
  float filter_nats = 0;           // the filters' null (hmm::PairResult::filter_nats)
};

// results[i]: survivors[i] after the filters. The same results for any thread count and
// any order of the list: each target's scores depend on its model and sequence alone.
// profiles[m]: build_fb_profile(models[m]).
std::vector<hmm::PostFilterResult> score_survivors(const std::vector<HmmModel>& models,
                                                   const std::vector<hmm::FbProfile>& profiles, const Database& db,
                                                   const hmm::PipelineSettings& settings,
                                                   const std::vector<Survivor>& survivors, ThreadPool& pool,
                                                   const std::vector<hmm::FbParse>* parses = nullptr);

}  // namespace hpc
