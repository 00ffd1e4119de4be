#pragma once
// hmmsearch 3.3.2's per-target pipeline (p7_Pipeline, search mode, default options) for one
// model: the MSV, bias and Viterbi filters (filter_pipeline.hpp), then the Forward filter
// (F3 = 1e-5 on the Forward score against the bias-filter null, STATS LOCAL FORWARD tau and
// lambda), Backward, domain definition (domain_definition.hpp), the null2-corrected sequence
// and domain scores and their log P-values. Thresholding needs the whole search (Z, domZ):
// finish_hits (hmmsearch_hits.hpp) does it after all targets.
//
//   HmmsearchPipeline pipe(model);
//   std::optional<TargetHit> h = pipe.score(id, description, seq, L);   // per target
//   HitList list = finish_hits(std::move(hits), number_of_targets);        // after all
//   write_tblout(out, model, list); write_domtblout(out, model, list);     // hmmsearch_tables.hpp
//
// The part after the filters is PostFilterPipeline alone, for callers whose filters ran
// elsewhere (an msv engine, kernels/msv_engine.hpp): it takes a survivor of the Viterbi filter
// with its filter null (PairResult::filter_nats).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/hmm_file.hpp"
#include "src/hmm/domain_definition.hpp"
#include "src/hmm/fb_parser.hpp"
#include "src/hmm/fb_profile.hpp"
#include "src/hmm/filter_pipeline.hpp"
#include "src/hmm/hmmsearch_hits.hpp"

namespace hpc::hmm {

// hmmsearch's options of the pipeline: --F1 --F2 --F3 --nobias --nonull2 --max --seed.
struct PipelineSettings {
  double F1 = 0.02, F2 = 1e-3, F3 = 1e-5;
  bool bias_filter = true;  // --nobias: false (the Forward filter then scores against null1)
  bool null2 = true;        // --nonull2: false (no null2 correction of sequence or domain scores)
  uint32_t seed = 42;       // --seed (hmmsearch's 0, an arbitrary seed, is not offered)
  // --max: every filter off (F1 = F2 = F3 = 1, no bias filter), as hmmsearch sets it.
  static PipelineSettings max_sensitivity(PipelineSettings s) {
    s.F1 = s.F2 = s.F3 = 1.0;
    s.bias_filter = false;
    return s;
  }
  // The filters' part (F1, F2, the bias filter on or off), as filter_pipeline.hpp and the msv
  // engines take it.
  FilterSettings filter_settings() const;
};

struct PipelineCounts {  // hmmsearch's "Passed ... filter" lines
  long targets = 0, past_msv = 0, past_bias = 0, past_vit = 0, past_fwd = 0;
};

// The Forward filter (F3) on a target's Forward parser score, as PostFilterPipeline applies it
// (`filter_nats`: the filters' null, hmm::PairResult::filter_nats).
bool forward_filter_passes(const HmmModel& model, const PipelineSettings& settings, float fwd_nats,
                           float filter_nats);

// What the stages after the filters make of one target.
struct PostFilterResult {
  bool past_fwd = false;          // passed the Forward filter (hmmsearch's "Passed Fwd filter")
  std::optional<TargetHit> hit;   // reaches the hit list (at least one domain)
};

// False for a target of nonresidues only ('*', or '.', '_', '~' read as it): no match state
// emits one, so its Forward score is 0 (-inf nats) and it fails the Forward filter whatever F3
// (hmmsearch --max stops on such a target: "forward score underflow").
bool has_residue(const uint8_t* seq, int L);

// The pipeline from the Forward filter on, for one model: a target that passed the MSV, bias
// and Viterbi filters, `filter_nats` the null they scored it against (the bias filter's, or
// null1 under --nobias: PairResult::filter_nats). One per thread: it keeps its scratch
// matrices between targets.
class PostFilterPipeline {
 public:
  PostFilterPipeline(const HmmModel& model, const PipelineSettings& settings);
  // The same with the model's profile built already (build_fb_profile(model)): a copy, which
  // costs far less than building one (M x 20 logs and exps).
  PostFilterPipeline(const HmmModel& model, const PipelineSettings& settings, const FbProfile& profile);
  PostFilterResult score(const std::string& name, const std::string& description, const uint8_t* seq, int L,
                         float filter_nats);
  struct Target {
    const std::string *name, *description;
    const uint8_t* seq;
    int L;
    float filter_nats;
  };
  // score() from Backward on, for n (1 or 2) targets that passed the Forward filter on a
  // Forward parser run elsewhere (forward_group's special rows `fwd_x[k]`, FbMatrix::xmx's, and
  // its score `fwd_nats[k]`): out[k] is score()'s result for t[k], without Forward again; two
  // targets' Backward parsers side by side (backward_pair).
  void score_forwarded(const Target* t, int n, const std::vector<float>* const* fwd_x, const float* fwd_nats,
                       PostFilterResult* out);
  // The Forward filter's decision on a Forward parser score (nats): true when it passes F3
  // (then Backward and domain definition follow).
  bool passes_forward(float fwd_nats, float filter_nats) const;
  // score()'s stages on a survivor whose parsers ran elsewhere (kernels/hmm_fb_engine.hpp):
  // the same result score() gives. `parse` needs Backward's rows where the target passes F3
  // (hpc::Error if it lacks them).
  PostFilterResult score_parsed(const std::string& name, const std::string& description, const uint8_t* seq, int L,
                                float filter_nats, const FbParse& parse);

 private:
  // Domain definition on fwd_/bck_ (the target's parser matrices) and the hit's scores.
  std::optional<TargetHit> define_hit(const std::string& name, const std::string& description, const uint8_t* seq,
                                      int L, float fwdsc);
  float fwd_tau_, fwd_lambda_;
  PipelineSettings settings_;
  FbProfile profile_;
  FbMatrix fwd_, bck_;
  FbMatrix fwd2_, bck2_;  // score_forwarded's second target's
  DomainWorkspace domain_ws_;
};

// hmmsearch's pipeline one target at a time, in HMMER's order (filters, then the stages after
// them): the reference that the workers' tile pipeline (filters on an msv engine, survivors
// grouped: src/workloads/hmmsearch_survivors.hpp) is tested against, rows and counts alike.
class HmmsearchPipeline {
 public:
  explicit HmmsearchPipeline(const HmmModel& model, const PipelineSettings& settings = {});
  // The target's row if it reaches hmmsearch's hit list (passes all filters and has at least
  // one domain), else nothing. `seq` holds residue codes under HMMER's rules. Targets over
  // 100,000 residues throw hpc::Error (hmmsearch refuses them). One pipeline per thread: it
  // keeps its scratch matrices between targets.
  std::optional<TargetHit> score(const std::string& name, const std::string& description, const uint8_t* seq,
                                 int L);
  // The same stages for a Viterbi survivor whose parsers ran elsewhere (the filter null is
  // recomputed here); counts past_fwd only.
  bool passes_forward(const uint8_t* seq, int L, float fwd_nats) const;
  std::optional<TargetHit> score_parsed(const std::string& name, const std::string& description, const uint8_t* seq,
                                        int L, const FbParse& parse);
  const PipelineCounts& counts() const { return counts_; }

 private:
  // The model's scores made once for both its filters and its Forward/Backward profile.
  HmmsearchPipeline(const HmmModel& model, const PipelineSettings& settings, const ModelScores& scores);
  float filter_nats(const uint8_t* seq, int L) const;
  FilterSettings filter_settings_;
  ModelFilters filters_;
  FilterWorkspace filter_ws_;
  PostFilterPipeline post_;
  PipelineCounts counts_;
};

}  // namespace hpc::hmm
